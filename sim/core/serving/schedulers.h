// Constructors of the scheduling policies (declared in scheduler.h's MakeScheduler).
#ifndef INFERGRID_SIM_CORE_SERVING_SCHEDULERS_H_
#define INFERGRID_SIM_CORE_SERVING_SCHEDULERS_H_

#include <memory>

#include "sim/core/serving/scheduler.h"

namespace infergrid {

std::unique_ptr<Scheduler> MakeVllmScheduler(const SchedulerLimits& limits);
std::unique_ptr<Scheduler> MakeSglangScheduler(const SchedulerLimits& limits);
std::unique_ptr<Scheduler> MakeSarathiScheduler(const SchedulerLimits& limits);
std::unique_ptr<Scheduler> MakeOrcaScheduler(const SchedulerLimits& limits);
std::unique_ptr<Scheduler> MakeStaticScheduler(const SchedulerLimits& limits);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SERVING_SCHEDULERS_H_
