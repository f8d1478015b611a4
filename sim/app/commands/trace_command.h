// `infergrid trace stats|convert|sample|fit`: what a trace holds, conversion to InferGrid's own
// format (optionally sorted), cutting a time window or a request count, and fitting a workload
// preset. One Command; the first positional argument names the subcommand.
#ifndef INFERGRID_SIM_APP_COMMANDS_TRACE_COMMAND_H_
#define INFERGRID_SIM_APP_COMMANDS_TRACE_COMMAND_H_

#include <string>

#include "traces/trace_stats.pb.h"

namespace infergrid {

std::string RenderTraceStatsTable(const TraceStats& stats);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_COMMANDS_TRACE_COMMAND_H_
