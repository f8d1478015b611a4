// calibration/host_fit.h: fitting the engines' host phases from measured overheads; its refusals.

#include <string>
#include <vector>

#include "calibration/host_fit.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace infergrid {
namespace {

// A model whose vocabulary the fit does not know is refused with its line, not fitted without.
TEST(HostTime, FitRefusesAModelWhoseVocabularyIsUnknown) {
  const std::string csv =
      ",schedule_mean,sampler_e2e_mean,prepare_inputs_e2e_mean,model_execution_launch_mean,"
      "process_model_outputs_mean,model_name,batch_size,tensor_parallel_degree\n"
      "0,0.1,0.5,0.3,0.1,0.2,meta-llama/Llama-2-7b-hf,8,1\n"
      "1,0.1,0.5,0.3,0.1,0.2,acme/unknown-7b,8,1\n";
  const absl::StatusOr<std::vector<HostOverheadRow>> rows = ParseHostOverheadsCsv(csv, "t.csv");
  ASSERT_FALSE(rows.ok());
  EXPECT_THAT(rows.status().message(), ::testing::HasSubstr("t.csv:3: model 'acme/unknown-7b'"));
}

}  // namespace
}  // namespace infergrid
