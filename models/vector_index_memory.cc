#include "models/vector_index_memory.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace infergrid {

absl::StatusOr<VectorElement> ParseVectorElement(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "fp32" || lower == "float32" || lower == "float") return VectorElement::kFp32;
  if (lower == "fp16" || lower == "float16" || lower == "half") return VectorElement::kFp16;
  if (lower == "int8") return VectorElement::kInt8;
  if (lower == "binary" || lower == "bit") return VectorElement::kBinary;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown vector element type '", name, "' (expected fp32, fp16, int8 or binary)"));
}

absl::string_view VectorElementName(VectorElement element) {
  switch (element) {
    case VectorElement::kFp32: return "fp32";
    case VectorElement::kFp16: return "fp16";
    case VectorElement::kInt8: return "int8";
    case VectorElement::kBinary: return "binary";
  }
  return "?";
}

double VectorBytes(VectorElement element, int64_t dim) {
  const double d = static_cast<double>(dim);
  switch (element) {
    case VectorElement::kFp32: return 4 * d;
    case VectorElement::kFp16: return 2 * d;
    case VectorElement::kInt8: return d;
    case VectorElement::kBinary: return static_cast<double>((dim + 7) / 8);  // packed per vector
  }
  return 0;
}

double ExpectedUpperLayersPerNode(int64_t m) { return 1.0 / static_cast<double>(m - 1); }

HnswNodeBytes HnswBytesPerNode(const HnswLayout& layout) {
  HnswNodeBytes bytes;
  bytes.layer0 = static_cast<double>(layout.count_header_bytes + layout.m0() * layout.id_bytes);
  bytes.upper = static_cast<double>(layout.count_header_bytes + layout.m * layout.id_bytes) *
                ExpectedUpperLayersPerNode(layout.m);
  bytes.level = static_cast<double>(layout.level_bytes);
  return bytes;
}

VectorIndexMemory ComputeVectorIndexMemory(double vectors, int64_t dim, VectorElement element,
                                           const HnswLayout& layout) {
  VectorIndexMemory memory;
  memory.raw_bytes = vectors * VectorBytes(element, dim);
  memory.graph_bytes = vectors * HnswBytesPerNode(layout).Total();
  return memory;
}

double HnswOverhead(int64_t dim, VectorElement element, const HnswLayout& layout) {
  return HnswBytesPerNode(layout).Total() / VectorBytes(element, dim);
}

DimRange DimsWithOverheadBetween(double low, double high, VectorElement element, const HnswLayout& layout) {
  // Overhead is non-increasing in D. Start from the continuous solution (bits per element b:
  // overhead = graph / (D b / 8)) and step to the exact integer edges, which matter for the
  // per-vector byte rounding of binary vectors.
  const double graph = HnswBytesPerNode(layout).Total();
  const double bytes_per_dim = VectorBytes(element, 8) / 8.0;
  auto overhead = [&](int64_t d) { return HnswOverhead(d, element, layout); };
  DimRange range;
  if (!(low > 0 && low <= high)) return range;  // empty: no finite upper edge for low <= 0
  int64_t lo = std::max<int64_t>(1, static_cast<int64_t>(std::floor(graph / (high * bytes_per_dim))) - 8);
  while (overhead(lo) > high) ++lo;
  while (lo > 1 && overhead(lo - 1) <= high) --lo;
  int64_t hi = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(graph / (low * bytes_per_dim))) + 8);
  while (hi >= 1 && overhead(hi) < low) --hi;
  while (overhead(hi + 1) >= low) ++hi;
  range.min_dim = lo;
  range.max_dim = hi;
  return range;
}

}  // namespace infergrid
