// `infergrid sweep` as a user runs it: a small real sweep and its results.csv, rerun skipping
// finished runs, a failed run recorded without stopping the others, bad specs rejected before
// anything is written, shards disjoint and merged into the unsharded results, and the sweep
// killed (SIGKILL) at random moments over and over, then rerun: every run exactly once.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::RunInfergrid;

// 2 rates x 2 schedulers x 2 replications = 8 runs of 20 requests each.
constexpr char kSpec[] = R"(# a small sweep
base: "--max-requests=20"
base: "--record-wall-time=false"
grid { flag: "rate" values: ["4", "8"] }
grid { flag: "scheduler" values: ["vllm", "sarathi"] }
replications: 2
)";
constexpr int kRuns = 8;

std::vector<std::string> Lines(const std::string& text) { return absl::StrSplit(text, '\n', absl::SkipEmpty()); }

std::set<std::string> Folders(const fs::path& dir) {
  std::set<std::string> names;
  if (!fs::exists(dir / "points")) return names;
  for (const auto& entry : fs::directory_iterator(dir / "points")) names.insert(entry.path().filename().string());
  return names;
}

std::string Sweep(const std::string& spec, const fs::path& out, const std::string& more = "") {
  return absl::StrCat("sweep --spec=", spec, " --out=", out.string(), " ", more);
}

TEST(SweepCli, RunsEveryPointAndWritesResults) {
  const fs::path dir = testing::TestDir();
  const std::string spec = testing::WriteFile(dir / "sweep.textproto", kSpec);
  const fs::path out = dir / "out";
  const testing::CommandResult r = RunInfergrid(Sweep(spec, out, "--jobs=2"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("8 runs: 8 ran, 0 done before, 0 failed (2 jobs)"));
  // Off a terminal: plain progress lines, the last one complete.
  EXPECT_THAT(r.err, HasSubstr("sweep: 8/8 runs done, 0 failed"));
  const std::vector<std::string> csv = Lines(testing::ReadAll(out / "results.csv"));
  ASSERT_EQ(csv.size(), 1u + kRuns);
  EXPECT_THAT(csv[0], ::testing::StartsWith("point,replication,seed,rate,scheduler,status,requests,completed,"));
  EXPECT_THAT(csv[0], HasSubstr("ttft_p99_s"));
  EXPECT_THAT(csv[0], HasSubstr("goodput_fraction"));
  EXPECT_THAT(csv[1], ::testing::StartsWith("0,0,0,4,vllm,ok,20,"));
  EXPECT_THAT(csv[2], ::testing::StartsWith("0,1,1,4,vllm,ok,20,"));
  EXPECT_THAT(csv[8], ::testing::StartsWith("3,1,1,8,sarathi,ok,20,"));
  EXPECT_EQ(Lines(testing::ReadAll(out / "results.jsonl")).size(), static_cast<size_t>(kRuns));
  EXPECT_EQ(Folders(out).size(), static_cast<size_t>(kRuns));
  for (const std::string& hash : Folders(out)) {
    EXPECT_TRUE(fs::exists(out / "points" / hash / "summary.json")) << hash;
    EXPECT_TRUE(fs::exists(out / "points" / hash / "point.json")) << hash;
  }
  // A run's summary.json is simulate's for the same flags (point 0, replication 0: seed 0).
  const testing::CommandResult one = RunInfergrid(
      "simulate --quiet --format=json --max-requests=20 --record-wall-time=false --rate=4 --scheduler=vllm");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const std::string hash = csv[1].substr(csv[1].rfind(',') + 1);
  const std::string summary = testing::ReadAll(out / "points" / hash / "summary.json");
  auto latencies = [](const std::string& json) {
    const size_t from = json.find("\"ttft\"");
    return json.substr(from, json.find("\"throughput\"") - from);
  };
  EXPECT_EQ(latencies(summary), latencies(one.out));
  EXPECT_THAT(summary, HasSubstr("\"command_line\": \"infergrid simulate"));

  // Rerun: nothing runs again, the results are rebuilt the same.
  const std::string before = testing::ReadAll(out / "results.csv");
  const testing::CommandResult again = RunInfergrid(Sweep(spec, out, "--jobs=2"));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr("8 runs: 0 ran, 8 done before"));
  EXPECT_EQ(testing::ReadAll(out / "results.csv"), before);
}

// A summary.json cut by hand is a run to redo, not one that blocks every rerun; a second spec
// in the same folder takes it over whole: its sweep.json is never paired with the first spec's
// results, even when its runs fail before the results are rebuilt.
TEST(SweepCli, ADamagedPointIsRedoneAndAnotherSpecNeverKeepsTheOldResults) {
  const fs::path dir = testing::TestDir();
  const std::string spec = testing::WriteFile(dir / "sweep.textproto", kSpec);
  const fs::path out = dir / "out";
  ASSERT_EQ(RunInfergrid(Sweep(spec, out, "--jobs=2")).exit_code, 0);
  const std::string before = testing::ReadAll(out / "results.csv");
  const std::string hash = *Folders(out).begin();
  const std::string summary = testing::ReadAll(out / "points" / hash / "summary.json");
  testing::WriteFile(out / "points" / hash / "summary.json", summary.substr(0, summary.size() / 2));
  const testing::CommandResult again = RunInfergrid(Sweep(spec, out, "--jobs=2"));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, HasSubstr("8 runs: 1 ran, 7 done before"));
  EXPECT_EQ(testing::ReadAll(out / "points" / hash / "summary.json"), summary);
  EXPECT_EQ(testing::ReadAll(out / "results.csv"), before);

  // Spec B, whose every run fails as it runs (a trace with a bad row): the folder holds B's
  // sweep.json and B's results (each run marked failed), nothing of A's.
  const std::string trace =
      testing::WriteFile(dir / "bad.csv", "arrival_s,input_tokens,output_tokens\n0,10,10\n1,x,3\n");
  const std::string other =
      testing::WriteFile(dir / "other.textproto",
                         absl::StrCat("base: \"--trace=", trace, "\"\ngrid { flag: \"rate\" values: [\"3\"] }\n"));
  const testing::CommandResult b = RunInfergrid(Sweep(other, out));
  EXPECT_EQ(b.exit_code, 1) << b.err;
  EXPECT_THAT(testing::ReadAll(out / "sweep.json"), HasSubstr("other.textproto"));
  const std::vector<std::string> csv = Lines(testing::ReadAll(out / "results.csv"));
  ASSERT_EQ(csv.size(), 2u);
  EXPECT_THAT(csv[1], ::testing::StartsWith("0,0,0,3,failed,"));
}

TEST(SweepCli, AFailedRunIsRecordedAndTheOthersGoOn) {
  const fs::path dir = testing::TestDir();
  const std::string good = testing::WriteFile(dir / "good.csv",
                                              "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                              "2023-11-16 18:15:46.0000000,374,44\n"
                                              "2023-11-16 18:15:47.0000000,396,10\n");
  const std::string bad = testing::WriteFile(dir / "bad.csv",
                                             "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                             "2023-11-16 18:15:46.0000000,374,44\n"
                                             "2023-11-16 18:15:47.0000000,abc,10\n");
  const std::string spec = testing::WriteFile(
      dir / "sweep.textproto", absl::StrCat("grid { flag: \"trace\" values: [\"", good, "\", \"", bad, "\"] }\n"));
  const fs::path out = dir / "out";
  const testing::CommandResult r = RunInfergrid(Sweep(spec, out, "--jobs=2"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("1 of 2 runs failed"));
  EXPECT_EQ(r.out, "");
  const std::vector<std::string> csv = Lines(testing::ReadAll(out / "results.csv"));
  ASSERT_EQ(csv.size(), 3u);
  EXPECT_THAT(csv[1], HasSubstr(",ok,"));
  EXPECT_THAT(csv[2], HasSubstr(",failed,"));
  int errors = 0;
  for (const std::string& hash : Folders(out)) {
    const fs::path error = out / "points" / hash / "error.txt";
    if (!fs::exists(error)) continue;
    ++errors;
    EXPECT_THAT(testing::ReadAll(error), HasSubstr("bad.csv:3"));
  }
  EXPECT_EQ(errors, 1);
  EXPECT_THAT(Lines(testing::ReadAll(out / "results.jsonl"))[1], HasSubstr("bad.csv:3"));
}

TEST(SweepCli, BadSpecsAreRejectedBeforeAnythingIsWritten) {
  const fs::path dir = testing::TestDir();
  const fs::path out = dir / "out";
  const std::vector<std::pair<std::string, std::string>> specs = {
      {"base: \"--max-requests=20\"\ngrid { flag: \"rate\" values: [] }\n",
       "sweep.textproto:2: grid axis --rate: empty axis"},
      {"zip {\n  axis { flag: \"rate\" values: [\"1\", \"2\"] }\n  axis { flag: \"cv\" values: [\"1\"] }\n}\n",
       "sweep.textproto:3: zip axis --cv"},
      {"base: \"--bogus=1\"\n", "sweep.textproto:1: base: unknown flag --bogus"},
      // Rejected by the plan simulate resolves: 140 GB of weights on one 80 GB GPU.
      {"base: \"--max-requests=20\"\ngrid {\n  flag: \"model\"\n  values: [\"llama-3-8b\"]\n  values: "
       "[\"llama-3-70b\"]\n}\n",
       "sweep.textproto:5: point 1 (model=llama-3-70b)"},
  };
  for (const auto& [text, message] : specs) {
    const std::string spec = testing::WriteFile(dir / "sweep.textproto", text);
    testing::ExpectOneLineError({Sweep(spec, out), 1, message});
    EXPECT_FALSE(fs::exists(out)) << text;
  }
  const std::string spec = testing::WriteFile(dir / "sweep.textproto", kSpec);
  testing::ExpectOneLineError({Sweep(spec, out, "--shard=2/2"), 2, "--shard=2/2"});
  testing::ExpectOneLineError({Sweep(spec, out, "--jobs=-1"), 2, "--jobs"});
  testing::ExpectOneLineError({absl::StrCat("sweep --out=", out.string()), 2, "--spec=FILE is required"});
  testing::ExpectOneLineError({Sweep((dir / "missing.textproto").string(), out), 1, "missing.textproto"});
  testing::ExpectOneLineError({"sweep merge " + (dir / "nothing").string(), 1, "not a sweep folder"});
  EXPECT_FALSE(fs::exists(out));
}

TEST(SweepCli, ShardsAreDisjointAndMergeEqualsTheUnshardedSweep) {
  const fs::path dir = testing::TestDir();
  const std::string spec = testing::WriteFile(dir / "sweep.textproto", kSpec);
  const fs::path all = dir / "all", a = dir / "shard0", b = dir / "shard1";
  ASSERT_EQ(RunInfergrid(Sweep(spec, all, "--jobs=2")).exit_code, 0);
  const testing::CommandResult r0 = RunInfergrid(Sweep(spec, a, "--jobs=2 --shard=0/2"));
  ASSERT_EQ(r0.exit_code, 0) << r0.err;
  EXPECT_THAT(r0.out, HasSubstr("4 runs of shard 0/2: 4 ran"));
  EXPECT_THAT(r0.out, HasSubstr("4 rows (4 runs of other shards not done yet)"));
  // The second shard from Slurm's environment.
  setenv("SLURM_ARRAY_TASK_ID", "1", 1);
  setenv("SLURM_ARRAY_TASK_COUNT", "2", 1);
  const testing::CommandResult r1 = RunInfergrid(Sweep(spec, b, "--jobs=2"));
  unsetenv("SLURM_ARRAY_TASK_ID");
  unsetenv("SLURM_ARRAY_TASK_COUNT");
  EXPECT_THAT(r1.out, HasSubstr("4 runs of shard 1/2: 4 ran"));
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  const std::set<std::string> in_a = Folders(a), in_b = Folders(b);
  EXPECT_EQ(in_a.size() + in_b.size(), static_cast<size_t>(kRuns));
  std::set<std::string> both = in_a;
  both.insert(in_b.begin(), in_b.end());
  EXPECT_EQ(both, Folders(all));  // disjoint and complete

  const fs::path merged = dir / "merged";
  const std::string merge = absl::StrCat("sweep merge --out=", merged.string(), " ", a.string(), " ", b.string());
  const testing::CommandResult m = RunInfergrid(merge);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_THAT(m.out, HasSubstr("merged 8 rows from 2 folders"));
  EXPECT_EQ(testing::ReadAll(merged / "results.csv"), testing::ReadAll(all / "results.csv"));
  EXPECT_EQ(testing::ReadAll(merged / "results.jsonl"), testing::ReadAll(all / "results.jsonl"));
  // Idempotent.
  ASSERT_EQ(RunInfergrid(merge).exit_code, 0);
  EXPECT_EQ(testing::ReadAll(merged / "results.csv"), testing::ReadAll(all / "results.csv"));
  // One shard alone is incomplete: merged, but the exit code says so.
  const testing::CommandResult partial = RunInfergrid("sweep merge " + a.string());
  EXPECT_EQ(partial.exit_code, 1);
  EXPECT_THAT(partial.err, HasSubstr("4 missing"));
  // Shards sharing one folder (a shared file system) complete it too.
  const fs::path shared = dir / "shared";
  ASSERT_EQ(RunInfergrid(Sweep(spec, shared, "--shard=1/2")).exit_code, 0);
  ASSERT_EQ(RunInfergrid(Sweep(spec, shared, "--shard=0/2")).exit_code, 0);
  EXPECT_EQ(testing::ReadAll(shared / "results.csv"), testing::ReadAll(all / "results.csv"));
  // Another spec's folder does not merge.
  const std::string other = testing::WriteFile(dir / "other.textproto", "base: \"--max-requests=5\"\n");
  ASSERT_EQ(RunInfergrid(Sweep(other, dir / "other")).exit_code, 0);
  testing::ExpectOneLineError(
      {absl::StrCat("sweep merge ", a.string(), " ", (dir / "other").string()), 1, "another sweep"});
}

// Starts `infergrid args...` with stdout and stderr discarded.
pid_t Start(const std::vector<std::string>& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv = {const_cast<char*>(INFERGRID_BIN)};
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    execv(INFERGRID_BIN, argv.data());
    _exit(127);
  }
  return pid;
}

// Live processes whose command line mentions `needle` (a zombie's command line is empty).
int LiveProcessesMentioning(const std::string& needle) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = testing::ReadAll(entry.path() / "cmdline");
    count += cmdline.find(needle) != std::string::npos;
  }
  return count;
}

// The issue's test: killed at any moment (SIGKILL included) and rerun, the sweep completes with
// every run exactly once, nothing lost or duplicated.
TEST(SweepCli, KilledAtRandomMomentsAndRerunCompletesEveryRunExactlyOnce) {
  const fs::path dir = testing::TestDir();
  const std::string spec = testing::WriteFile(dir / "sweep.textproto", kSpec);
  const fs::path out = dir / "out";
  const std::vector<std::string> args = {"sweep", "--spec=" + spec, "--out=" + out.string(), "--jobs=2"};
  // How long an uninterrupted sweep takes here: the kills fall anywhere inside it.
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(RunInfergrid(Sweep(spec, dir / "timing", "--jobs=2")).exit_code, 0);
  const auto full = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
  std::mt19937_64 random(20240614);
  int kills = 0;
  for (int attempt = 0; attempt < 12; ++attempt) {
    const pid_t pid = Start(args);
    ASSERT_GT(pid, 0);
    // Any moment of the first half of an uninterrupted sweep's time: while checking the spec,
    // starting children, writing results or the manifest; so most attempts die with work left.
    const auto delay = std::chrono::microseconds(random() % static_cast<uint64_t>(full.count() / 2 + 1));
    std::this_thread::sleep_for(delay);
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == 0) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      ++kills;
    }
    // None of its simulations runs on beside the next attempt.
    for (int wait = 0; wait < 100 && LiveProcessesMentioning("--out=" + out.string()) > 0; ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(LiveProcessesMentioning("--out=" + out.string()), 0) << "attempt " << attempt;
  }
  // Most attempts die mid-way (the rest finished before their moment came).
  EXPECT_GE(kills, 3);
  RecordProperty("kills", kills);
  // However the kills fell, a last rerun finishes the sweep.
  const testing::CommandResult last = RunInfergrid(Sweep(spec, out, "--jobs=2"));
  ASSERT_EQ(last.exit_code, 0) << last.err;
  EXPECT_THAT(last.out, HasSubstr("0 failed"));

  // Every run exactly once: one folder each with one result, nothing else left behind.
  const std::set<std::string> folders = Folders(out);
  EXPECT_EQ(folders, Folders(dir / "timing"));
  for (const std::string& hash : folders) {
    std::set<std::string> files;
    for (const auto& entry : fs::directory_iterator(out / "points" / hash))
      files.insert(entry.path().filename().string());
    EXPECT_EQ(files, (std::set<std::string>{"point.json", "summary.json"})) << hash;
    EXPECT_THAT(testing::ReadAll(out / "points" / hash / "summary.json"), HasSubstr("\"simulated_duration_s\""));
  }
  const std::vector<std::string> csv = Lines(testing::ReadAll(out / "results.csv"));
  ASSERT_EQ(csv.size(), 1u + kRuns);
  std::set<std::string> keys;
  for (size_t i = 1; i < csv.size(); ++i) {
    const std::vector<std::string> fields = absl::StrSplit(csv[i], ',');
    keys.insert(absl::StrCat(fields[0], "/", fields[1]));
    EXPECT_EQ(fields[5], "ok") << csv[i];
  }
  EXPECT_EQ(keys.size(), static_cast<size_t>(kRuns));
  // Same results as the sweep that was never killed (wall time aside, results are deterministic).
  EXPECT_EQ(testing::ReadAll(out / "results.csv"), testing::ReadAll(dir / "timing" / "results.csv"));
  EXPECT_EQ(Lines(testing::ReadAll(out / "results.jsonl")).size(), static_cast<size_t>(kRuns));
  for (const auto& entry : fs::directory_iterator(out)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
  }
}

// A killed sweep's simulations die with it (PR_SET_PDEATHSIG), rather than run to their end
// unseen, competing with the rerun: one long run (about a second), the sweep killed while it
// runs, and within 300 ms no process of it is left.
TEST(SweepCli, AKilledSweepLeavesNoSimulationRunning) {
  const fs::path dir = testing::TestDir();
  const std::string spec = testing::WriteFile(dir / "sweep.textproto", "base: \"--max-requests=20000\"\n");
  const fs::path out = dir / "out";
  const std::string mention = "--out=" + out.string();
  const pid_t pid = Start({"sweep", "--spec=" + spec, "--out=" + out.string(), "--jobs=1"});
  ASSERT_GT(pid, 0);
  // The sweep and its child (a fork: the same command line).
  for (int wait = 0; wait < 500 && LiveProcessesMentioning(mention) < 2; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(LiveProcessesMentioning(mention), 2) << "the simulation did not start";
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  for (int wait = 0; wait < 30 && LiveProcessesMentioning(mention) > 0; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(LiveProcessesMentioning(mention), 0);
  EXPECT_FALSE(fs::exists(out / "results.csv"));
}

}  // namespace
}  // namespace infergrid
