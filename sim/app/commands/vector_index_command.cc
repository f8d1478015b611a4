// `infergrid vector-index`: the memory of a vector store, raw vectors plus an HNSW graph, and the
// graph's overhead table (sim/app/accounting/vector_index_result.h), as a table or JSON.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "models/vector_index_memory.h"
#include "sim/app/accounting/vector_index_result.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/commands/command.h"
#include "sim/app/format/json_output.h"

namespace infergrid {
namespace {

// vector-index's flags.
struct VectorIndexFlags {
  int64_t vectors = 1'000'000;
  int64_t dim = 768;
  std::string vector_dtype = "fp32";
  int64_t hnsw_m = 16;
  int64_t id_bytes = 4;
  std::string table_dims = "64,96,128,256,384,512,768,1024,1536,2048,3072";
  std::string table_m = "16,24,32";
};

const cli::FlagGroup<VectorIndexFlags>& VectorIndexFlagGroup() {
  static const cli::FlagGroup<VectorIndexFlags>* group =
      &(*new cli::FlagGroup<VectorIndexFlags>())
           .Add("vectors", &VectorIndexFlags::vectors, "number of vectors N")
           .Add("dim", &VectorIndexFlags::dim, "dimensions D per vector")
           .Add("vector_dtype", &VectorIndexFlags::vector_dtype, "vector element: fp32, fp16, int8 or binary (1 bit)")
           .Add("hnsw_m", &VectorIndexFlags::hnsw_m, "HNSW M: links per node on the upper layers (2M on layer 0)")
           .Add("id_bytes", &VectorIndexFlags::id_bytes, "bytes per neighbour id in the link lists: 4 or 8")
           .Add("table_dims", &VectorIndexFlags::table_dims, "dimensions D of the overhead table's rows")
           .Add("table_m", &VectorIndexFlags::table_m, "values of M of the overhead table's columns");
  return *group;
}

absl::StatusOr<std::vector<int64_t>> ParseList(absl::string_view flag, const std::string& text, int64_t minimum,
                                               int64_t maximum) {
  std::vector<int64_t> values;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    int64_t value = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &value) || value < minimum || value > maximum) {
      return cli::UsageError(absl::StrCat("--", flag, ": '", part, "' is not an integer in ", minimum, "..", maximum,
                                          " (expected a comma-separated list)"));
    }
    values.push_back(value);
  }
  return values;
}

absl::Status RunVectorIndex(const cli::ParsedCommandLine& command_line, std::ostream& out) {
  const cli::FlagValues& flags = command_line.flags;
  const VectorIndexFlags vector_index_flags = VectorIndexFlagGroup().Read(flags);
  const std::vector<std::string>& positional = command_line.positional;
  if (!positional.empty()) {
    return cli::UsageError(absl::StrCat("vector-index takes no arguments, got '", positional[0], "'"));
  }
  absl::StatusOr<bool> json = cli::WantJson(flags);
  if (!json.ok()) return json.status();
  VectorIndexQuery q;
  const int64_t vectors = vector_index_flags.vectors;
  q.dim = vector_index_flags.dim;
  q.layout.m = vector_index_flags.hnsw_m;
  q.layout.id_bytes = vector_index_flags.id_bytes;
  for (const absl::Status& s :
       {cli::CheckRange("vectors", vectors, 1, 1'000'000'000'000), cli::CheckRange("dim", q.dim, 1, 1'000'000),
        cli::CheckRange("hnsw_m", q.layout.m, 2, 1024)}) {
    if (!s.ok()) return s;
  }
  if (q.layout.id_bytes != 4 && q.layout.id_bytes != 8) {
    return cli::UsageError(absl::StrCat("--id-bytes: expected 4 or 8, got ", q.layout.id_bytes));
  }
  q.vectors = static_cast<double>(vectors);
  const std::string dtype = vector_index_flags.vector_dtype;
  absl::StatusOr<VectorElement> element = ParseVectorElement(dtype);
  if (!element.ok()) return cli::UsageError(absl::StrCat("--vector-dtype: ", element.status().message()));
  q.element = *element;
  absl::StatusOr<std::vector<int64_t>> dims = ParseList("table-dims", vector_index_flags.table_dims, 1, 1'000'000);
  if (!dims.ok()) return dims.status();
  absl::StatusOr<std::vector<int64_t>> ms = ParseList("table-m", vector_index_flags.table_m, 2, 1024);
  if (!ms.ok()) return ms.status();
  q.table_dims = *std::move(dims);
  q.table_m = *std::move(ms);
  const VectorIndexResult result = BuildVectorIndexResult(q);
  out << (*json ? format::ToJson(result) : RenderVectorIndexTable(result));
  return absl::OkStatus();
}

}  // namespace

const Command& VectorIndexCommand() {
  static const Command* command = new Command{
      "vector-index", "memory of a vector store: raw vectors plus an HNSW graph, and its overhead",
      cli::CommandFlags().Take(VectorIndexFlagGroup()).Take(cli::AccountingFlagGroup(), {"format"}), &RunVectorIndex};
  return *command;
}

}  // namespace infergrid
