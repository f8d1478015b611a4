// Prices a replica's iterations with the cost model, optionally sparing it most calls during
// decode runs. A decode run is a sequence of iterations whose batch is the same decode
// sequences, in the same order, each one token further: batch k has contexts c_i + k. With
// stride S > 1 the model prices the run's first batch and every S-th one exactly and the
// batches between are interpolated linearly between the two exact neighbours (every field of
// IterationCost; the binding resource and launch count of the earlier one). A prefill, a
// padded static batch or any change of membership starts a new run with an exact price.
// Stride 1 prices every iteration exactly. The roofline model is linear in the contexts
// between changes of its binding resource, so interpolation is exact there; README
// "Simulation" gives the measured effect on the calibrated model.
#ifndef INFERGRID_SIM_CORE_SERVING_ITERATION_PRICER_H_
#define INFERGRID_SIM_CORE_SERVING_ITERATION_PRICER_H_

#include <cstdint>
#include <vector>

#include "sim/core/cost/iteration_cost.h"
#include "sim/core/serving/scheduled_batch.h"

namespace infergrid {

class IterationPricer {
 public:
  IterationPricer(const IterationCostModel& model, int stride) : model_(model), stride_(stride < 1 ? 1 : stride) {}
  // The cost of `shape`, the batch of `scheduled`.
  IterationCost Price(const ScheduledBatch& scheduled, const BatchShape& shape);
  int64_t exact_calls() const { return exact_calls_; }

 private:
  bool ContinuesRun(const ScheduledBatch& scheduled) const;
  IterationCost Exact(const BatchShape& shape) {
    ++exact_calls_;
    return model_.Cost(shape);
  }

  const IterationCostModel& model_;
  int stride_;
  std::vector<const Sequence*> members_;  // the run's sequences, in batch order
  int step_ = 0;  // batches since the last exact anchor
  IterationCost anchor_;  // exact, at step 0
  std::vector<int64_t> anchor_contexts_;  // the anchor batch's decode contexts
  IterationCost next_;  // exact, at step `stride_` (once have_next_)
  bool have_next_ = false;
  BatchShape ahead_;  // scratch: the batch `stride_` steps ahead
  int64_t exact_calls_ = 0;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SERVING_ITERATION_PRICER_H_
