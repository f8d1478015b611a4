#include "sim/app/accounting/vector_index_result.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/app/format/text_table.h"
#include "sim/app/format/units.h"

namespace infergrid {

using format::Fixed;
using format::Grouped;
using format::Percent;

namespace {

bool InClaimedRange(double overhead) { return overhead >= kClaimedOverheadLow && overhead <= kClaimedOverheadHigh; }

}  // namespace

VectorIndexResult BuildVectorIndexResult(const VectorIndexQuery& q) {
  VectorIndexResult r;
  r.set_vectors(q.vectors);
  r.set_dim(static_cast<int>(q.dim));
  r.set_element(std::string(VectorElementName(q.element)));
  r.set_bytes_per_vector(VectorBytes(q.element, q.dim));
  r.set_m(static_cast<int>(q.layout.m));
  r.set_m0(static_cast<int>(q.layout.m0()));
  r.set_id_bytes(static_cast<int>(q.layout.id_bytes));
  const HnswNodeBytes node = HnswBytesPerNode(q.layout);
  HnswNodeSize& n = *r.mutable_per_node();
  n.set_layer0_bytes(node.layer0);
  n.set_expected_upper_layers(ExpectedUpperLayersPerNode(q.layout.m));
  n.set_upper_bytes(node.upper);
  n.set_level_bytes(node.level);
  n.set_total_bytes(node.Total());
  const VectorIndexMemory memory = ComputeVectorIndexMemory(q.vectors, q.dim, q.element, q.layout);
  r.set_raw_bytes(memory.raw_bytes);
  r.set_graph_bytes(memory.graph_bytes);
  r.set_total_bytes(memory.Total());
  r.set_overhead(memory.Overhead());
  r.set_claimed_overhead_low(kClaimedOverheadLow);
  r.set_claimed_overhead_high(kClaimedOverheadHigh);
  for (int64_t dim : q.table_dims) {
    for (int64_t m : q.table_m) {
      HnswLayout layout = q.layout;
      layout.m = m;
      OverheadCell& cell = *r.add_table();
      cell.set_dim(static_cast<int>(dim));
      cell.set_m(static_cast<int>(m));
      cell.set_overhead(HnswOverhead(dim, q.element, layout));
      cell.set_in_claimed_range(InClaimedRange(cell.overhead()));
    }
  }
  for (int64_t m : q.table_m) {
    HnswLayout layout = q.layout;
    layout.m = m;
    const DimRange range = DimsWithOverheadBetween(kClaimedOverheadLow, kClaimedOverheadHigh, q.element, layout);
    ClaimedRangeDims& dims = *r.add_claimed_range();
    dims.set_m(static_cast<int>(m));
    dims.set_min_dim(static_cast<int>(range.min_dim));
    dims.set_max_dim(static_cast<int>(range.max_dim));
  }

  r.add_notes(
      "counted: link slots at capacity (2M on layer 0, M on each upper layer, as hnswlib "
      "allocates them), a 4 B link count per list and a 4 B level per node; upper layers are an "
      "expectation over the random levels (P(level >= l) = M^-l, mL = 1/ln M)");
  r.add_notes(
      "left out: allocator rounding, hnswlib's 8 B label per element and its label->id map, the "
      "pointer to the upper-layer lists, per-element locks, visited lists, and the database's own "
      "ids, payloads and write-ahead log");
  std::string where;
  for (const ClaimedRangeDims& dims : r.claimed_range()) {
    if (!where.empty()) where += "; ";
    absl::StrAppend(
        &where, "M = ", dims.m(), ": ",
        dims.min_dim() > dims.max_dim() ? "no D" : absl::StrCat("D = ", dims.min_dim(), "..", dims.max_dim()));
  }
  r.add_notes(absl::StrCat("the graph adds ", Percent(r.overhead()), " to the raw ", r.element(),
                           " vectors here; the quoted 50-65% holds for ", r.element(), " vectors with ", r.id_bytes(),
                           " B ids only at ", where,
                           " (the overhead is graph bytes per node / vector bytes, so it falls as 1/D)"));
  return r;
}

std::string RenderVectorIndexTable(const VectorIndexResult& r) {
  std::string out = absl::StrCat("InferGrid vector-index: ", Grouped(r.vectors()), " vectors x ", r.dim(), " dims, ",
                                 r.element(), ", HNSW M = ", r.m(), " (M0 = ", r.m0(), "), ", r.id_bytes(), " B ids\n");
  const HnswNodeSize& n = r.per_node();
  absl::StrAppend(&out, "  vector         ", Fixed(r.bytes_per_vector(), 0), " B\n");
  absl::StrAppend(&out, "  graph per node ", Fixed(n.total_bytes(), 2), " B = layer 0 ", Fixed(n.layer0_bytes(), 0),
                  " B (4 + ", r.m0(), " x ", r.id_bytes(), ") + upper ", Fixed(n.upper_bytes(), 2), " B (",
                  Fixed(n.expected_upper_layers(), 4), " lists x (4 + ", r.m(), " x ", r.id_bytes(), ")) + level ",
                  Fixed(n.level_bytes(), 0), " B\n\n");

  format::TextTable memory({"memory", "bytes", "GB (1e9)", "GiB (2^30)"});
  auto row = [&](std::string label, double bytes) {
    memory.AddRow({std::move(label), Grouped(bytes), Fixed(bytes / kGB, 3), Fixed(bytes / kGiB, 3)});
  };
  row("raw vectors", r.raw_bytes());
  row("HNSW graph (expected)", r.graph_bytes());
  row("total", r.total_bytes());
  absl::StrAppend(&out, memory.Render());
  absl::StrAppend(&out, "graph overhead over raw vectors: ", Percent(r.overhead()), "\n\n");

  std::vector<int> ms;
  for (const ClaimedRangeDims& dims : r.claimed_range()) ms.push_back(dims.m());
  std::vector<std::string> header = {absl::StrCat("overhead, ", r.element(), " (* in 50-65%)")};
  for (int m : ms) header.push_back(absl::StrCat("M = ", m));
  format::TextTable table(header);
  for (size_t i = 0; i < static_cast<size_t>(r.table_size()); i += ms.size()) {
    std::vector<std::string> cells = {absl::StrCat("D = ", r.table(static_cast<int>(i)).dim())};
    for (size_t j = 0; j < ms.size(); ++j) {
      const OverheadCell& cell = r.table(static_cast<int>(i + j));
      cells.push_back(absl::StrCat(cell.in_claimed_range() ? "*" : "", Percent(cell.overhead())));
    }
    table.AddRow(std::move(cells));
  }
  absl::StrAppend(&out, table.Render(), "\n");
  for (const std::string& note : r.notes()) absl::StrAppend(&out, "note: ", note, "\n");
  return out;
}

}  // namespace infergrid
