#include "models/safetensors_header.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/json_text.h"
#include "base/textproto.h"

namespace infergrid {
namespace {

constexpr int64_t kMaxHeaderBytes = int64_t{100} << 20;  // the safetensors library's own cap

// Bytes per element of each safetensors dtype; 0 for an unknown name.
int DTypeSize(absl::string_view dtype) {
  static const std::pair<absl::string_view, int> kSizes[] = {
      {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"F8_E8M0", 1}, {"I64", 8},
      {"I32", 4}, {"I16", 2}, {"I8", 1},  {"U64", 8},  {"U32", 4},     {"U16", 2},     {"U8", 1},      {"BOOL", 1}};
  for (const auto& [name, size] : kSizes) {
    if (name == dtype) return size;
  }
  return 0;
}

absl::Status Bad(absl::string_view path, absl::string_view tensor, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": tensor \"", tensor, "\": ", what));
}

}  // namespace

absl::StatusOr<SafetensorsSummary> ParseSafetensorsHeader(absl::string_view file_prefix, int64_t file_size,
                                                          absl::string_view path) {
  if (file_size < 8 || file_prefix.size() < 8) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a safetensors file (shorter than its 8-byte header length)"));
  }
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | static_cast<uint8_t>(file_prefix[i]);
  if (header_len > static_cast<uint64_t>(kMaxHeaderBytes) || static_cast<int64_t>(header_len) > file_size - 8) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": header length ", header_len, " exceeds the file (",
                                                   file_size, " bytes) or the 100 MiB limit"));
  }
  if (file_prefix.size() < 8 + header_len) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": truncated header"));
  }
  const absl::string_view header = file_prefix.substr(8, header_len);
  absl::StatusOr<nlohmann::json> parsed = ParseJson(header, absl::StrCat(path, " (header)"));
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": header is not a JSON object"));
  }
  const int64_t data_size = file_size - 8 - static_cast<int64_t>(header_len);

  SafetensorsSummary summary;
  for (const auto& [name, entry] : parsed->items()) {
    if (name == "__metadata__") continue;
    if (!entry.is_object()) return Bad(path, name, "entry is not an object");
    auto dtype_it = entry.find("dtype");
    auto shape_it = entry.find("shape");
    auto offsets_it = entry.find("data_offsets");
    if (dtype_it == entry.end() || !dtype_it->is_string()) return Bad(path, name, "missing \"dtype\"");
    if (shape_it == entry.end() || !shape_it->is_array()) return Bad(path, name, "missing \"shape\"");
    if (offsets_it == entry.end() || !offsets_it->is_array() || offsets_it->size() != 2 ||
        !(*offsets_it)[0].is_number_unsigned() || !(*offsets_it)[1].is_number_unsigned()) {
      return Bad(path, name, "\"data_offsets\" must be [begin, end] with non-negative integers");
    }
    const std::string dtype = dtype_it->get<std::string>();
    const int size = DTypeSize(dtype);
    if (size == 0) return Bad(path, name, absl::StrCat("unknown dtype \"", dtype, "\""));
    int64_t elements = 1;
    for (const auto& dim : *shape_it) {
      if (!dim.is_number_unsigned()) return Bad(path, name, "shape entries must be non-negative integers");
      const uint64_t d = dim.get<uint64_t>();
      if (d != 0 && static_cast<uint64_t>(elements) > (uint64_t{1} << 62) / d) {
        return Bad(path, name, "shape overflows 2^62 elements");
      }
      elements *= static_cast<int64_t>(d);
    }
    const uint64_t begin = (*offsets_it)[0].get<uint64_t>();
    const uint64_t end = (*offsets_it)[1].get<uint64_t>();
    const int64_t bytes = elements * size;
    if (end < begin || end > static_cast<uint64_t>(data_size)) {
      return Bad(
          path, name,
          absl::StrCat("data_offsets [", begin, ", ", end, "] fall outside the ", data_size, "-byte data section"));
    }
    if (end - begin != static_cast<uint64_t>(bytes)) {
      return Bad(path, name,
                 absl::StrCat("data_offsets span ", end - begin, " bytes but shape x ", dtype, " needs ", bytes));
    }
    SafetensorsSummary::DTypeTotals& totals = summary.by_dtype[dtype];
    totals.tensors += 1;
    totals.elements += elements;
    totals.bytes += bytes;
    summary.tensors += 1;
    summary.elements += elements;
    summary.bytes += bytes;
  }
  return summary;
}

absl::StatusOr<SafetensorsSummary> ReadSafetensorsHeader(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(path, error)) {
      if (entry.path().extension() == ".safetensors") files.push_back(entry.path().string());
    }
    if (files.empty()) {
      return absl::NotFoundError(absl::StrCat(path, ": no *.safetensors file in this folder"));
    }
    std::sort(files.begin(), files.end());
    SafetensorsSummary total;
    for (const std::string& file : files) {
      absl::StatusOr<SafetensorsSummary> one = ReadSafetensorsHeader(file);
      if (!one.ok()) return one.status();
      for (const auto& [dtype, t] : one->by_dtype) {
        total.by_dtype[dtype].tensors += t.tensors;
        total.by_dtype[dtype].elements += t.elements;
        total.by_dtype[dtype].bytes += t.bytes;
      }
      total.tensors += one->tensors;
      total.elements += one->elements;
      total.bytes += one->bytes;
    }
    return total;
  }
  if (absl::Status s = CheckRegularFile(path); !s.ok()) return s;
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open file"));
  in.seekg(0, std::ios::end);
  const int64_t file_size = static_cast<int64_t>(in.tellg());
  in.seekg(0, std::ios::beg);
  std::string prefix(8, '\0');
  if (file_size < 8 || !in.read(prefix.data(), 8)) {
    return ParseSafetensorsHeader(absl::string_view(), file_size, path);
  }
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | static_cast<uint8_t>(prefix[i]);
  if (header_len <= static_cast<uint64_t>(kMaxHeaderBytes) && static_cast<int64_t>(header_len) <= file_size - 8) {
    prefix.resize(8 + header_len);
    if (!in.read(prefix.data() + 8, static_cast<std::streamsize>(header_len))) {
      return absl::DataLossError(absl::StrCat(path, ": read of the header failed"));
    }
  }
  return ParseSafetensorsHeader(prefix, file_size, path);
}

}  // namespace infergrid
