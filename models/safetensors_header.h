// Exact parameter counts from a .safetensors checkpoint's JSON header alone: the first 8
// bytes give the header length, the header lists every tensor's dtype, shape and byte range.
// No weight byte is read. Every entry is checked against the file size and its own shape.
#ifndef INFERGRID_MODELS_SAFETENSORS_HEADER_H_
#define INFERGRID_MODELS_SAFETENSORS_HEADER_H_

#include <cstdint>
#include <map>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"

namespace infergrid {

struct SafetensorsSummary {
  struct DTypeTotals {
    int64_t tensors = 0;
    int64_t elements = 0;
    int64_t bytes = 0;
  };
  std::map<std::string, DTypeTotals> by_dtype;  // keyed by safetensors dtype ("BF16", "F8_E4M3")
  int64_t tensors = 0;
  int64_t elements = 0;  // parameters as stored (packed int4 counts its containers)
  int64_t bytes = 0;  // payload bytes of all tensors
};

// Parses a header given as the file's bytes; `path` names the source in errors.
absl::StatusOr<SafetensorsSummary> ParseSafetensorsHeader(absl::string_view file_prefix, int64_t file_size,
                                                          absl::string_view path);

// Reads only the header of the file at `path`. A directory sums every *.safetensors in it.
absl::StatusOr<SafetensorsSummary> ReadSafetensorsHeader(const std::string& path);

}  // namespace infergrid

#endif  // INFERGRID_MODELS_SAFETENSORS_HEADER_H_
