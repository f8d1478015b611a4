// `infergrid memory`: the payload accounting of weights and KV cache (sim/app/accounting/memory_result.h)
// or, with --engine, the engine's KV-cache plan (engine_memory_result.h), as a table or JSON.
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "sim/app/accounting/engine_memory_result.h"
#include "sim/app/accounting/memory_result.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/commands/command.h"
#include "sim/app/format/json_output.h"
#include "sim/core/memory_plan/memory_plan_detail.h"

namespace infergrid {
namespace {

// `memory --engine=...`: the engine's KV-cache plan instead of the payload accounting. The plan
// counts weights tensor by tensor from the architecture, as the engines load them.
absl::Status RunEngineMemory(const cli::FlagValues& flags, const AccountingSetup& setup, bool json, std::ostream& out) {
  absl::StatusOr<MemoryPlanRequest> request = cli::ResolveMemoryPlanRequest(flags, setup);
  if (!request.ok()) return request.status();
  absl::StatusOr<MemoryPlanDetail> detail = ExplainEngineMemory(*request);
  if (!detail.ok()) {
    // Argument errors (TP, PP, fractions, sizes) are about the command line; "does not fit" is not.
    if (absl::IsInvalidArgument(detail.status())) return cli::UsageError(detail.status().message());
    return detail.status();
  }
  const EngineMemoryResult result = BuildEngineMemoryResult(*request, *detail);
  out << (json ? format::ToJson(result) : RenderEngineMemoryTable(result, setup.model, setup.gpu));
  return absl::OkStatus();
}

absl::Status RunMemory(const cli::ParsedCommandLine& command_line, std::ostream& out) {
  const cli::FlagValues& flags = command_line.flags;
  const cli::AccountingFlags accounting_flags = cli::AccountingFlagGroup().Read(flags);
  const cli::EngineFlags engine_flags = cli::EngineFlagGroup().Read(flags);
  const std::vector<std::string>& positional = command_line.positional;
  if (!positional.empty()) {
    return cli::UsageError(absl::StrCat("memory takes no arguments, got '", positional[0], "'"));
  }
  absl::StatusOr<bool> json = cli::WantJson(flags);
  if (!json.ok()) return json.status();
  const int64_t context = accounting_flags.context;
  const int64_t batch = accounting_flags.batch;
  if (absl::Status s = cli::CheckRange("context", context, 0, 100'000'000); !s.ok()) return s;
  if (absl::Status s = cli::CheckRange("batch", batch, 1, 10'000'000); !s.ok()) return s;
  absl::StatusOr<AccountingSetup> setup = cli::ResolveAccountingSetup(flags);
  if (!setup.ok()) return setup.status();
  if (!engine_flags.engine.empty()) return RunEngineMemory(flags, *setup, *json, out);
  if (const std::vector<std::string> given = cli::EngineFlagsGiven(flags); !given.empty()) {
    return cli::UsageError(
        absl::StrCat("--", given[0], " is an engine flag: give --engine=vllm-v1|vllm-v0|sglang|trtllm"));
  }
  const MemoryResult result = BuildMemoryResult(*setup, context, batch);
  out << (*json ? format::ToJson(result) : RenderMemoryTable(result, *setup));
  return absl::OkStatus();
}

}  // namespace

const Command& MemoryCommand() {
  static const Command* command =
      new Command{"memory", "weights, KV cache and payload against the device's reported memory",
                  cli::CommandFlags()
                      .Take(cli::AccountingFlagGroup(), cli::AccountingFlagNames())
                      .Take(cli::AccountingFlagGroup(), {"context", "batch"})
                      .Take(cli::EngineFlagGroup())
                      .Help("engine",
                            "print this serving engine's KV-cache plan instead of the accounting: vllm-v1, vllm-v0, "
                            "sglang or trtllm, optionally @version (vllm-v1@0.19, sglang@0.4.1, trtllm@cpp)"),
                  &RunMemory};
  return *command;
}

}  // namespace infergrid
