// Every JSON reader behind a command, as a user reaches it: config.json (memory --model), a
// saved result (bench --compare), the custom and ShareGPT datasets, and the summaries compare
// and report read. A number out of a double's range aborted the first three (an uncaught
// nlohmann::out_of_range) and deep nesting overflowed the stack of the second; each is now one
// line naming file:line:column, exit 1, nothing on stdout.
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/json_text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;

constexpr char kConfig[] =
    "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"intermediate_size\": 14336,\n"
    " \"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"num_key_value_heads\": 8,\n"
    " \"vocab_size\": 128256, \"max_position_embeddings\": 8192, \"rope_theta\": ";

std::string Deep(int depth) {
  return std::string(static_cast<size_t>(depth), '[') + std::string(static_cast<size_t>(depth), ']');
}

std::string DeepObjects(int depth) {
  std::string text;
  for (int i = 0; i < depth; ++i) text += "{\"k\": ";
  return text + "1" + std::string(static_cast<size_t>(depth), '}');
}

std::string Bench(const std::string& args) {
  return absl::StrCat("bench serve --model=llama-3-8b --num-prompts=4 --random-input-len=64 --random-output-len=8 ",
                      args);
}

TEST(JsonReadersCli, NumbersOutOfRangeAreOneLineErrors) {
  const fs::path dir = testing::TestDir();
  const std::string config = testing::WriteFile(dir / "config.json", absl::StrCat(kConfig, "1e400}\n"));
  const std::string compare =
      testing::WriteFile(dir / "result.json", "{\"request_rate\": \"inf\",\n \"mean_ttft_ms\": -1e400}");
  const std::string custom =
      testing::WriteFile(dir / "prompts.jsonl", "{\"prompt\": \"hi\"}\n{\"prompt\": \"x\", \"w\": 2e308}\n");
  const std::string summary = testing::WriteFile(dir / "s" / "summary.json", "{\"requests\": 1e999}");
  const std::string other = testing::WriteFile(dir / "other.json", "{\"requests\": 10}");
  const testing::CliErrorCase cases[] = {
      {"memory --model=" + config, 1, "config.json:3:71: number 1e400 is out of range"},
      {Bench("--compare=" + compare), 1, "result.json:2:18: number -1e400 is out of range"},
      // The file's line once: "prompts.jsonl:2:", not "prompts.jsonl:2:1:".
      {Bench("--dataset-name=custom --dataset-path=" + custom), 1, "prompts.jsonl:2:22: number 2e308 is out of range"},
      {absl::StrCat("compare ", summary, " ", summary), 1, "summary.json:1:14: number 1e999 is out of range"},
      // Another JSON object parses too (unknown fields are ignored): compare printed all zeros.
      {absl::StrCat("compare ", other, " ", other), 1, "other.json: not a summary.json (no config"},
      {absl::StrCat("report ", (dir / "s").string(), " --out=", (dir / "r.html").string()), 1,
       "summary.json:1:14: number 1e999"},
  };
  for (const testing::CliErrorCase& c : cases) testing::ExpectOneLineError(c);
}

TEST(JsonReadersCli, DeepNestingIsAnErrorNotAStackOverflow) {
  const fs::path dir = testing::TestDir();
  const std::string too_deep = absl::StrCat(": JSON nested deeper than ", kMaxJsonDepth);
  const std::string config = testing::WriteFile(dir / "config.json", Deep(100000));
  const std::string compare = testing::WriteFile(dir / "result.json", DeepObjects(100000));
  const std::string custom =
      testing::WriteFile(dir / "prompts.jsonl", absl::StrCat("{\"prompt\": ", Deep(100000), "}\n"));
  const std::string sharegpt =
      testing::WriteFile(dir / "sharegpt.json", absl::StrCat("[{\"conversations\": ", Deep(100000), "}]"));
  const std::string summary =
      testing::WriteFile(dir / "s" / "summary.json", absl::StrCat("{\"x\": ", Deep(100000), "}"));
  const testing::CliErrorCase cases[] = {
      {"memory --model=" + config, 1, absl::StrCat("config.json:1:", kMaxJsonDepth + 1, too_deep)},
      {Bench("--compare=" + compare), 1, absl::StrCat("result.json:1:", 6 * kMaxJsonDepth + 1, too_deep)},
      {Bench("--dataset-name=custom --dataset-path=" + custom), 1,
       absl::StrCat("prompts.jsonl:1:", kMaxJsonDepth + 11, too_deep)},
      {Bench("--dataset-name=sharegpt --dataset-path=" + sharegpt), 1,
       absl::StrCat("sharegpt.json:1:", kMaxJsonDepth + 18, too_deep)},
      {absl::StrCat("compare ", summary, " ", summary), 1,
       absl::StrCat("summary.json:1:", kMaxJsonDepth + 6, too_deep)},
      {absl::StrCat("report ", (dir / "s").string(), " --out=", (dir / "r.html").string()), 1, too_deep},
  };
  for (const testing::CliErrorCase& c : cases) testing::ExpectOneLineError(c);
}

}  // namespace
}  // namespace infergrid
