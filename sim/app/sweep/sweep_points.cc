#include "sim/app/sweep/sweep_points.h"

#include <algorithm>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/app/cli/simulate_flags.h"
#include "sim/app/cli/simulate_options.h"
#include "sim/app/sweep/point_hash.h"

namespace infergrid::sweep {
namespace {

// Where `message` first names `flag` ("--max-num-seqs", "--max_num_seqs" or 'max_num_seqs') as
// a whole name ("--rate" is not named by "--rate-limit"); npos if it does not.
size_t FirstMention(absl::string_view message, const std::string& flag) {
  std::string dashed = flag;
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  size_t first = absl::string_view::npos;
  for (const std::string& form : {absl::StrCat("--", dashed), absl::StrCat("--", flag), absl::StrCat("'", flag, "'")}) {
    for (size_t at = message.find(form); at != absl::string_view::npos; at = message.find(form, at + 1)) {
      const size_t end = at + form.size();
      const bool whole = end == message.size() || (!absl::ascii_isalnum(static_cast<unsigned char>(message[end])) &&
                                                   message[end] != '-' && message[end] != '_');
      if (whole) {
        first = std::min(first, at);
        break;
      }
    }
  }
  return first;
}

cli::FlagValues SeedFlag(uint64_t seed) {
  // "--seed=N" parses: the flag is simulate's and N a uint64.
  return cli::ParseCommandLine({absl::StrCat("--seed=", seed)}, cli::SimulationFlags())->flags;
}

std::string SettingsText(const SweepRun& run) {
  std::vector<std::string> parts;
  for (const SweepSetting& setting : run.settings())
    parts.push_back(absl::StrCat(setting.flag(), "=", setting.value()));
  return absl::StrJoin(parts, ", ");
}

}  // namespace

absl::Status PointError(const SweepDesign& design, const ExpandedRun& run, const absl::Status& error) {
  // The flag the message names first is the one it is about ("--time-scale applies to
  // --trace; a synthetic workload takes --rate" is about --time-scale).
  int line = 0;
  size_t first = absl::string_view::npos;
  auto consider = [&](const std::string& flag, int flag_line) {
    const size_t at = FirstMention(error.message(), flag);
    if (at < first) {
      first = at;
      line = flag_line;
    }
  };
  for (int i = 0; i < run.run.settings_size(); ++i) consider(run.run.settings(i).flag(), run.setting_lines[i]);
  for (const auto& [flag, base_line] : design.base_lines) consider(flag, base_line);
  if (line == 0)
    line = !run.setting_lines.empty()   ? run.setting_lines.front()
           : !design.base_lines.empty() ? design.base_lines.begin()->second
                                        : 1;
  const std::string settings = SettingsText(run.run);
  return absl::Status(error.code(),
                      absl::StrCat(design.path, ":", line, ": point ", run.run.point(),
                                   settings.empty() ? "" : absl::StrCat(" (", settings, ")"), ": ", error.message()));
}

absl::StatusOr<ExpandedSweep> ExpandSweep(const SweepDesign& design) {
  int64_t points = 1;
  for (const SweepDimension& dimension : design.dimensions) {
    points *= static_cast<int64_t>(dimension.settings.size());
    if (points * design.replications > kMaxSweepRuns) {
      return absl::InvalidArgumentError(absl::StrCat(design.path, ":", dimension.line, ": the sweep has more than ",
                                                     kMaxSweepRuns, " runs; split it into several specs"));
    }
  }
  ExpandedSweep expanded;
  SweepManifest& manifest = expanded.manifest;
  manifest.set_spec(design.path);
  for (const std::string& axis : design.axes) manifest.add_axes(axis);
  manifest.set_points(static_cast<int32_t>(points));
  manifest.set_replications(design.replications);
  std::map<std::string, int> first_of_hash;
  std::vector<size_t> position(design.dimensions.size(), 0);  // mixed-radix counter, last fastest
  for (int64_t p = 0; p < points; ++p) {
    ExpandedRun point;
    point.run.set_point(static_cast<int32_t>(p));
    point.flags = design.base;
    for (size_t d = 0; d < design.dimensions.size(); ++d) {
      for (const SourcedSetting& setting : design.dimensions[d].settings[position[d]]) {
        SweepSetting& s = *point.run.add_settings();
        s.set_flag(setting.flag);
        s.set_value(setting.value);
        point.setting_lines.push_back(setting.line);
        // Checked by the reader: the value parses as the flag's type.
        point.flags = point.flags.With(
            cli::ParseCommandLine({absl::StrCat("--", setting.flag, "=", setting.value)}, cli::SimulationFlags())
                ->flags);
      }
    }
    const uint64_t point_seed = cli::SimulateFlagGroup().Read(point.flags).seed;
    for (int r = 0; r < design.replications; ++r) {
      ExpandedRun run = point;
      run.run.set_replication(r);
      run.run.set_seed(point_seed + static_cast<uint64_t>(r));
      run.flags = point.flags.With(SeedFlag(run.run.seed()));
      absl::StatusOr<cli::SimulateOptions> options = cli::ReadSimulateOptions(run.flags);
      if (!options.ok()) return PointError(design, run, options.status());
      run.run.set_command_line(options->command_line);
      run.run.set_hash(PointHash(options->command_line));
      const int index = static_cast<int>(expanded.runs.size());
      if (first_of_hash.emplace(run.run.hash(), index).second) expanded.unique_runs.push_back(index);
      *manifest.add_runs() = run.run;
      expanded.runs.push_back(std::move(run));
    }
    for (size_t d = design.dimensions.size(); d-- > 0;) {
      if (++position[d] < design.dimensions[d].settings.size()) break;
      position[d] = 0;
    }
  }
  std::string all_hashes;
  for (const ExpandedRun& run : expanded.runs) absl::StrAppend(&all_hashes, run.run.hash(), "\n");
  manifest.set_sweep_id(PointHash(all_hashes));
  return expanded;
}

}  // namespace infergrid::sweep
