// The sweep without simulations: spec reading and every invalid case with its file:line, point
// expansion (grid product, zip, seeded random draws, replications with common random numbers),
// stable hashes, shards, results.csv from run folders, and the progress line. The command
// itself (real runs, resume, kill, shards, merge) is in sweep_cli_test.cc.
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/app/sweep/point_hash.h"
#include "sim/app/sweep/point_store.h"
#include "sim/app/sweep/sweep_points.h"
#include "sim/app/sweep/sweep_progress.h"
#include "sim/app/sweep/sweep_results.h"
#include "sim/app/sweep/sweep_shard.h"
#include "sim/app/sweep/sweep_spec_reader.h"
#include "tests/test_files.h"

namespace infergrid::sweep {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string WriteSpec(absl::string_view text) {
  return testing::WriteFile(testing::TestDir() / "sweep.textproto", text);
}

absl::StatusOr<ExpandedSweep> Expand(absl::string_view text) {
  absl::StatusOr<SweepDesign> design = ReadSweepSpec(WriteSpec(text));
  if (!design.ok()) return design.status();
  return ExpandSweep(*design);
}

std::string ValueOf(const SweepRun& run, absl::string_view flag) {
  for (const SweepSetting& s : run.settings()) {
    if (s.flag() == flag) return s.value();
  }
  return "";
}

TEST(SweepSpec, GridZipRandomAndReplicationsExpandAsAProduct) {
  absl::StatusOr<ExpandedSweep> expanded = Expand(R"(
base: "--max-requests=20"
base: "--seed=7"
grid { flag: "rate" values: ["2", "4", "8"] }
zip {
  axis { flag: "--max-num-seqs" values: ["16", "32"] }
  axis { flag: "scheduler" values: ["vllm", "sarathi"] }
}
random {
  samples: 4
  seed: 1
  axis { flag: "cv" range { min: 0.5 max: 2 } }
}
replications: 2
)");
  ASSERT_TRUE(expanded.ok()) << expanded.status();
  EXPECT_EQ(expanded->manifest.points(), 3 * 2 * 4);
  EXPECT_EQ(expanded->runs.size(), 3u * 2 * 4 * 2);
  EXPECT_THAT(expanded->manifest.axes(), ElementsAre("rate", "max_num_seqs", "scheduler", "cv"));
  // The first dimension varies slowest; replications innermost.
  const SweepRun& first = expanded->runs[0].run;
  const SweepRun& second = expanded->runs[1].run;
  EXPECT_EQ(ValueOf(first, "rate"), "2");
  EXPECT_EQ(first.replication(), 0);
  EXPECT_EQ(second.point(), 0);
  EXPECT_EQ(second.replication(), 1);
  // The zip's second setting: after 4 random draws x 2 replications.
  EXPECT_EQ(ValueOf(expanded->runs[4 * 2].run, "max_num_seqs"), "32");  // zip advances together
  EXPECT_EQ(ValueOf(expanded->runs[4 * 2].run, "scheduler"), "sarathi");
  EXPECT_EQ(ValueOf(expanded->runs[4 * 2].run, "rate"), "2");
  EXPECT_EQ(ValueOf(expanded->runs[2 * 4 * 2].run, "rate"), "4");
  EXPECT_EQ(ValueOf(expanded->runs.back().run, "rate"), "8");
  // Common random numbers: replication r has seed 7 + r at every point.
  for (const ExpandedRun& run : expanded->runs) {
    EXPECT_EQ(run.run.seed(), 7u + static_cast<uint64_t>(run.run.replication()));
    EXPECT_THAT(run.run.command_line(), HasSubstr(absl::StrCat("--seed=", run.run.seed())));
  }
  // Every run is its own configuration.
  EXPECT_EQ(expanded->unique_runs.size(), expanded->runs.size());
}

TEST(SweepSpec, RandomDrawsAreSeededAndReproducible) {
  const std::string spec = R"(
base: "--max-requests=20"
random {
  samples: 6
  seed: 11
  axis { flag: "rate" range { min: 1 max: 100 log_scale: true } }
  axis { flag: "max-num-seqs" range { min: 8 max: 256 integer: true } }
  axis { flag: "scheduler" choices: ["vllm", "sarathi", "orca"] }
}
)";
  absl::StatusOr<ExpandedSweep> a = Expand(spec);
  absl::StatusOr<ExpandedSweep> b = Expand(spec);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(a->runs.size(), 6u);
  std::set<std::string> rates;
  for (size_t i = 0; i < a->runs.size(); ++i) {
    EXPECT_EQ(a->runs[i].run.hash(), b->runs[i].run.hash());
    const double rate = std::stod(ValueOf(a->runs[i].run, "rate"));
    EXPECT_GE(rate, 1);
    EXPECT_LE(rate, 100);
    const int seqs = std::stoi(ValueOf(a->runs[i].run, "max_num_seqs"));
    EXPECT_GE(seqs, 8);
    EXPECT_LE(seqs, 256);
    EXPECT_THAT(ValueOf(a->runs[i].run, "scheduler"), ::testing::AnyOf("vllm", "sarathi", "orca"));
    rates.insert(ValueOf(a->runs[i].run, "rate"));
  }
  EXPECT_EQ(rates.size(), 6u);
  // Another seed, other draws.
  std::string reseeded = spec;
  reseeded.replace(reseeded.find("seed: 11"), 8, "seed: 12");
  absl::StatusOr<ExpandedSweep> c = Expand(reseeded);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_NE(ValueOf(c->runs[0].run, "rate"), ValueOf(a->runs[0].run, "rate"));
}

TEST(SweepSpec, NoDimensionsIsOnePointWithReplications) {
  absl::StatusOr<ExpandedSweep> expanded = Expand("base: \"--max-requests=20\"\nreplications: 3\n");
  ASSERT_TRUE(expanded.ok()) << expanded.status();
  EXPECT_EQ(expanded->manifest.points(), 1);
  ASSERT_EQ(expanded->runs.size(), 3u);
  EXPECT_EQ(expanded->runs[2].run.seed(), 2u);
}

// Each invalid spec: one error naming the file, the line and the field or flag.
TEST(SweepSpec, InvalidSpecsNameFileLineAndField) {
  struct Case {
    std::string spec;
    std::string where;  // "sweep.textproto:LINE"
    std::string message;  // a piece of the message
  };
  const std::vector<Case> cases = {
      {"base: \"--max-requests=20\"\nbogus: 1\n", "sweep.textproto:2:", "no field named \"bogus\""},
      {"base: \"--max-requests=20\"\nbase: \"--no-such-flag=3\"\n", "sweep.textproto:2", "--no-such-flag"},
      {"base: \"max-requests=20\"\n", "sweep.textproto:1", "expected one simulate flag"},
      {"base: \"--rate=4\"\nbase: \"--rate=5\"\n", "sweep.textproto:2", "--rate is set twice (lines 1 and 2)"},
      {"base: \"--out=/tmp/x\"\n", "sweep.textproto:1", "--out is the sweep's own"},
      {"base: \"--max-requests=20\"\ngrid { flag: \"rate\" }\n", "sweep.textproto:2", "grid axis --rate: empty axis"},
      {"grid {\n  flag: \"no-such-flag\"\n  values: \"1\"\n}\n", "sweep.textproto:2",
       "unknown simulate flag --no-such-flag"},
      {"grid {\n  flag: \"rate\"\n  values: \"2\"\n  values: \"fast\"\n}\n", "sweep.textproto:4", "--rate"},
      {"zip {\n  axis { flag: \"rate\" values: [\"1\", \"2\"] }\n  axis { flag: \"cv\" values: [\"1\"] }\n}\n",
       "sweep.textproto:3", "zip axis --cv: 1 values, but --rate has 2"},
      {"zip {\n}\n", "sweep.textproto:1", "zip: no axis"},
      {"grid { flag: \"rate\" values: \"2\" }\ngrid { flag: \"rate\" values: \"3\" }\n", "sweep.textproto:2",
       "--rate is varied twice"},
      {"random {\n  samples: 0\n  axis { flag: \"rate\" range { min: 1 max: 2 } }\n}\n", "sweep.textproto:2",
       "samples must be 1..100000 (the runs a sweep may have), got 0"},
      {"random {\n  samples: 2\n  axis { flag: \"max_num_seqs\" range { min: 1 max: 2 } }\n}\n", "sweep.textproto:3",
       "set `integer: true`"},
      {"random {\n  samples: 2\n  axis { flag: \"scheduler\" range { min: 1 max: 2 } }\n}\n", "sweep.textproto:3",
       "not a numeric flag"},
      {"random {\n  samples: 2\n  axis { flag: \"rate\" }\n}\n", "sweep.textproto:3", "either a range or choices"},
      {"replications: -1\n", "sweep.textproto:1", "replications"},
      // Refused before two billion draws are made (the cap was checked after drawing).
      {"random {\n  samples: 2000000000\n  axis { flag: \"rate\" range { min: 1 max: 2 } }\n}\n", "sweep.textproto:2",
       "samples must be 1..100000 (the runs a sweep may have), got 2000000000"},
      // One parse for every decimal: 1e309 in an axis is refused, not run with the default rate.
      {"grid {\n  flag: \"rate\"\n  values: \"2\"\n  values: \"1e309\"\n}\n", "sweep.textproto:4",
       "flag --rate: Illegal value '1e309'; out of range"},
      // An integer range past 2^53 (llround of 1e30 wrapped to a negative count).
      {"random {\n  samples: 2\n  axis { flag: \"max_num_seqs\" range { min: 1 max: 1e30 integer: true } }\n}\n",
       "sweep.textproto:3", "an integer range must lie within -2^53..2^53"},
      {"random {\n  samples: 2\n  axis { flag: \"rate\" range { min: -1.7e308 max: 1.7e308 } }\n}\n",
       "sweep.textproto:3", "range needs finite min <= max"},
      // A point simulate would reject: the line of the value it rejects.
      {"base: \"--max-requests=20\"\ngrid {\n  flag: \"rate\"\n  values: \"4\"\n  values: \"-1\"\n}\n",
       "sweep.textproto:5: point 1 (rate=-1)", "--rate"},
      {"base: \"--max-requests=20\"\nbase: \"--time-scale=2\"\ngrid { flag: \"rate\" values: \"4\" }\n",
       "sweep.textproto:2: point 0 (rate=4)", "--time-scale"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<ExpandedSweep> expanded = Expand(c.spec);
    ASSERT_FALSE(expanded.ok()) << c.spec;
    const std::string message(expanded.status().message());
    EXPECT_THAT(message, HasSubstr(c.where)) << c.spec;
    EXPECT_THAT(message, HasSubstr(c.message)) << c.spec;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(SweepSpec, TooManyRunsAreRefusedBeforeExpanding) {
  std::string values;
  for (int i = 1; i <= 400; ++i) absl::StrAppend(&values, i == 1 ? "" : ", ", "\"", i, "\"");
  absl::StatusOr<ExpandedSweep> expanded = Expand(
      absl::StrCat("grid { flag: \"rate\" values: [", values, "] }\ngrid { flag: \"cv\" values: [", values, "] }\n"));
  ASSERT_FALSE(expanded.ok());
  EXPECT_THAT(expanded.status().message(), HasSubstr("sweep.textproto:2: the sweep has more than 100000 runs"));
}

TEST(SweepSpec, FlagNamesAreCanonical) {
  EXPECT_EQ(CanonicalFlagName("--max-num-seqs"), "max_num_seqs");
  EXPECT_EQ(CanonicalFlagName("max_num_seqs"), "max_num_seqs");
  EXPECT_TRUE(IsSweepOwnedFlag("out"));
  EXPECT_FALSE(IsSweepOwnedFlag("rate"));
}

TEST(PointHash, IsFnv1aOfTheConfiguration) {
  // The published FNV-1a 64 test vectors: a hash that never changes across machines.
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ULL);
  EXPECT_EQ(PointHash("a"), "af63dc4c8601ec8c");
}

TEST(PointHash, SameConfigurationSameHashWhateverTheSpelling) {
  absl::StatusOr<ExpandedSweep> a = Expand("base: \"--max-requests=20\"\ngrid { flag: \"rate\" values: [\"4\"] }\n");
  absl::StatusOr<ExpandedSweep> b =
      Expand("grid { flag: \"--rate\" values: [\"4.0\"] }\nbase: \"--max_requests=20\"\n");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->runs[0].run.hash(), b->runs[0].run.hash());
  EXPECT_EQ(a->runs[0].run.command_line(), b->runs[0].run.command_line());
  // A value equal to the default is the default.
  absl::StatusOr<ExpandedSweep> c =
      Expand("base: \"--max-requests=20\"\nbase: \"--cv=1\"\ngrid { flag: \"rate\" values: \"4\" }\n");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->runs[0].run.hash(), a->runs[0].run.hash());
  // Another value, another hash; 16 hex digits.
  absl::StatusOr<ExpandedSweep> d = Expand("base: \"--max-requests=20\"\ngrid { flag: \"rate\" values: \"5\" }\n");
  ASSERT_TRUE(d.ok());
  EXPECT_NE(d->runs[0].run.hash(), a->runs[0].run.hash());
  EXPECT_EQ(a->runs[0].run.hash().size(), 16u);
}

TEST(SweepSpec, PointsWithOneConfigurationShareOneRun) {
  absl::StatusOr<ExpandedSweep> expanded =
      Expand("base: \"--max-requests=20\"\ngrid { flag: \"rate\" values: [\"4\", \"4.0\", \"5\"] }\n");
  ASSERT_TRUE(expanded.ok()) << expanded.status();
  EXPECT_EQ(expanded->runs.size(), 3u);
  EXPECT_THAT(expanded->unique_runs, ElementsAre(0, 2));
}

TEST(SweepShard, ParsedFromTheFlag) {
  absl::StatusOr<Shard> shard = ParseShard("1/3");
  ASSERT_TRUE(shard.ok());
  EXPECT_EQ(shard->index, 1);
  EXPECT_EQ(shard->count, 3);
  EXPECT_TRUE(shard->Owns(4));
  EXPECT_FALSE(shard->Owns(3));
  for (const char* bad : {"3/3", "-1/2", "1", "a/b", "1/0", "0/2/3"}) {
    absl::StatusOr<Shard> s = ParseShard(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_THAT(s.status().message(), HasSubstr("--shard")) << bad;
  }
}

TEST(SweepShard, FromSlurmOrKubernetesEnvironment) {
  auto env = [](std::map<std::string, std::string> vars) {
    return [vars](const char* name) -> const char* {
      const auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  };
  absl::StatusOr<Shard> none = ShardFromEnvironment(env({}));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->count, 1);
  absl::StatusOr<Shard> slurm = ShardFromEnvironment(
      env({{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}));
  ASSERT_TRUE(slurm.ok()) << slurm.status();
  EXPECT_EQ(slurm->index, 2);
  EXPECT_EQ(slurm->count, 4);
  EXPECT_EQ(slurm->source, "SLURM_ARRAY_TASK_ID");
  absl::StatusOr<Shard> k8s = ShardFromEnvironment(env({{"JOB_COMPLETION_INDEX", "0"}, {"JOB_COMPLETIONS", "2"}}));
  ASSERT_TRUE(k8s.ok()) << k8s.status();
  EXPECT_EQ(k8s->index, 0);
  EXPECT_EQ(k8s->count, 2);
  absl::StatusOr<Shard> no_count = ShardFromEnvironment(env({{"JOB_COMPLETION_INDEX", "0"}}));
  ASSERT_FALSE(no_count.ok());
  EXPECT_THAT(no_count.status().message(), HasSubstr("JOB_COMPLETIONS"));
  absl::StatusOr<Shard> outside =
      ShardFromEnvironment(env({{"SLURM_ARRAY_TASK_ID", "4"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}));
  ASSERT_FALSE(outside.ok());
  EXPECT_THAT(outside.status().message(), HasSubstr("SLURM_ARRAY_TASK_ID=4"));
}

TEST(SweepShard, ShardsAreDisjointAndComplete) {
  std::vector<int> owners(100, 0);
  for (int i = 0; i < 7; ++i) {
    const Shard shard{i, 7, ""};
    for (int k = 0; k < 100; ++k) owners[static_cast<size_t>(k)] += shard.Owns(k);
  }
  for (const int n : owners) EXPECT_EQ(n, 1);
}

// A new manifest takes the old results with it: a sweep killed between writing its sweep.json
// and rebuilding the results would otherwise leave another spec's results.csv beside it.
TEST(PointStore, AManifestRemovesTheResultsOfTheOneBefore) {
  absl::StatusOr<ExpandedSweep> expanded = Expand("grid { flag: \"rate\" values: [\"1\"] }\n");
  ASSERT_TRUE(expanded.ok()) << expanded.status();
  const fs::path dir = testing::TestDir() / "out";
  absl::StatusOr<PointStore> store = PointStore::Open(dir.string(), true);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(store->WriteFile("results.csv", "point,status\n0,ok\n").ok());
  ASSERT_TRUE(store->WriteFile("results.jsonl", "{}\n").ok());
  ASSERT_TRUE(store->WriteManifest(expanded->manifest).ok());
  EXPECT_FALSE(fs::exists(dir / "results.csv"));
  EXPECT_FALSE(fs::exists(dir / "results.jsonl"));
  EXPECT_TRUE(fs::exists(dir / "sweep.json"));
}

TEST(SweepResults, RowsFromRunFoldersInManifestOrder) {
  absl::StatusOr<ExpandedSweep> expanded =
      Expand("base: \"--max-requests=20\"\ngrid { flag: \"slo-ttft\" values: [\"1\", \"2\", \"3\"] }\n");
  ASSERT_TRUE(expanded.ok()) << expanded.status();
  const fs::path dir = testing::TestDir() / "out";
  absl::StatusOr<PointStore> store = PointStore::Open(dir.string(), true);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(store->PrepareRun(expanded->runs[2].run).ok());
  ASSERT_TRUE(store->RecordSuccess(expanded->runs[2].run, R"({"requests": 20, "ttft": {"p99": 0.25}})").ok());
  ASSERT_TRUE(store->PrepareRun(expanded->runs[0].run).ok());
  ASSERT_TRUE(store->RecordFailure(expanded->runs[0].run, "it broke, badly").ok());
  absl::StatusOr<SweepResults> results = CollectResults(expanded->manifest, {&*store});
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(results->ok, 1);
  EXPECT_EQ(results->failed, 1);
  EXPECT_EQ(results->missing, 1);
  const std::vector<std::string> lines = absl::StrSplit(results->csv, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[0], ::testing::StartsWith("point,replication,seed,slo_ttft,status,requests,"));
  EXPECT_THAT(lines[1], ::testing::StartsWith("0,0,0,1,failed,,"));
  EXPECT_THAT(lines[2], ::testing::StartsWith("2,0,0,3,ok,20,"));
  EXPECT_THAT(lines[2], HasSubstr(",0.25,"));
  const std::vector<std::string> json = absl::StrSplit(results->jsonl, '\n', absl::SkipEmpty());
  ASSERT_EQ(json.size(), 2u);
  EXPECT_THAT(json[0], HasSubstr("\"error\":\"it broke, badly\""));
  // A later success replaces the failure.
  ASSERT_TRUE(store->RecordSuccess(expanded->runs[0].run, R"({"requests": 20})").ok());
  EXPECT_EQ(store->StateOf(expanded->runs[0].run), RunState::kDone);
  EXPECT_FALSE(fs::exists(fs::path(store->RunFolder(expanded->runs[0].run)) / "error.txt"));
}

TEST(SweepProgress, BarOnATerminalPlainLineElsewhere) {
  const SweepProgress bar(stderr, true, 40, 4);
  EXPECT_EQ(bar.Line(14, 1, absl::Seconds(20)),
            "[########----------------] 14/40 runs done (4 before), 1 failed, elapsed 0:20, ETA 0:52");
  const SweepProgress line(stderr, false, 40, 0);
  EXPECT_EQ(line.Line(40, 0, absl::Seconds(3725)), "sweep: 40/40 runs done, 0 failed, elapsed 1:02:05");
}

}  // namespace
}  // namespace infergrid::sweep
