// `infergrid compare`: A/B differences between two configurations.
//   infergrid compare --a="--scheduler=vllm" --b="--scheduler=sarathi" --replications=5 [flags]
// runs both flag sets (each on top of the shared flags) on the same workloads: replication i
// uses seed --seed + i for both, so A and B see identical arrivals and lengths (common random
// numbers) and the difference B - A of each metric is paired. The table shows the mean
// difference with a Student-t 95% confidence interval over the replications. Every simulation
// runs in a child process (one SimGrid engine per process).
//   infergrid compare A.json B.json
// compares two summary.json files (single values, no interval).
#include <cmath>
#include <functional>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/student_t.h"
#include "base/textproto.h"
#include "base/json_text.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/cli/simulate_flags.h"
#include "sim/app/cli/simulate_options.h"
#include "sim/app/commands/command.h"
#include "sim/app/run/resolved_simulation.h"
#include "sim/app/run/simulation_run.h"
#include "sim/app/format/json_output.h"
#include "sim/app/format/text_table.h"
#include "sim/app/format/units.h"
#include "sim/app/output/output_dir.h"

namespace infergrid {
namespace {

// compare's own flags.
struct CompareFlags {
  std::string a;
  std::string b;
  int32_t replications = 1;
  std::string out;
};

const cli::FlagGroup<CompareFlags>& CompareFlagGroup() {
  static const cli::FlagGroup<CompareFlags>* group =
      &(*new cli::FlagGroup<CompareFlags>())
           .Add("a", &CompareFlags::a, "configuration A, as simulate flags (\"--scheduler=vllm --max-num-seqs=128\")")
           .Add("b", &CompareFlags::b, "configuration B, as simulate flags")
           .Add("replications", &CompareFlags::replications,
                "seeds per configuration (common random numbers: A and B share each seed)")
           .Add("out", &CompareFlags::out, "write comparison.json into this folder");
  return *group;
}

// A metric of the comparison: its name in comparison.json (base units: seconds, per second,
// fractions) and how the table prints it, in the units simulate's table uses (ms for latencies,
// % for the KV peak).
struct Metric {
  const char* name;
  std::function<double(const SimulationSummary&)> value;
  const char* unit = "ms";  // the table's unit
  double scale = 1e3;  // table value = value x scale
  int decimals = 2;
};

const std::vector<Metric>& Metrics() {
  static const std::vector<Metric>* metrics = new std::vector<Metric>{
      {"ttft.mean", [](const SimulationSummary& s) { return s.ttft().mean(); }},
      {"ttft.p50", [](const SimulationSummary& s) { return s.ttft().p50(); }},
      {"ttft.p99", [](const SimulationSummary& s) { return s.ttft().p99(); }},
      {"tpot.mean", [](const SimulationSummary& s) { return s.tpot().mean(); }},
      {"tpot.p99", [](const SimulationSummary& s) { return s.tpot().p99(); }},
      {"itl.p99", [](const SimulationSummary& s) { return s.itl().p99(); }},
      {"e2e.mean", [](const SimulationSummary& s) { return s.e2e().mean(); }},
      {"e2e.p99", [](const SimulationSummary& s) { return s.e2e().p99(); }},
      {"queueing.mean", [](const SimulationSummary& s) { return s.queueing().mean(); }},
      {"throughput.requests_per_s", [](const SimulationSummary& s) { return s.throughput().requests_per_s(); }, "req/s",
       1, 3},
      {"throughput.output_tokens_per_s",
       [](const SimulationSummary& s) { return s.throughput().output_tokens_per_s(); }, "tok/s", 1, 1},
      {"goodput.requests_per_s", [](const SimulationSummary& s) { return s.goodput().requests_per_s(); }, "req/s", 1,
       3},
      {"kv.preemptions", [](const SimulationSummary& s) { return static_cast<double>(s.kv().preemptions()); }, "", 1,
       1},
      {"kv.peak_fraction", [](const SimulationSummary& s) { return s.kv().peak_fraction(); }, "% of blocks", 100, 1},
  };
  return *metrics;
}

const Metric* FindMetric(const std::string& name) {
  for (const Metric& m : Metrics()) {
    if (name == m.name) return &m;
  }
  return nullptr;
}

void AddDifferences(Comparison& comparison) {
  const int n = comparison.a_runs_size();
  for (const Metric& metric : Metrics()) {
    double a_sum = 0, b_sum = 0;
    std::vector<double> d;
    for (int i = 0; i < n; ++i) {
      const double a = metric.value(comparison.a_runs(i));
      const double b = metric.value(comparison.b_runs(i));
      a_sum += a;
      b_sum += b;
      d.push_back(b - a);
    }
    const MeanInterval interval = MeanWithInterval95(d);
    MetricDifference& diff = *comparison.add_differences();
    diff.set_metric(metric.name);
    diff.set_a_mean(a_sum / n);
    diff.set_b_mean(b_sum / n);
    diff.set_difference_mean(interval.mean);
    diff.set_ci95_low(interval.low);
    diff.set_ci95_high(interval.high);
    diff.set_relative(a_sum != 0 ? interval.mean / (a_sum / n) : 0);
  }
}

// "llama-3-8b on h100-sxm, 1 replica x TP 1: infergrid simulate ..." for one side's header line.
std::string SideLine(const char* side, const SimulationConfig& c) {
  return absl::StrCat("  ", side, ": ", c.model(), " on ", c.gpu(), ", ", c.num_replicas(), " replica",
                      c.num_replicas() == 1 ? "" : "s", " x TP ", c.tensor_parallel_size(), ", ", c.scheduler(),
                      " scheduler: ", c.command_line(), "\n");
}

std::string RenderComparison(const Comparison& c) {
  std::string out = absl::StrCat("InferGrid compare: B - A over ", c.replications(), " replication",
                                 c.replications() == 1 ? "" : "s");
  if (c.b_seeds_size() > 0) {
    absl::StrAppend(&out, " (seeds: A ", c.seeds(0), "..", c.seeds(c.seeds_size() - 1), ", B ", c.b_seeds(0), "..",
                    c.b_seeds(c.b_seeds_size() - 1), "; not common random numbers)");
  } else if (c.seeds_size() > 0) {
    absl::StrAppend(&out, " (common random numbers: seeds ", c.seeds(0), "..", c.seeds(c.seeds_size() - 1), ")");
  }
  absl::StrAppend(&out, "\n", SideLine("A", c.a()), SideLine("B", c.b()), "\n");
  format::TextTable table({"metric", "unit", "A", "B", "B - A", "95% CI", "relative"});
  for (const MetricDifference& d : c.differences()) {
    const Metric* m = FindMetric(d.metric());
    const double scale = m != nullptr ? m->scale : 1;
    const int decimals = m != nullptr ? m->decimals : 6;
    auto fmt = [&](double v) { return format::Fixed(v * scale, decimals); };
    const std::string ci =
        c.replications() > 1 ? absl::StrCat("[", fmt(d.ci95_low()), ", ", fmt(d.ci95_high()), "]") : "-";
    table.AddRow({d.metric(), m != nullptr ? m->unit : "", fmt(d.a_mean()), fmt(d.b_mean()), fmt(d.difference_mean()),
                  ci, absl::StrCat(format::Fixed(100 * d.relative(), 1), "%")});
  }
  absl::StrAppend(&out, table.Render());
  absl::StrAppend(&out,
                  "latencies in ms, as simulate prints them (comparison.json keeps seconds); "
                  "throughput and goodput per second of simulated time\n");
  return out;
}

absl::StatusOr<SimulationSummary> ReadSummary(const std::string& path) {
  std::string text;
  if (absl::Status s = ReadFileToString(path, &text); !s.ok()) return s;
  SimulationSummary summary;
  if (absl::Status s = ParseJsonMessage(text, JsonSource{path}, "summary.json", &summary); !s.ok()) return s;
  // Some other JSON object parses too (unknown fields are ignored): a summary has its config.
  if (!summary.has_config()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a summary.json (no config; simulate --out writes one)"));
  }
  return summary;
}

// A configuration's flags (`--a`/`--b`) parsed on their own; usage errors name the option.
absl::StatusOr<cli::FlagValues> ParseVariant(const std::string& flags, absl::string_view which) {
  std::vector<std::string> args = absl::StrSplit(flags, ' ', absl::SkipWhitespace());
  absl::StatusOr<cli::ParsedCommandLine> parsed = cli::ParseCommandLine(args, cli::SimulationFlags());
  if (!parsed.ok()) return cli::UsageError(absl::StrCat("--", which, ": ", parsed.status().message()));
  if (!parsed->positional.empty() || parsed->help) {
    return cli::UsageError(absl::StrCat("--", which, ": expected simulate flags, got '", flags, "'"));
  }
  return parsed->flags;
}

// One configuration: the shared flags with its own on top, resolved into a simulation. Errors keep
// their exit code and name the configuration.
absl::StatusOr<ResolvedSimulation> ResolveVariant(const cli::FlagValues& shared, const std::string& flags,
                                                  absl::string_view which) {
  absl::StatusOr<cli::FlagValues> own = ParseVariant(flags, which);
  if (!own.ok()) return own.status();
  absl::StatusOr<cli::SimulateOptions> options = cli::ReadSimulateOptions(shared.With(*own));
  absl::StatusOr<ResolvedSimulation> resolved =
      options.ok() ? ResolveSimulationOptions(*options) : absl::StatusOr<ResolvedSimulation>(options.status());
  if (!resolved.ok()) {
    const std::string message = absl::StrCat("--", which, ": ", resolved.status().message());
    if (cli::ExitCodeFor(resolved.status()) == cli::kExitUsage) return cli::UsageError(message);
    return absl::Status(resolved.status().code(), message);
  }
  return resolved;
}

// Runs a resolved configuration with `seed` in a child process (one SimGrid engine per process).
absl::StatusOr<SimulationSummary> RunVariant(const ResolvedSimulation& resolved, absl::string_view which,
                                             uint64_t seed) {
  absl::StatusOr<SimulationSummary> summary = ExecuteSimulationInChild(resolved, seed);
  if (!summary.ok())
    return absl::Status(summary.status().code(), absl::StrCat(which, ": ", summary.status().message()));
  return summary;
}

// Both configurations over `replications` seeds, each side from its own --seed (the shared one
// unless --a or --b sets one): common random numbers when they share it.
absl::Status RunReplications(const cli::FlagValues& flags, const std::string& a_flags, const std::string& b_flags,
                             int replications, Comparison& comparison) {
  absl::StatusOr<ResolvedSimulation> a = ResolveVariant(flags, a_flags, "a");
  if (!a.ok()) return a.status();
  absl::StatusOr<ResolvedSimulation> b = ResolveVariant(flags, b_flags, "b");
  if (!b.ok()) return b.status();
  *comparison.mutable_a() = a->config;
  *comparison.mutable_b() = b->config;
  const uint64_t a_seed = a->options.workload.synthetic.seed;
  const uint64_t b_seed = b->options.workload.synthetic.seed;
  comparison.set_replications(replications);
  for (int i = 0; i < replications; ++i) {
    const uint64_t offset = static_cast<uint64_t>(i);
    comparison.add_seeds(a_seed + offset);
    if (b_seed != a_seed) comparison.add_b_seeds(b_seed + offset);
    absl::StatusOr<SimulationSummary> a_run = RunVariant(*a, "a", a_seed + offset);
    if (!a_run.ok()) return a_run.status();
    absl::StatusOr<SimulationSummary> b_run = RunVariant(*b, "b", b_seed + offset);
    if (!b_run.ok()) return b_run.status();
    *comparison.add_a_runs() = *std::move(a_run);
    *comparison.add_b_runs() = *std::move(b_run);
  }
  return absl::OkStatus();
}

absl::Status RunCompare(const cli::ParsedCommandLine& command_line, std::ostream& out) {
  const cli::FlagValues& flags = command_line.flags;
  const CompareFlags compare_flags = CompareFlagGroup().Read(flags);
  const cli::SimulateFlags simulate_flags = cli::SimulateFlagGroup().Read(flags);
  const std::vector<std::string>& positional = command_line.positional;
  absl::StatusOr<bool> json = cli::WantJson(flags);
  if (!json.ok()) return json.status();
  const std::string a_flags = compare_flags.a;
  const std::string b_flags = compare_flags.b;
  const int replications = compare_flags.replications;
  if (absl::Status s = cli::CheckRange("replications", replications, 1, 1000); !s.ok()) return s;
  // The folder is locked before the runs (one run per folder at a time, output_dir.h).
  std::optional<OutputDir> dir;
  if (!compare_flags.out.empty()) {
    absl::StatusOr<OutputDir> opened = OutputDir::Open(compare_flags.out);
    if (!opened.ok()) return opened.status();
    dir.emplace(*std::move(opened));
  }
  Comparison comparison;
  if (positional.size() == 2 && a_flags.empty() && b_flags.empty()) {
    absl::StatusOr<SimulationSummary> a = ReadSummary(positional[0]);
    if (!a.ok()) return a.status();
    absl::StatusOr<SimulationSummary> b = ReadSummary(positional[1]);
    if (!b.ok()) return b.status();
    *comparison.mutable_a() = a->config();
    *comparison.mutable_b() = b->config();
    *comparison.add_a_runs() = *a;
    *comparison.add_b_runs() = *b;
    comparison.set_replications(1);
  } else if (positional.empty() && (!a_flags.empty() || !b_flags.empty())) {
    if (absl::Status s = RunReplications(flags, a_flags, b_flags, replications, comparison); !s.ok()) return s;
  } else {
    return cli::UsageError("compare takes two summary.json files, or --a=\"FLAGS\" and --b=\"FLAGS\" (simulate flags)");
  }
  AddDifferences(comparison);
  if (dir) {
    if (absl::Status s = dir->WriteFile("comparison.json", format::ToJson(comparison)); !s.ok()) return s;
    if (absl::Status s = dir->Commit(); !s.ok()) return s;
  }
  out << (*json ? format::ToJson(comparison) : RenderComparison(comparison));
  return absl::OkStatus();
}

}  // namespace

const Command& CompareCommand() {
  static const Command* command = new Command{
      "compare", "A/B differences of two simulate configurations (common random numbers, 95% CI)",
      cli::CommandFlags().TakeAll(cli::SimulationFlags(), cli::SimulationFileFlags()).Take(CompareFlagGroup()),
      &RunCompare};
  return *command;
}

}  // namespace infergrid
