// `infergrid vector-index`: memory of a vector store, raw vectors plus an HNSW graph (see
// models/vector_index_memory.h for what is counted), in GB and GiB, and the graph's overhead
// over the raw vectors as a function of D and M, against the flat "50-65%" often quoted.
#ifndef INFERGRID_SIM_APP_ACCOUNTING_VECTOR_INDEX_RESULT_H_
#define INFERGRID_SIM_APP_ACCOUNTING_VECTOR_INDEX_RESULT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "models/vector_index_memory.h"
#include "sim/app/results/vector_index_result.pb.h"

namespace infergrid {

struct VectorIndexQuery {
  double vectors = 0;
  int64_t dim = 0;
  VectorElement element = VectorElement::kFp32;
  HnswLayout layout;
  std::vector<int64_t> table_dims;  // rows of the overhead table
  std::vector<int64_t> table_m;  // its columns
};

// The overhead range quoted for HNSW graphs "with M = 16 to 32".
inline constexpr double kClaimedOverheadLow = 0.50;
inline constexpr double kClaimedOverheadHigh = 0.65;

VectorIndexResult BuildVectorIndexResult(const VectorIndexQuery& query);
std::string RenderVectorIndexTable(const VectorIndexResult& result);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_ACCOUNTING_VECTOR_INDEX_RESULT_H_
