// `infergrid trace`: stats (table and JSON numbers), convert (round trip, --sort), sample
// (window and count), fit, and the usage and input errors with their exit codes.
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

using testing::CommandResult;
using ::testing::HasSubstr;
using testing::ReadAll;
using testing::RunInfergrid;
using testing::TestDir;
using testing::WriteFile;

constexpr char kMooncake[] =
    "{\"timestamp\": 0, \"input_length\": 1024, \"output_length\": 10, \"hash_ids\": [1, 2]}\n"
    "{\"timestamp\": 500, \"input_length\": 1500, \"output_length\": 20, \"hash_ids\": [1, 2, 3]}\n"
    "{\"timestamp\": 900, \"input_length\": 600, \"output_length\": 30, \"hash_ids\": [4, 5]}\n"
    "{\"timestamp\": 3000, \"input_length\": 100, \"output_length\": 40, \"hash_ids\": [1]}\n";

TEST(TraceCli, StatsJsonHasTheNumbers) {
  const std::string path = WriteFile(TestDir() / "m.jsonl", kMooncake);
  const CommandResult r = RunInfergrid("trace stats --trace=" + path + " --format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "mooncake");
  EXPECT_EQ(j["rows"], "4");  // proto3 JSON writes int64 as a string
  EXPECT_DOUBLE_EQ(j["span_s"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(j["mean_rate_per_s"].get<double>(), 1.0);
  EXPECT_EQ(j["peak_requests_1s"], "3");
  EXPECT_EQ(j["peak_requests_60s"], "4");
  EXPECT_DOUBLE_EQ(j["input"]["mean"].get<double>(), 806.0);
  EXPECT_EQ(j["input"]["p50"], "600");  // nearest rank: 2nd of 100, 600, 1024, 1500
  EXPECT_EQ(j["input"]["p90"], "1500");
  EXPECT_EQ(j["output"]["max"], "40");
  EXPECT_EQ(j["prefix"]["blocks"], "8");
  EXPECT_EQ(j["prefix"]["unique_blocks"], "5");
  EXPECT_DOUBLE_EQ(j["prefix"]["reuse_fraction"].get<double>(), 1.0 - 5.0 / 8.0);
}

TEST(TraceCli, StatsTableAndSkippedRows) {
  const std::string path = WriteFile(TestDir() / "v.csv",
                                     "arrived_at,num_prefill_tokens,num_decode_tokens\n"
                                     "0,100,10\n0.5,x,10\n1,300,30\n1,300,-1\n");
  const CommandResult fail = RunInfergrid("trace stats --trace=" + path);
  EXPECT_EQ(fail.exit_code, 1);
  EXPECT_EQ(fail.out, "");
  EXPECT_THAT(fail.err, HasSubstr("v.csv:3:5: num_prefill_tokens: expected an integer, got 'x'"));
  const CommandResult r = RunInfergrid("trace stats --trace=" + path + " --on-bad-row=skip");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("InferGrid trace stats: " + path + " (vidur)"));
  EXPECT_THAT(r.out, HasSubstr("  requests       2\n"));
  EXPECT_THAT(r.out, HasSubstr("skipped rows     2 (negative=1, not_a_number=1)"));
  EXPECT_THAT(r.out, HasSubstr("warning: skipped rows (not_a_number), the first at " + path + ":3:5"));
}

TEST(TraceCli, ConvertRoundTripsAndSorts) {
  const std::string dir = TestDir();
  const std::string in = WriteFile(dir + "/m.jsonl", kMooncake);
  const std::string out = dir + "/m.csv";
  const CommandResult r = RunInfergrid("trace convert --trace=" + in + " --output=" + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "wrote 4 requests (mooncake) to " + out + "\n");
  EXPECT_EQ(ReadAll(out),
            "arrival_s,input_tokens,output_tokens,priority,session,model,log_type,block_hashes\n"
            "0,1024,10,0,,,,1 2\n0.5,1500,20,0,,,,1 2 3\n0.9,600,30,0,,,,4 5\n3,100,40,0,,,,1\n");
  // The converted file gives the same statistics.
  const CommandResult a = RunInfergrid("trace stats --format=json --trace=" + in);
  const CommandResult b = RunInfergrid("trace stats --format=json --trace=" + out);
  nlohmann::json ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  ja.erase("path"), ja.erase("format"), jb.erase("path"), jb.erase("format");
  EXPECT_EQ(ja, jb);

  const std::string unsorted = WriteFile(dir + "/u.csv",
                                         "arrived_at,num_prefill_tokens,num_decode_tokens\n"
                                         "5,1,1\n2,2,2\n9,3,3\n");
  const CommandResult rejected = RunInfergrid("trace convert --trace=" + unsorted + " --output=" + dir + "/s.csv");
  EXPECT_EQ(rejected.exit_code, 1);
  EXPECT_THAT(rejected.err, HasSubstr("u.csv:3:1: timestamp earlier than the previous row's"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/s.csv"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/s.csv.tmp"));
  const CommandResult sorted = RunInfergrid("trace convert --sort --trace=" + unsorted + " --output=" + dir + "/s.csv");
  ASSERT_EQ(sorted.exit_code, 0) << sorted.err;
  EXPECT_THAT(sorted.out, HasSubstr("warning: sorted by arrival: 2 requests moved"));
  EXPECT_EQ(ReadAll(dir + "/s.csv"),
            "arrival_s,input_tokens,output_tokens,priority,session,model,log_type,block_hashes\n"
            "0,2,2,0,,,,\n3,1,1,0,,,,\n7,3,3,0,,,,\n");
}

TEST(TraceCli, SampleCutsAWindowAndACount) {
  const std::string dir = TestDir();
  const std::string in = WriteFile(dir + "/m.jsonl", kMooncake);
  const CommandResult window =
      RunInfergrid("trace sample --trace=" + in + " --start-s=0.5 --end-s=3 --output=" + dir + "/w.csv");
  ASSERT_EQ(window.exit_code, 0) << window.err;
  EXPECT_EQ(ReadAll(dir + "/w.csv"),
            "arrival_s,input_tokens,output_tokens,priority,session,model,log_type,block_hashes\n"
            "0,1500,20,0,,,,1 2 3\n0.4,600,30,0,,,,4 5\n");
  const CommandResult count = RunInfergrid("trace sample --trace=" + in + " --requests=1 --output=" + dir + "/c.csv");
  ASSERT_EQ(count.exit_code, 0) << count.err;
  EXPECT_EQ(count.out, "wrote 1 requests (mooncake) to " + dir + "/c.csv\n");
  const CommandResult empty = RunInfergrid("trace sample --trace=" + in + " --start-s=10 --output=" + dir + "/e.csv");
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_THAT(empty.err, HasSubstr("no request falls in the window [10, end) s"));
}

TEST(TraceCli, FitWritesAPresetTheSimulatorReads) {
  const std::string dir = TestDir();
  const std::string in = WriteFile(dir + "/m.jsonl", kMooncake);
  const CommandResult r = RunInfergrid("trace fit --trace=" + in + " --preset-name=tiny");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("name: \"tiny\"\nsource: \"m.jsonl\"\nsource_rows: 4\n"));
  EXPECT_THAT(r.out, HasSubstr("probability: [0, 0.005, 0.01,"));
  EXPECT_THAT(r.out, HasSubstr("source_input {\n  mean: 806\n  p50: 600\n"));
}

// A FIFO at `path` (made once), for the special-file cases.
std::string Fifo(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    EXPECT_EQ(mkfifo(path.c_str(), 0600), 0) << path;
  }
  return path;
}

TEST(TraceCli, UsageAndInputErrors) {
  const std::string dir = TestDir();
  const std::string ok = WriteFile(dir + "/m.jsonl", kMooncake);
  const std::vector<testing::CliErrorCase> cases = {
      {"trace", 2, "trace needs a subcommand: stats, convert, sample or fit"},
      {"trace summarize --trace=" + ok, 2, "unknown trace subcommand 'summarize'"},
      {"trace stats", 2, "--trace=FILE is required"},
      {"trace stats --trace=" + ok + " --trace-format=csv", 2, "--trace-format: expected auto, azure"},
      {"trace stats --trace=" + ok + " --on-bad-row=ignore", 2, "--on-bad-row: expected fail or skip"},
      {"trace convert --trace=" + ok, 2, "--output=FILE is required"},
      {"trace sample --trace=" + ok + " --output=x.csv --start-s=5 --end-s=2", 2, "--end-s must be 0"},
      {"trace stats --trace=" + dir + "/missing.csv", 1, "missing.csv: cannot open file"},
      {"trace stats --trace=" + WriteFile(dir + "/e.csv", ""), 1, "e.csv: empty file"},
      {"trace stats --trace=" + ok + " --trace-format=azure", 1,
       "m.jsonl:1:1: the first line is a JSON object, not a header of the azure format"},
      // Past 2^32 s an arrival minus a one-second window is the arrival itself: refused by row.
      {"trace stats --trace=" +
           WriteFile(dir + "/far.csv", "arrival_s,input_tokens,output_tokens\n0,10,10\n1e17,10,10\n"),
       1, "far.csv:3:1: timestamp 1e+17 s is beyond 2^32 s (136 years)"},
      {"trace fit --trace=" + dir + "/far.csv", 1, "far.csv:3:1: timestamp 1e+17 s is beyond 2^32 s"},
      // Special files: a FIFO waits for a writer, /dev/zero is one endless line, a folder is not a file.
      {"trace stats --trace=" + Fifo(dir + "/fifo.csv"), 1, "fifo.csv: not a regular file"},
      {"trace stats --trace=/dev/zero", 1, "/dev/zero: not a regular file"},
      {"trace stats --trace=" + dir, 1, ": is a folder, not a file"},
  };
  for (const testing::CliErrorCase& c : cases) testing::ExpectOneLineError(c);
}

}  // namespace
}  // namespace infergrid
