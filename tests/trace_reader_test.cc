// traces/trace_reader.h: the trace readers: every format, detection, and every class of hostile
// input the workload issue lists, on fixtures the tests write themselves; the real traces in
// ../shared/data/traces when present (skipped otherwise).
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_files.h"
#include "tests/trace_reader_helpers.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;
using testing::TestDir;
using testing::WriteFile;

std::string SharedTrace(const std::string& name) {
  return std::string(INFERGRID_SOURCE_DIR) + "/../shared/data/traces/" + name;
}

// Reads a fixture and expects it to fail with all of `parts` in the message.
void ExpectError(const std::string& path, const std::vector<std::string>& parts, TraceOptions options = {}) {
  absl::StatusOr<ReadResult> r = ReadAllRequests(path, options);
  ASSERT_FALSE(r.ok()) << path << " read " << r->requests.size() << " requests";
  for (const std::string& part : parts) {
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(part));
  }
}

// Reads with --on-bad-row=skip and returns the result (which must succeed).
ReadResult ReadSkipping(const std::string& path) {
  TraceOptions options;
  options.skip_bad_rows = true;
  absl::StatusOr<ReadResult> r = ReadAllRequests(path, options);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : ReadResult{};
}

constexpr char kAzureHeader[] = "TIMESTAMP,ContextTokens,GeneratedTokens\n";

TEST(Azure, Reads2023And2024TimestampsMixedInOneFile) {
  const std::string path =
      WriteFile(TestDir() / "a.csv", absl::StrCat(kAzureHeader,
                                                  "2024-05-10 00:00:00.000000+00:00,100,10\n"
                                                  "2024-05-10 00:00:01.5+00:00,200,20\n"
                                                  "2024-05-10 00:00:02.2500000,300,30\n"  // 2023 style, no zone: UTC
                                                  "2024-05-10 01:00:03.0000001+01:00,400,40\n"  // 00:00:03 UTC + 100 ns
                                                  "2024-05-10T00:01:00Z,500,50\n"));
  absl::StatusOr<ReadResult> r = ReadAllRequests(path);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->requests.size(), 5u);
  EXPECT_EQ(r->requests[0].arrival_s, 0.0);
  EXPECT_DOUBLE_EQ(r->requests[1].arrival_s, 1.5);
  EXPECT_DOUBLE_EQ(r->requests[2].arrival_s, 2.25);
  EXPECT_DOUBLE_EQ(r->requests[3].arrival_s, 3.0000001);
  EXPECT_DOUBLE_EQ(r->requests[4].arrival_s, 60.0);
  EXPECT_EQ(r->requests[3].input_tokens, 400);
  EXPECT_EQ(r->requests[3].output_tokens, 40);
  EXPECT_EQ(r->requests[4].id, 4);
}

TEST(Azure, SevenDigitFractionsKeepTheirPrecision) {
  const std::string path = WriteFile(TestDir() / "a.csv", absl::StrCat(kAzureHeader,
                                                                       "2023-11-16 18:15:46.6805900,374,44\n"
                                                                       "2023-11-16 18:15:50.9951690,396,109\n"));
  absl::StatusOr<ReadResult> r = ReadAllRequests(path);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(r->requests[1].arrival_s, 4.314579, 1e-12);
}

TEST(Azure, BadTimestampsNameTheColumn) {
  const std::string dir = TestDir();
  ExpectError(WriteFile(dir + "/m.csv", absl::StrCat(kAzureHeader, "2023-13-16 18:15:46.68,1,1\n")),
              {"m.csv:2:6:", "month outside 1..12"});
  ExpectError(WriteFile(dir + "/d.csv", absl::StrCat(kAzureHeader, "2023-02-30 18:15:46,1,1\n")),
              {"d.csv:2:9:", "no such day"});
  ExpectError(WriteFile(dir + "/g.csv", absl::StrCat(kAzureHeader, "yesterday,1,1\n")),
              {"g.csv:2:1:", "bad year", "expected a time like"});
  ExpectError(WriteFile(dir + "/z.csv", absl::StrCat(kAzureHeader, "2023-11-16 18:15:46.5 UTC,1,1\n")),
              {"z.csv:2:22:", "unexpected characters"});
  ExpectError(WriteFile(dir + "/f.csv", absl::StrCat(kAzureHeader, "2023-11-16 18:15:46.1234567891,1,1\n")),
              {"more than 9 fractional digits"});
}

TEST(HostileInput, EmptyFileAndBomOnly) {
  const std::string dir = TestDir();
  ExpectError(WriteFile(dir + "/empty.csv", ""), {"empty.csv: empty file", "TIMESTAMP,ContextTokens"});
  ExpectError(WriteFile(dir + "/bom.csv", "\xEF\xBB\xBF"), {"empty file"});
  ExpectError(WriteFile(dir + "/blank.csv", "\n  \n\n"), {"empty file"});
}

TEST(HostileInput, HeaderOnly) {
  ExpectError(WriteFile(TestDir() / "h.csv", kAzureHeader), {"h.csv: no requests in this azure trace", "no data rows"});
}

TEST(HostileInput, WrongHeaderAndNoHeader) {
  const std::string dir = TestDir();
  ExpectError(WriteFile(dir + "/w.csv", "time,prompt,completion\n1,2,3\n"),
              {"w.csv:1:1: unrecognized trace header 'time,prompt,completion'",
               "azure (TIMESTAMP,ContextTokens,GeneratedTokens)", "mooncake"});
  ExpectError(WriteFile(dir + "/n.csv", "0.0,374,44\n4.3,396,109\n"),
              {"n.csv:1:1: the first line '0.0,374,44' is data, not a header"});
  // Forcing a format whose columns the header lacks.
  TraceOptions vidur;
  vidur.format = "vidur";
  ExpectError(WriteFile(dir + "/f.csv", absl::StrCat(kAzureHeader, "2023-11-16 18:15:46,1,1\n")),
              {"f.csv:1: the header has no 'arrived_at' column", "vidur"}, vidur);
  ExpectError(WriteFile(dir + "/dup.csv", "arrived_at,num_prefill_tokens,num_decode_tokens,arrived_at\n"),
              {"column 'arrived_at' appears twice"});
}

TEST(HostileInput, MissingAndExtraColumns) {
  const std::string dir = TestDir();
  const std::string missing =
      WriteFile(dir + "/m.csv", absl::StrCat(kAzureHeader, "2023-11-16 18:15:46,1,1\n2023-11-16 18:15:47,5\n"));
  ExpectError(missing, {"m.csv:3: expected 3 fields (TIMESTAMP,ContextTokens,GeneratedTokens), got 2"});
  const std::string extra = WriteFile(dir + "/e.csv", absl::StrCat(kAzureHeader, "2023-11-16 18:15:46,1,1,9\n"));
  ExpectError(extra, {"e.csv:2:25: expected 3 fields", "got 4"});
  const ReadResult skipped = ReadSkipping(missing);
  EXPECT_EQ(skipped.requests.size(), 1u);
  EXPECT_EQ(skipped.stats.skipped_by_reason.at("columns"), 1);
}

TEST(HostileInput, NonNumericNegativeNonFiniteAndOverflow) {
  const std::string dir = TestDir();
  const std::string header = "arrived_at,num_prefill_tokens,num_decode_tokens\n";
  struct Case {
    std::string row;
    std::string where;
    std::string message;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"0,abc,5", ":2:3:", "num_prefill_tokens: expected an integer, got 'abc'", "not_a_number"},
      {"0,12.5,5", ":2:3:", "expected an integer, got '12.5'", "not_an_integer"},
      {"0,,5", ":2:3:", "got an empty field", "empty_field"},
      {"0,10,-3", ":2:6:", "num_decode_tokens: expected at least 0, got -3", "negative"},
      {"-1,10,3", ":2:1:", "arrived_at: expected a non-negative number", "negative"},
      {"nan,10,3", ":2:1:", "expected a finite number, got 'nan'", "not_finite"},
      {"inf,10,3", ":2:1:", "expected a finite number, got 'inf'", "not_finite"},
      {"0,NaN,3", ":2:3:", "expected a finite integer, got 'NaN'", "not_finite"},
      {"0,99999999999999999999,3", ":2:3:", "overflows a 64-bit integer", "overflow"},
      {"0,9223372036854775807,3", ":2:3:", "expected at most 2147483647", "out_of_range"},
      {"1e400,10,3", ":2:1:", "out of the range of a double", "overflow"},
      {"0,0,3", ":2:3:", "num_prefill_tokens: expected at least 1 token, got 0", "zero_tokens"},
      {"0,\xff\xfe,3", ":2:3:", "expected an integer, got '\\xff\\xfe'", "not_a_number"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const std::string path = WriteFile(dir + "/c" + std::to_string(i) + ".csv", header + c.row + "\n0,7,7\n");
    SCOPED_TRACE(c.row);
    ExpectError(path, {"c" + std::to_string(i) + ".csv" + c.where, c.message});
    const ReadResult skipped = ReadSkipping(path);
    ASSERT_EQ(skipped.requests.size(), 1u);
    EXPECT_EQ(skipped.requests[0].input_tokens, 7);
    EXPECT_EQ(skipped.stats.skipped, 1);
    EXPECT_EQ(skipped.stats.skipped_by_reason.count(c.reason), 1u) << c.reason;
  }
}

TEST(HostileInput, OutOfOrderTimestampsAreRejectedOrSkippedAndCounted) {
  const std::string path = WriteFile(TestDir() / "o.csv",
                                     "arrived_at,num_prefill_tokens,num_decode_tokens\n"
                                     "1.0,10,1\n2.0,20,2\n1.5,30,3\n3.0,40,4\n");
  ExpectError(path, {"o.csv:4:1: timestamp earlier than the previous row's (1.5 < 2 s)", "trace convert --sort"});
  const ReadResult r = ReadSkipping(path);
  ASSERT_EQ(r.requests.size(), 3u);
  EXPECT_EQ(r.requests[2].input_tokens, 40);
  EXPECT_DOUBLE_EQ(r.requests[2].arrival_s, 2.0);
  EXPECT_EQ(r.stats.skipped_by_reason.at("out_of_order"), 1);
  ASSERT_EQ(r.stats.warnings.size(), 1u);
  EXPECT_THAT(r.stats.warnings[0], HasSubstr("skipped rows (out_of_order), the first at"));
  EXPECT_THAT(r.stats.warnings[0], HasSubstr("o.csv:4:1"));
}

TEST(HostileInput, DuplicateTimestampsKeepFileOrder) {
  const std::string path = WriteFile(TestDir() / "d.csv",
                                     "arrived_at,num_prefill_tokens,num_decode_tokens\n"
                                     "5,10,1\n5,20,2\n5,30,3\n6,40,4\n");
  absl::StatusOr<ReadResult> r = ReadAllRequests(path);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->requests.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(r->requests[static_cast<size_t>(i)].arrival_s, 0.0);
    EXPECT_EQ(r->requests[static_cast<size_t>(i)].input_tokens, 10 * (i + 1));
  }
  EXPECT_EQ(r->requests[3].arrival_s, 1.0);
}

TEST(HostileInput, CrlfBomAndBlankLines) {
  const std::string path = WriteFile(TestDir() / "w.csv",
                                     "\xEF\xBB\xBFTIMESTAMP,ContextTokens,GeneratedTokens\r\n"
                                     "2023-11-16 18:15:46.6805900,374,44\r\n\r\n"
                                     "2023-11-16 18:15:50.9951690,396,109\r\n");
  absl::StatusOr<ReadResult> r = ReadAllRequests(path);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->requests.size(), 2u);
  EXPECT_EQ(r->requests[1].output_tokens, 109);
  EXPECT_EQ(r->stats.skipped_by_reason.at("blank_line"), 1);
}

TEST(HostileInput, Utf16IsRefused) {
  ExpectError(WriteFile(TestDir() / "u.csv", std::string("\xFF\xFET\0I\0", 6)), {"u.csv:1:1: the file is UTF-16"});
}

TEST(HostileInput, TruncatedLastLine) {
  const std::string dir = TestDir();
  // Cut inside a row: the error says the file may be truncated.
  ExpectError(WriteFile(dir + "/t.csv", absl::StrCat(kAzureHeader, "2023-11-16 18:15:46,1,1\n2023-11-16 18:1")),
              {"t.csv:3: expected 3 fields", "the last line has no newline: is the file truncated?"});
  ExpectError(WriteFile(dir + "/u.csv", absl::StrCat(kAzureHeader, "2023-11-16 18:15:46,1,1\n2023-11-16 18:1,5,")),
              {"u.csv:3:15:", "bad minute", "the last line has no newline: is the file truncated?"});
  // A complete last row without a newline is a row.
  absl::StatusOr<ReadResult> r =
      ReadAllRequests(WriteFile(dir + "/ok.csv", absl::StrCat(kAzureHeader, "2023-11-16 18:15:46,1,1")));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->requests.size(), 1u);
}

TEST(HostileInput, InvalidUtf8InTextFields) {
  const std::string dir = TestDir();
  const std::string header = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n";
  ExpectError(WriteFile(dir + "/b.csv", header + "0,Chat\xC3\x28GPT,10,5,15,Conversation log\n"),
              {"b.csv:2:7: invalid UTF-8 in a text field"});
  ExpectError(WriteFile(dir + "/j.jsonl",
                        "{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 1, \"s\xED\xA0\x80\": 1}\n"),
              {"j.jsonl:1:57: invalid UTF-8 in a string"});
  ExpectError(WriteFile(dir + "/h.csv", "TIMESTAMP,Context\xFFTokens,GeneratedTokens\n"),
              {"unrecognized trace header 'TIMESTAMP,Context\\xffTokens,GeneratedTokens'"});
}

// A line of 1 GiB that is never in memory: the file is sparse (NUL bytes, no newline).
std::string WriteHugeLineFile(const std::filesystem::path& path, int64_t line_bytes, const std::string& header,
                              const std::string& after) {
  {
    std::ofstream out(path, std::ios::binary);
    out << header;
  }
  std::filesystem::resize_file(path, header.size() + static_cast<uint64_t>(line_bytes));
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << "\n" << after;
  return path.string();
}

int64_t MaxRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return int64_t{usage.ru_maxrss} * 1024;
}

TEST(HostileInput, OneGigabyteLineIsCappedNotAllocated) {
  const int64_t kGiB = int64_t{1} << 30;
  const std::string header = "arrived_at,num_prefill_tokens,num_decode_tokens\n";
  const int64_t rss_before = MaxRssBytes();
  const std::string huge = WriteHugeLineFile(TestDir() / "huge.csv", kGiB, header + "0,5,5\n", "1,7,7\n");
  ExpectError(huge, {"huge.csv:3: line longer than 1048576 bytes (the line-length cap)"});
  // Skipping streams past the line (64 MiB here, to keep the test fast): the next row is read
  // and memory stays far below the line's size.
  const std::string long_line = WriteHugeLineFile(TestDir() / "long.csv", 64 << 20, header + "0,5,5\n", "1,7,7\n");
  const ReadResult r = ReadSkipping(long_line);
  ASSERT_EQ(r.requests.size(), 2u);
  EXPECT_EQ(r.requests[1].input_tokens, 7);
  EXPECT_EQ(r.stats.skipped_by_reason.at("line_too_long"), 1);
  EXPECT_LT(MaxRssBytes() - rss_before, 16 << 20);
  std::filesystem::remove(huge);
  std::filesystem::remove(long_line);
}

TEST(HostileInput, LineCapIsConfigurable) {
  const std::string path = WriteFile(TestDir() / "l.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n" +
                                                              std::string(3 << 20, '9') + ",1,1\n0,2,2\n");
  TraceOptions options;
  options.max_line_bytes = 64 << 10;
  ExpectError(path, {"l.csv:2: line longer than 65536 bytes"}, options);
  options.skip_bad_rows = true;
  absl::StatusOr<ReadResult> r = ReadAllRequests(path, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->requests.size(), 1u);
  // The same line under the default cap (1 MiB) is still too long; a 4 MiB cap reads it as a
  // number that overflows.
  options.skip_bad_rows = false;
  options.max_line_bytes = 4 << 20;
  ExpectError(path, {"l.csv:2:1:", "out of the range of a double"}, options);
}

constexpr char kMooncakeRow[] =
    "{\"timestamp\": 27482, \"input_length\": 6955, \"output_length\": 52, \"hash_ids\": [46, 47, 1025]}";

TEST(Mooncake, ReadsRowsAndKeepsHashIds) {
  const std::string path = WriteFile(
      TestDir() / "m.jsonl",
      absl::StrCat("{\"timestamp\": 27000, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [46, 48]}\n",
                   kMooncakeRow, "\n",
                   "{\"hash_ids\":[],\"output_length\":1,\"input_length\":1,\"timestamp\":27482.5,\"extra\":{\"a\":[1,{"
                   "\"b\":null}]}}\n"));
  absl::StatusOr<ReadResult> r = ReadAllRequests(path);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->requests.size(), 3u);
  EXPECT_DOUBLE_EQ(r->requests[1].arrival_s, 0.482);
  EXPECT_EQ(r->requests[1].input_tokens, 6955);
  EXPECT_EQ(r->requests[1].output_tokens, 52);
  EXPECT_EQ(r->requests[1].prefix_block_hashes, (std::vector<uint64_t>{46, 47, 1025}));
  EXPECT_TRUE(r->requests[2].prefix_block_hashes.empty());
  EXPECT_DOUBLE_EQ(r->requests[2].arrival_s, 0.4825);
  ASSERT_EQ(r->stats.warnings.size(), 1u);
  EXPECT_EQ(r->stats.warnings[0], "ignored unknown keys: extra");
}

TEST(Mooncake, HostileJson) {
  const std::string dir = TestDir();
  struct Case {
    std::string line;
    std::string message;
    std::string reason;
  };
  const std::string deep = "{\"timestamp\": 0, \"x\": " + std::string(100000, '[') + "}";
  const std::vector<Case> cases = {
      {"[1, 2, 3]", ":2:1: row: expected a JSON object, got an array", "not_an_object"},
      {"\"just a string\"", ":2:1: row: expected a JSON object, got a string", "not_an_object"},
      {"42", ":2:1: row: expected a JSON object, got a number", "not_an_object"},
      {"null", ":2:1: row: expected a JSON object, got null", "not_an_object"},
      {deep, ":2:87: JSON nested deeper than 64 levels", "too_deep"},
      {"{\"timestamp\": 1, \"input_length\": 5, \"output_length\": 1, \"hash_ids\": [[1]]}",
       ":2:70: hash_ids element: expected a number, got an array", "wrong_type"},
      {"{\"timestamp\": \"1\", \"input_length\": 5, \"output_length\": 1}",
       ":2:15: timestamp: expected a number, got a string", "wrong_type"},
      {"{\"timestamp\": NaN, \"input_length\": 5, \"output_length\": 1}",
       ":2:15: timestamp: expected a finite number, got 'NaN'", "not_finite"},
      {"{\"timestamp\": 1, \"input_length\": 5}", ":2: the object has no \"output_length\" key", "missing_key"},
      {"{\"timestamp\": 1, \"timestamp\": 2, \"input_length\": 5, \"output_length\": 1}",
       ":2:18: key \"timestamp\" appears twice", "duplicate_key"},
      {"{\"timestamp\": 1, \"input_length\": 5, \"output_length\": 1} x", ":2:57: text after the end of the object",
       "json_syntax"},
      {"{\"timestamp\": 1, \"input_length\": 5, \"output_length\": 1", ":2:55: expected ',' or '}', got end of line",
       "json_syntax"},
      {"{\"timestamp\": 1, \"input_length\": -5, \"output_length\": 1}",
       ":2:34: input_length: expected at least 0, got -5", "negative"},
      {"{\"timestamp\": 1, \"input_length\": 5, \"output_length\": 1, \"hash_ids\": [18446744073709551616]}",
       ":2:70: hash_ids element: '18446744073709551616' overflows a 64-bit unsigned integer", "overflow"},
      {"{\"timestamp\": 1, \"input_length\": 1e3, \"output_length\": 1}",
       ":2:34: input_length: expected an integer, got '1e3'", "not_an_integer"},
      {"{\"timestamp\": 01, \"input_length\": 5, \"output_length\": 1}", ":2:15: a number with a leading zero",
       "json_syntax"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    SCOPED_TRACE(c.line.substr(0, 80));
    const std::string name = "c" + std::to_string(i) + ".jsonl";
    const std::string path =
        WriteFile(dir + "/" + name, absl::StrCat(kMooncakeRow, "\n", c.line, "\n", kMooncakeRow, "\n"));
    TraceOptions forced;
    forced.format = "mooncake";
    ExpectError(path, {name + c.message}, forced);
    const ReadResult skipped = ReadSkipping(path);
    EXPECT_EQ(skipped.requests.size(), 2u);
    EXPECT_EQ(skipped.stats.skipped_by_reason.count(c.reason), 1u) << c.reason;
  }
}

constexpr char kBurstHeader[] = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n";

TEST(BurstGpt, FailedRowsAreDroppedAndCountedAndTheModelFilterApplies) {
  const std::string path = WriteFile(
      TestDir() / "b.csv", absl::StrCat(kBurstHeader,
                                        "5,ChatGPT,472,18,490,Conversation log\n"
                                        "45,ChatGPT,1087,0,1087,Conversation log\n"  // failed
                                        "118,GPT-4,417,276,693,API log\n"
                                        "120,\"GPT-4\",100,50,151,\"API log\"\n"));  // quoted; total off by one
  absl::StatusOr<ReadResult> all = ReadAllRequests(path);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->requests.size(), 3u);
  EXPECT_EQ(all->requests[0].model, "ChatGPT");
  EXPECT_EQ(all->requests[0].log_type, "Conversation log");
  EXPECT_DOUBLE_EQ(all->requests[1].arrival_s, 113.0);
  EXPECT_EQ(all->requests[2].model, "GPT-4");
  EXPECT_EQ(all->stats.skipped_by_reason.at("failed_request"), 1);
  ASSERT_EQ(all->stats.warnings.size(), 1u);
  EXPECT_THAT(all->stats.warnings[0], HasSubstr("1 rows have Total tokens different from"));

  TraceOptions gpt4;
  gpt4.model_filter = "GPT-4";
  absl::StatusOr<ReadResult> filtered = ReadAllRequests(path, gpt4);
  ASSERT_TRUE(filtered.ok()) << filtered.status();
  ASSERT_EQ(filtered->requests.size(), 2u);
  EXPECT_EQ(filtered->requests[0].arrival_s, 0.0);  // relative to the first kept row
  EXPECT_EQ(filtered->stats.skipped_by_reason.at("model_filter"), 2);

  TraceOptions none;
  none.model_filter = "Llama";
  ExpectError(path,
              {"no requests in this burstgpt trace", "model_filter=4",
               "--model-filter=Llama matched no row (models seen: ChatGPT, GPT-4)"},
              none);
  ExpectError(WriteFile(TestDir() / "a.csv", absl::StrCat(kAzureHeader, "2023-11-16 18:15:46,1,1\n")),
              {"--model-filter needs a Model column"}, none);
}

TEST(BurstGpt, SeveralEscapedQuotedFieldsInOneRow) {
  // Found by the fuzzer: unescaped fields must stay valid while later ones are unescaped.
  const std::string path = WriteFile(
      TestDir() / "q.csv", absl::StrCat(kBurstHeader, "5,\"Chat\"\"GPT\"\"\",472,18,490,\"API \"\"log\"\"\"\n"));
  absl::StatusOr<ReadResult> r = ReadAllRequests(path);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->requests.size(), 1u);
  EXPECT_EQ(r->requests[0].model, "Chat\"GPT\"");
  EXPECT_EQ(r->requests[0].log_type, "API \"log\"");
}

TEST(Detection, EachFormatFromItsHeader) {
  const std::string dir = TestDir();
  struct Case {
    std::string text;
    double last_arrival;
    int32_t last_input;
  };
  const std::vector<Case> cases = {
      {absl::StrCat(kAzureHeader, "2023-11-16 18:15:46,1,1\n2023-11-16 18:15:48,2,2\n"), 2.0, 2},
      {absl::StrCat(kBurstHeader, "5,ChatGPT,1,1,2,API log\n7.5,ChatGPT,3,1,4,API log\n"), 2.5, 3},
      {absl::StrCat(kMooncakeRow, "\n"), 0.0, 6955},
      {"arrived_at,num_prefill_tokens,num_decode_tokens\n0.5,4,4\n1.0,9,9\n", 0.5, 9},
      {"num_prefill_tokens,num_decode_tokens,num_total_tokens,pd_ratio\n3772,54,3826,69.8\n", 0.0, 3772},
      {"arrival_s,input_tokens,output_tokens\n0,1,1\n3.25,8,1\n", 3.25, 8},
      {"ContextTokens , GeneratedTokens,timestamp\n1,1,2023-11-16 18:15:46\n", 0.0, 1},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].text);
    absl::StatusOr<ReadResult> r = ReadAllRequests(WriteFile(dir + "/f" + std::to_string(i), cases[i].text));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->requests.back().arrival_s, cases[i].last_arrival);
    EXPECT_EQ(r->requests.back().input_tokens, cases[i].last_input);
  }
}

TEST(InfergridFormat, BadEscapesAndHashes) {
  const std::string dir = TestDir();
  const std::string header = absl::StrCat(kInfergridTraceHeader, "\n");
  ExpectError(WriteFile(dir + "/e.csv", header + "0,1,1,0,ab%zz,,,\n"),
              {"e.csv:2:11: '%' in a text field must be followed by two hex digits"});
  ExpectError(WriteFile(dir + "/h.csv", header + "0,1,1,0,,,,1 x 3\n"),
              {"h.csv:2:14: block hash: expected an integer, got 'x'"});
  ExpectError(WriteFile(dir + "/p.csv", header + "0,1,1,99999999999,,,,\n"),
              {"p.csv:2:7: priority: expected at most 2147483647"});
}

TEST(RealTraces, AzureAndSplitwiseConvAgree) {
  if (!std::filesystem::exists(SharedTrace("splitwise_conv.csv"))) {
    GTEST_SKIP() << "../shared/data is not here";
  }
  absl::StatusOr<ReadResult> azure = ReadAllRequests(SharedTrace("AzureLLMInferenceTrace_conv.csv"));
  absl::StatusOr<ReadResult> vidur = ReadAllRequests(SharedTrace("splitwise_conv.csv"));
  ASSERT_TRUE(azure.ok() && vidur.ok());
  ASSERT_EQ(azure->requests.size(), vidur->requests.size());
  for (size_t i = 0; i < azure->requests.size(); ++i) {
    ASSERT_NEAR(azure->requests[i].arrival_s, vidur->requests[i].arrival_s, 1e-6) << i;
    ASSERT_EQ(azure->requests[i].input_tokens, vidur->requests[i].input_tokens) << i;
    ASSERT_EQ(azure->requests[i].output_tokens, vidur->requests[i].output_tokens) << i;
  }
}

TEST(RealTraces, AllReadWithExpectedCounts) {
  if (!std::filesystem::exists(SharedTrace("AzureLLMInferenceTrace_conv.csv"))) {
    GTEST_SKIP() << "../shared/data is not here";
  }
  struct Case {
    std::string file;
    size_t rows;
  };
  for (const Case& c : std::vector<Case>{{"AzureLLMInferenceTrace_conv.csv", 19366},
                                         {"AzureLLMInferenceTrace_code.csv", 8819},
                                         {"splitwise_conv.csv", 19366},
                                         {"conversation_trace.jsonl", 12031},
                                         {"synthetic_trace.jsonl", 3993},
                                         {"sharegpt_8k_filtered_stats_llama2_tokenizer.csv", 30731},
                                         {"arxiv_summarization_stats_llama2_tokenizer_filtered_v2.csv", 28257}}) {
    absl::StatusOr<ReadResult> r = ReadAllRequests(SharedTrace(c.file));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->requests.size(), c.rows) << c.file;
    EXPECT_EQ(r->stats.skipped, 0) << c.file;
  }
}

}  // namespace
}  // namespace infergrid
