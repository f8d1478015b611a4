// sim/app/plan/plan_assumptions.h: what a plan assumes: the workload line (source, lengths,
// arrivals, requests, seed), the profiles' marks and the note naming what is extrapolated.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/app/plan/plan_assumptions.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

TEST(PlanAssumptions, TheWorkloadLineNamesSourceLengthsArrivalsRequestsAndSeed) {
  PlanWorkload w;
  w.set_source("azure-code");
  w.set_arrival("poisson");
  w.set_max_requests(500);
  w.set_seed(3);
  EXPECT_EQ(plan::WorkloadLine(w),
            "synthetic preset azure-code (its fitted lengths), poisson arrivals at each rate "
            "searched, 500 requests a run at first, seed 3");
  w.set_source("lengths");
  w.set_arrival("gamma");
  w.set_cv(4);
  w.set_input_lengths("fixed:2000");
  w.set_output_lengths("uniform:100:200");
  EXPECT_EQ(plan::WorkloadLine(w),
            "synthetic (input fixed:2000, output uniform:100:200), gamma arrivals (cv 4) at "
            "each rate searched, 500 requests a run at first, seed 3");
  PlanWorkload trace;
  trace.set_source("trace");
  trace.set_trace("conv.csv");
  trace.set_arrival("trace");
  EXPECT_EQ(plan::WorkloadLine(trace),
            "trace conv.csv (its lengths), its arrival times rescaled to each rate "
            "searched, all its requests a run at first, seed 0");
}

TEST(PlanAssumptions, ProfileMarksAndTheNoteNameWhatIsExtrapolated) {
  PlanResult report;
  PlanCandidate& measured = *report.add_candidates();
  measured.set_gpu("h100-sxm");
  measured.set_cost_model("calibrated");
  PlanCandidate& extrapolated = *report.add_candidates();
  extrapolated.set_gpu("b200");
  extrapolated.set_cost_model("calibrated");
  extrapolated.set_profile_extrapolated(true);
  extrapolated.set_profile_extrapolated_from("h100-sxm");
  PlanCandidate& unstarted = *report.add_candidates();
  EXPECT_EQ(plan::ProfileMark(measured), "measured");
  EXPECT_EQ(plan::ProfileMark(extrapolated), "extrapolated");
  EXPECT_EQ(plan::ProfileMark(unstarted), "-");
  EXPECT_THAT(plan::ProfileNote(report),
              HasSubstr("the GPU profiles of b200 from h100-sxm are extrapolated by datasheet ratios, not measured"));
  report.mutable_candidates(1)->set_profile_extrapolated(false);
  EXPECT_EQ(plan::ProfileNote(report), "");
  report.mutable_candidates(1)->set_cost_model("roofline");
  EXPECT_EQ(plan::ProfileMark(report.candidates(1)), "roofline");
  EXPECT_THAT(plan::ProfileNote(report), HasSubstr("b200 ran on the roofline model"));
}

}  // namespace
}  // namespace infergrid
