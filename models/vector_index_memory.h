// Memory of a vector store: the raw vectors (N x D x bytes per element) and an HNSW graph
// (Malkov & Yashunin 2016) laid out as hnswlib lays it out. Every node has a layer-0 link list
// of capacity M0 = 2M; a node's top level is floor(-ln(U) * mL) with mL = 1/ln(M), so
// P(level >= l) = M^-l and a node holds on average sum_{l>=1} M^-l = 1/(M-1) upper-layer lists
// of capacity M, that is M/(M-1) upper link slots.
//
// Counted per node: link slots at capacity (hnswlib allocates the full list whatever the actual
// degree), one link-count header per list, and the node's level. Left out: allocator rounding,
// hnswlib's per-element label and label->id hash map, the pointer to the upper-layer lists,
// per-element locks, visited lists, and whatever the database keeps beside the index (ids,
// payloads, WAL). The figures are expectations over the random levels.
#ifndef INFERGRID_MODELS_VECTOR_INDEX_MEMORY_H_
#define INFERGRID_MODELS_VECTOR_INDEX_MEMORY_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace infergrid {

enum class VectorElement { kFp32, kFp16, kInt8, kBinary };

// fp32/float32, fp16/float16, int8, binary/bit (case-insensitive).
absl::StatusOr<VectorElement> ParseVectorElement(absl::string_view name);
absl::string_view VectorElementName(VectorElement element);

// Bytes of one D-dimensional vector: 4D, 2D, D, or ceil(D/8) packed bits.
double VectorBytes(VectorElement element, int64_t dim);

struct HnswLayout {
  int64_t m = 16;  // links per node on the upper layers
  int64_t id_bytes = 4;  // width of a neighbour id (hnswlib: 4)
  int64_t count_header_bytes = 4;  // link-count word in front of every list (hnswlib: 4)
  int64_t level_bytes = 4;  // the node's top level (hnswlib: an int per element)
  int64_t m0() const { return 2 * m; }  // layer-0 capacity, as in hnswlib
};

// sum_{l>=1} M^-l = 1/(M-1): the expected number of upper-layer lists per node.
double ExpectedUpperLayersPerNode(int64_t m);

struct HnswNodeBytes {
  double layer0 = 0;  // count header + M0 ids
  double upper = 0;  // expected: (count header + M ids) / (M-1)
  double level = 0;
  double Total() const { return layer0 + upper + level; }
};
HnswNodeBytes HnswBytesPerNode(const HnswLayout& layout);

struct VectorIndexMemory {
  double raw_bytes = 0;  // N x vector bytes
  double graph_bytes = 0;  // N x expected graph bytes per node
  double Total() const { return raw_bytes + graph_bytes; }
  double Overhead() const { return graph_bytes / raw_bytes; }  // over raw storage
};
VectorIndexMemory ComputeVectorIndexMemory(double vectors, int64_t dim, VectorElement element,
                                           const HnswLayout& layout);

// Graph bytes over raw bytes for one node; independent of N.
double HnswOverhead(int64_t dim, VectorElement element, const HnswLayout& layout);

// The integer dimensions D >= 1 whose overhead lies in [low, high], 0 < low <= high (the
// overhead falls as D grows); min_dim > max_dim when none does or the bounds are invalid.
struct DimRange {
  int64_t min_dim = 0;
  int64_t max_dim = -1;
  bool Empty() const { return min_dim > max_dim; }
};
DimRange DimsWithOverheadBetween(double low, double high, VectorElement element, const HnswLayout& layout);

}  // namespace infergrid

#endif  // INFERGRID_MODELS_VECTOR_INDEX_MEMORY_H_
