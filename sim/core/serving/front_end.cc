#include "sim/core/serving/front_end.h"

#include <algorithm>

namespace infergrid {

FrontEnd::FrontEnd(const FrontEndSpec& spec) : spec_(spec) {
  free_at_.reserve(spec_.processes.size());
  for (const FrontEndProcess& p : spec_.processes) {
    free_at_.emplace_back(static_cast<size_t>(std::max(1, p.servers)), 0.0);
  }
}

double FrontEnd::Serve(size_t p, double ready_s, double work_s) {
  std::vector<double>& servers = free_at_[p];
  auto server = std::min_element(servers.begin(), servers.end());
  const double start = std::max(ready_s, *server);
  *server = start + work_s;
  busy_s_ += work_s;
  if (spec_.in_engine_process) engine_work_s_ += work_s;
  return *server;
}

double FrontEnd::Inbound(double time_s, int64_t prompt_tokens) {
  double t = time_s;
  for (size_t p = 0; p < spec_.processes.size(); ++p) {
    const FrontEndProcess& process = spec_.processes[p];
    if (!process.inbound()) continue;
    t = Serve(p, t, process.request_s + process.prompt_token_s * static_cast<double>(prompt_tokens));
  }
  return t;
}

double FrontEnd::Outbound(double time_s, int64_t tokens) {
  double t = time_s;
  for (size_t p = spec_.processes.size(); p-- > 0;) {
    const FrontEndProcess& process = spec_.processes[p];
    if (!process.outbound()) continue;
    t = Serve(p, t, process.step_s + process.output_token_s * static_cast<double>(tokens));
  }
  return t;
}

double FrontEnd::TakeEngineWork() {
  const double work = engine_work_s_;
  engine_work_s_ = 0;
  return work;
}

}  // namespace infergrid
