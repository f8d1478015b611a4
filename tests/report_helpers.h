// Helpers shared by the HTML report's test files (the report_test binary): occurrences of a string
// in a page, and a plan report made by hand.
#ifndef INFERGRID_TESTS_REPORT_HELPERS_H_
#define INFERGRID_TESTS_REPORT_HELPERS_H_

#include <cstddef>
#include <string>

#include "sim/app/plan/plan_result.pb.h"

namespace infergrid {

// How many times `what` occurs in `text`, without overlaps.
inline size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// A plan by hand: h100-sxm (measured) and h200-sxm (extrapolated) ok and priced, an a100 one ok
// but dominated (dearer per hour than h100 at a lower rate), and one infeasible.
inline PlanResult HandMadePlan() {
  PlanResult plan;
  SloTerm& term = *plan.add_slo();
  term.set_text("ttft_p99<=2s");
  term.set_metric("ttft");
  term.set_statistic("p99");
  term.set_limit_s(2);
  plan.set_replications(1);
  plan.set_tolerance(0.05);
  plan.set_workload("--workload=azure-conv");
  plan.mutable_assumed_workload()->set_text("synthetic preset azure-conv (its fitted lengths), poisson arrivals");
  plan.add_notes("the GPU profiles of h200-sxm from h100-sxm are extrapolated by datasheet ratios");
  struct Row {
    const char* label;
    const char* gpu;
    int gpus;
    double rate, usd_per_hour, usd_per_m;
    bool extrapolated;
  };
  const Row rows[] = {{"h100-sxm tp1", "h100-sxm", 1, 9.5, 2.69, 2.79, false},
                      {"h200-sxm tp1", "h200-sxm", 1, 11.0, 3.59, 3.21, true},
                      {"a100-80gb tp2", "a100-80gb", 2, 6.0, 2.78, 4.5, false}};
  int rank = 0;
  for (const Row& r : rows) {
    PlanCandidate& c = *plan.add_candidates();
    c.set_rank(++rank);
    c.set_label(r.label);
    c.set_gpu(r.gpu);
    c.set_gpus(r.gpus);
    c.set_replicas(1);
    c.set_status("ok");
    c.set_rate(r.rate);
    c.set_output_tokens_per_s(r.rate * 200);
    c.set_usd_per_hour(r.usd_per_hour);
    c.set_usd_per_million_output_tokens(r.usd_per_m);
    c.set_cost_model("calibrated");
    c.set_profile_extrapolated(r.extrapolated);
    c.set_profile_extrapolated_from(r.extrapolated ? "h100-sxm" : "");
    SloValue& v = *c.add_slo_values();
    v.set_term("ttft_p99<=2s");
    v.set_mean_s(0.5);
    v.set_limit_s(2);
  }
  PlanCandidate& infeasible = *plan.add_candidates();
  infeasible.set_label("h100-sxm tp8");
  infeasible.set_status("infeasible");
  infeasible.set_error("the model does not fit");
  return plan;
}

}  // namespace infergrid

#endif  // INFERGRID_TESTS_REPORT_HELPERS_H_
