// sim/app/validation/request_latency_csv.h: measured per-request latencies read from CSV, and the
// errors naming file and line.

#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/app/validation/request_latency_csv.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

TEST(RequestLatencyCsv, ParsesColumnsInAnyOrderWithExtras) {
  const absl::StatusOr<RequestLatencyFile> file = ParseRequestLatencyCsv(
      "\xEF\xBB\xBF# comment\r\nprompt_tokens,tpot_s,id,ttft_s\r\n"
      "10,0.05,a,0.2\r\n\r\n"
      "11,,\"b,1\",0.3\r\n"
      "12, 0.07 ,\"say \"\"hi\"\"\",1e-1\n",
      "x.csv");
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ(file->requests.size(), 3u);
  EXPECT_EQ(file->requests[0].id, "a");
  EXPECT_DOUBLE_EQ(file->requests[0].ttft_s, 0.2);
  EXPECT_DOUBLE_EQ(*file->requests[0].tpot_s, 0.05);
  EXPECT_EQ(file->requests[0].line, 3);
  EXPECT_EQ(file->requests[1].id, "b,1");
  EXPECT_FALSE(file->requests[1].tpot_s.has_value()) << "empty tpot_s: one output token";
  EXPECT_EQ(file->requests[1].line, 5);
  EXPECT_EQ(file->requests[2].id, "say \"hi\"");
  EXPECT_DOUBLE_EQ(file->requests[2].ttft_s, 0.1);
  EXPECT_DOUBLE_EQ(*file->requests[2].tpot_s, 0.07);
}

TEST(RequestLatencyCsv, ErrorsNameFileAndLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "x.csv:1: no header"},
      {"id,ttft_s\nr1,0.1\n", "x.csv:1: the header lacks column(s) tpot_s"},
      {"id,ttft_s,tpot_s,id\n", "x.csv:1: column 'id' appears twice"},
      {"id,ttft_s,tpot_s\n", "x.csv:1: a header and no requests"},
      {"id,ttft_s,tpot_s\nr1,0.1,0.02\nr2,fast,0.02\n", "x.csv:3: ttft_s: 'fast' is not a number"},
      {"id,ttft_s,tpot_s\nr1,0.1,-0.02\n", "x.csv:2: tpot_s: -0.02 is negative"},
      {"id,ttft_s,tpot_s\nr1,nan,0.02\n", "x.csv:2: ttft_s: 'nan' is not a number"},
      {"id,ttft_s,tpot_s\nr1,0.1\n", "x.csv:2: 2 fields, the header on line 1 has 3"},
      {"id,ttft_s,tpot_s\nr1,0.1,0.02\n\nr1,0.2,0.03\n", "x.csv:4: duplicate id 'r1' (first on line 2)"},
      {"id,ttft_s,tpot_s\n\"r1,0.1,0.02\n", "x.csv:2:1: unterminated quoted field"},
      {"id,ttft_s,tpot_s\n,0.1,0.02\n", "x.csv:2: empty id"},
      {"id,ttft_s,tpot_s\n\"r1\"x,0.1,0.02\n", "x.csv:2:5: expected ',' after a closing quote"},
      {"id,ttft_s,tpot_s\nr\"1,0.1,0.02\n", "x.csv:2:2: a quote inside an unquoted field"},
  };
  for (const auto& [text, message] : cases) {
    const absl::StatusOr<RequestLatencyFile> file = ParseRequestLatencyCsv(text, "x.csv");
    ASSERT_FALSE(file.ok()) << text;
    EXPECT_THAT(file.status().message(), HasSubstr(message)) << text;
  }
  EXPECT_THAT(ReadRequestLatencyCsv("/nonexistent/x.csv").status().message(), HasSubstr("/nonexistent/x.csv"));
}

}  // namespace
}  // namespace infergrid
