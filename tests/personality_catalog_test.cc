// sim/core/personality/personality_catalog.h: engine personalities by name and version: a
// version between personalities runs on the newest below it, versions below the oldest or of
// another major are refused, and a personality's checks (the watermark).

#include <cmath>
#include <utility>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/core/personality/personality_catalog.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

TEST(EnginePersonalities, WatermarkMustBeASmallFraction) {
  EnginePersonality p = *ResolveEnginePersonality("vllm-v0");
  EXPECT_TRUE(ValidateEnginePersonality(p, "x").ok());
  for (double bad : {-0.01, 0.5, std::nan("")}) {
    p.set_watermark_fraction(bad);
    EXPECT_THAT(ValidateEnginePersonality(p, "x.textproto").message(), HasSubstr("x.textproto: watermark_fraction"))
        << bad;
  }
}

// A version without a personality of its own runs on the newest one at or below it (versions
// compared number by number: 0.9 < 0.11 < 0.13.2), one past them all on the newest, with a
// note naming the personality; the named versions run as themselves, without one.
TEST(EnginePersonalities, AVersionBetweenPersonalitiesRunsOnTheNewestBelowIt) {
  const auto resolves = [](const char* name, const char* personality, const char* note) {
    absl::StatusOr<ResolvedEngine> r = ResolveEngine(name);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status();
    EXPECT_EQ(PersonalityName(r->personality), personality) << name;
    EXPECT_EQ(r->note, note) << name;
  };
  resolves("vllm-v1@0.13.2", "vllm-v1@0.11",
           "vllm-v1@0.13.2 runs on personality vllm-v1@0.11 (the newest at or below 0.13.2)");
  // The version the vllm_v1_under_load.csv runs most likely used.
  resolves("vllm-v1@0.15.1", "vllm-v1@0.15",
           "vllm-v1@0.15.1 runs on personality vllm-v1@0.15 (the newest at or below 0.15.1)");
  resolves("vllm-v1@0.20.1", "vllm-v1@0.19",
           "vllm-v1@0.20.1 runs on personality vllm-v1@0.19 (the newest at or below 0.20.1)");
  resolves("VLLM-V0@0.6.4", "vllm-v0@0.6.3",
           "vllm-v0@0.6.4 runs on personality vllm-v0@0.6.3 (the newest at or below 0.6.4)");
  resolves("sglang@0.5.0", "sglang@0.4.9",
           "sglang@0.5.0 runs on personality sglang@0.4.9 (the newest at or below 0.5.0)");
  // Past the newest: the newest.
  resolves("vllm-v1@0.99", "vllm-v1@0.21",
           "vllm-v1@0.99 runs on personality vllm-v1@0.21 (the newest vllm-v1 "
           "personality; 0.99 is past it)");
  // Named versions, spelled with or without a trailing .0, and names without one: no note.
  resolves("vllm-v1@0.19", "vllm-v1@0.19", "");
  resolves("vllm-v1@0.19.0", "vllm-v1@0.19", "");
  resolves("vllm-v1", "vllm-v1@0.21", "");
  resolves("trtllm@pytorch", "trtllm@pytorch", "");
  EXPECT_EQ(PersonalityName(*ResolveEnginePersonality("vllm-v1@0.13.2")), "vllm-v1@0.11");
}

TEST(EnginePersonalities, VersionsBelowTheOldestOrOfAnotherMajorAreRefused) {
  const std::pair<const char*, const char*> cases[] = {
      {"vllm-v1@0.9", "'vllm-v1@0.9' is older than the oldest vllm-v1 personality, vllm-v1@0.11"},
      {"sglang@0.3.6", "older than the oldest sglang personality, sglang@0.4.1"},
      {"vllm-v1@1.2", "no personality of major version 1 (known: vllm-v1@0.11, "},
      {"vllm-v1@abc", "unknown engine 'vllm-v1@abc'"},
      {"vllm-v1@0.15.x", "unknown engine 'vllm-v1@0.15.x'"},
      {"vllm-v1@0..15", "unknown engine 'vllm-v1@0..15'"},
      {"trtllm@1.0", "unknown engine 'trtllm@1.0'"},  // its personalities are not numbered
      {"trtllm@torch", "unknown engine 'trtllm@torch'"},
  };
  for (const auto& [name, message] : cases) {
    absl::StatusOr<ResolvedEngine> r = ResolveEngine(name);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_THAT(r.status().message(), HasSubstr(message)) << name;
    EXPECT_THAT(r.status().message(), HasSubstr(absl::StrContains(name, "trtllm") ? "trtllm@cpp" : "@0.")) << name;
  }
}

}  // namespace
}  // namespace infergrid
