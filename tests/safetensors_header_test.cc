// models/safetensors_header.h: parameters per dtype from safetensors headers.

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/dtype.h"
#include "base/embedded_catalog.h"
#include "base/textproto.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/hf_config.h"
#include "models/kv_cache_size.h"
#include "models/model_catalog.h"
#include "models/parameter_count.h"
#include "models/pass_accounting.h"
#include "models/safetensors_header.h"
#include "tests/catalog_model.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

// A safetensors file: 8-byte little-endian header length, JSON header, then the data.
std::string Safetensors(const std::string& header, size_t data_bytes) {
  std::string file(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) file[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return file + header + std::string(data_bytes, '\0');
}

TEST(Safetensors, CountsParametersPerDtypeFromTheHeader) {
  const std::string header =
      R"({"__metadata__": {"format": "pt"},
          "embed.weight": {"dtype": "BF16", "shape": [10, 4], "data_offsets": [0, 80]},
          "layer.weight": {"dtype": "F8_E4M3", "shape": [4, 4], "data_offsets": [80, 96]},
          "layer.scale": {"dtype": "F32", "shape": [], "data_offsets": [96, 100]}})";
  const std::string path = testing::WriteFile(testing::TestDir() / "model.safetensors", Safetensors(header, 100));
  absl::StatusOr<SafetensorsSummary> s = ReadSafetensorsHeader(path);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->tensors, 3);
  EXPECT_EQ(s->elements, 40 + 16 + 1);
  EXPECT_EQ(s->bytes, 100);
  EXPECT_EQ(s->by_dtype.at("BF16").elements, 40);
  EXPECT_EQ(s->by_dtype.at("F8_E4M3").bytes, 16);
  EXPECT_EQ(s->by_dtype.at("F32").elements, 1);
}

TEST(Safetensors, FolderSumsItsShards) {
  const auto dir = testing::TestDir();
  testing::WriteFile(dir / "a.safetensors",
                     Safetensors(R"({"x": {"dtype": "F16", "shape": [3], "data_offsets": [0, 6]}})", 6));
  testing::WriteFile(dir / "b.safetensors",
                     Safetensors(R"({"y": {"dtype": "F16", "shape": [2, 2], "data_offsets": [0, 8]}})", 8));
  absl::StatusOr<SafetensorsSummary> s = ReadSafetensorsHeader(dir.string());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->elements, 7);
}

TEST(Safetensors, RejectsMalformedHeaders) {
  const auto dir = testing::TestDir();
  struct Case {
    const char* name;
    std::string contents;
    const char* error;
  };
  const Case cases[] = {
      {"short", std::string("\x05\x00", 2), "shorter than its 8-byte header length"},
      {"huge_length", std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8) + "{}", "exceeds the file"},
      {"not_json", Safetensors("{nope", 0), "invalid JSON"},
      {"array", Safetensors("[1]", 0), "not a JSON object"},
      {"no_dtype", Safetensors(R"({"t": {"shape": [1], "data_offsets": [0, 2]}})", 2), "missing \"dtype\""},
      {"bad_dtype", Safetensors(R"({"t": {"dtype": "Q3", "shape": [1], "data_offsets": [0, 2]}})", 2), "unknown dtype"},
      {"negative_dim", Safetensors(R"({"t": {"dtype": "F16", "shape": [-1], "data_offsets": [0, 2]}})", 2),
       "non-negative"},
      {"span_mismatch", Safetensors(R"({"t": {"dtype": "F16", "shape": [4], "data_offsets": [0, 2]}})", 2), "needs 8"},
      {"past_end", Safetensors(R"({"t": {"dtype": "F16", "shape": [4], "data_offsets": [0, 8]}})", 2), "fall outside"},
      {"overflow",
       Safetensors(R"({"t": {"dtype": "F16", "shape": [4294967296, 4294967296], "data_offsets": [0, 8]}})", 8),
       "overflows"},
  };
  for (const Case& c : cases) {
    const std::string path = testing::WriteFile(dir / (std::string(c.name) + ".safetensors"), c.contents);
    absl::StatusOr<SafetensorsSummary> s = ReadSafetensorsHeader(path);
    ASSERT_FALSE(s.ok()) << c.name;
    EXPECT_THAT(s.status().message(), HasSubstr(c.error)) << c.name;
    EXPECT_THAT(s.status().message(), HasSubstr(path)) << c.name;
  }
}

}  // namespace
}  // namespace infergrid
