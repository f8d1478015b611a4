// calibration/host_profile.h: the bundled host calibration (calibration/host_profiles/), the fit of
// the legacy table.

#include "calibration/host_profile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace infergrid {
namespace {

// The bundled fit (calibration/host_profiles/vllm-legacy-a100.textproto): scheduling grows
// ~14 us per sequence; preparing inputs costs ~0.46 ms more with workers to feed (TP > 1);
// sampling grows with the vocabulary (~8 us per sequence per 100K entries), the term that took
// its held-out error from 31% to 19% and the whole step's from 11.4% to 7.3%.
TEST(HostTime, BundledCalibrationIsTheFitOfTheLegacyTable) {
  const HostCalibration h = *ResolveHostCalibration("vllm-legacy-a100");
  const HostPhase* schedule = FindHostPhase(h, "schedule");
  const HostPhase* prepare = FindHostPhase(h, "prepare_inputs");
  ASSERT_NE(schedule, nullptr);
  ASSERT_NE(prepare, nullptr);
  EXPECT_NEAR(schedule->per_sequence_s() * 1e6, 14.2, 0.1);
  EXPECT_NEAR(prepare->tensor_parallel_s() * 1e6, 458, 1);
  EXPECT_LT(h.step_held_out_mape(), 0.08);
  EXPECT_NEAR(HostPhaseSeconds(*schedule, 8, 1, 32000), schedule->base_s() + 8 * schedule->per_sequence_s(), 1e-15);
  const HostPhase* sample = FindHostPhase(h, "sample");
  ASSERT_NE(sample, nullptr);
  EXPECT_NEAR(sample->per_sequence_vocab_s() * 1e11, 8.0, 0.1);
  EXPECT_LT(sample->held_out_mape(), 0.2);
  // The rows' mean vocabulary; 13 rows a model: (3 x 32,000 + 51,200 + 103,168 + 152,064) / 6.
  EXPECT_NEAR(h.reference_vocab_size(), (3 * 32000 + 51200 + 103168 + 152064) / 6.0, 1e-6);
}

}  // namespace
}  // namespace infergrid
