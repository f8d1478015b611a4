#include "sim/app/sweep/sweep_spec_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/textproto.h"
#include "google/protobuf/text_format.h"
#include "sim/app/cli/simulate_flags.h"
#include "sim/app/sweep/sweep_spec.pb.h"
#include "traces/random_streams.h"

namespace infergrid::sweep {
namespace {

using Tree = google::protobuf::TextFormat::ParseInfoTree;

constexpr double kMaxIntegerRange = 9007199254740992.0;  // 2^53
using Location = google::protobuf::TextFormat::ParseLocation;

absl::Status SpecError(const std::string& path, int line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ":", line, ": ", what));
}

// Where the fields of one message were written. A list (`values: ["a", "b"]`) records one
// location for all its values, so a value without its own falls back to the nearest earlier
// one, and a field never written to the message's own line.
class Lines {
 public:
  Lines(const Tree* tree, const google::protobuf::Message& message, int own_line)
      : tree_(tree), descriptor_(message.GetDescriptor()), own_line_(own_line) {}

  // The 1-based line of value `index` of `field` (-1: a singular field).
  int Of(absl::string_view field, int index = -1) const {
    const google::protobuf::FieldDescriptor* f = descriptor_->FindFieldByName(std::string(field));
    if (tree_ == nullptr || f == nullptr) return own_line_;
    if (index < 0) {
      const Location location = tree_->GetLocation(f, -1);
      return location.line >= 0 ? location.line + 1 : own_line_;
    }
    for (int i = index; i >= 0; --i) {
      const Location location = tree_->GetLocation(f, i);
      if (location.line >= 0) return location.line + 1;
    }
    return own_line_;
  }
  // The lines of nested message `index` of `field`.
  Lines Nested(absl::string_view field, int index, const google::protobuf::Message& nested) const {
    const google::protobuf::FieldDescriptor* f = descriptor_->FindFieldByName(std::string(field));
    const Tree* tree = tree_ == nullptr || f == nullptr ? nullptr : tree_->GetTreeForNested(f, index);
    return Lines(tree, nested, Of(field, index));
  }

 private:
  const Tree* tree_;
  const google::protobuf::Descriptor* descriptor_;
  int own_line_;
};

bool IsSimulateFlag(absl::string_view name) { return cli::SimulationFlags().Find(name) != nullptr; }

// A varied flag's name, checked: a simulate flag the sweep does not own.
absl::StatusOr<std::string> CheckedFlag(const std::string& path, int line, absl::string_view where,
                                        absl::string_view raw) {
  if (raw.empty()) return SpecError(path, line, absl::StrCat(where, ": no flag"));
  const std::string flag = CanonicalFlagName(raw);
  if (!IsSimulateFlag(flag)) {
    return SpecError(path, line, absl::StrCat(where, ": unknown simulate flag ", cli::DashedFlag(flag)));
  }
  if (IsSweepOwnedFlag(flag)) {
    return SpecError(path, line,
                     absl::StrCat(where, ": ", cli::DashedFlag(flag),
                                  " is the sweep's own (every run writes its summary.json "
                                  "under --out); remove it"));
  }
  return flag;
}

// A value for `flag`, checked by simulate's parser as if given on the command line.
absl::Status CheckValue(const std::string& path, int line, absl::string_view where, const std::string& flag,
                        const std::string& value) {
  absl::StatusOr<cli::ParsedCommandLine> parsed =
      cli::ParseCommandLine({absl::StrCat("--", flag, "=", value)}, cli::SimulationFlags());
  if (!parsed.ok()) return SpecError(path, line, absl::StrCat(where, ": ", parsed.status().message()));
  return absl::OkStatus();
}

// One list of values for one flag (a grid axis, or one list of a zip).
absl::StatusOr<std::vector<SourcedSetting>> ReadAxis(const std::string& path, const SweepAxis& axis, const Lines& lines,
                                                     absl::string_view kind) {
  const int line = lines.Of("flag");
  absl::StatusOr<std::string> flag = CheckedFlag(path, line, kind, axis.flag());
  if (!flag.ok()) return flag.status();
  const std::string where = absl::StrCat(kind, " ", cli::DashedFlag(*flag));
  if (axis.values().empty()) return SpecError(path, line, absl::StrCat(where, ": empty axis (no values)"));
  std::vector<SourcedSetting> settings;
  for (int i = 0; i < axis.values_size(); ++i) {
    const int value_line = lines.Of("values", i);
    if (absl::Status s = CheckValue(path, value_line, where, *flag, axis.values(i)); !s.ok()) return s;
    settings.push_back({*flag, axis.values(i), value_line});
  }
  return settings;
}

bool IsIntegerFlag(const std::string& flag) {
  const cli::FlagSpec* spec = cli::SimulationFlags().Find(flag);
  return spec != nullptr && spec->kind == cli::FlagKind::kInteger;
}

bool IsDoubleFlag(const std::string& flag) {
  const cli::FlagSpec* spec = cli::SimulationFlags().Find(flag);
  return spec != nullptr && spec->kind == cli::FlagKind::kReal;
}

// The draws of one random axis: `samples` values from its own stream (seeded by the block's
// seed, the block's position and the flag), so adding an axis leaves the others' draws as
// they were.
absl::StatusOr<std::vector<SourcedSetting>> DrawAxis(const std::string& path, const SweepRandomAxis& axis,
                                                     const Lines& lines, int block, const SweepRandom& random) {
  const int line = lines.Of("flag");
  absl::StatusOr<std::string> flag = CheckedFlag(path, line, "random axis", axis.flag());
  if (!flag.ok()) return flag.status();
  const std::string where = absl::StrCat("random axis ", cli::DashedFlag(*flag));
  const bool has_range = axis.has_range();
  const bool has_choices = !axis.choices().empty();
  if (has_range == has_choices) {
    return SpecError(path, line, absl::StrCat(where, ": give either a range or choices"));
  }
  if (has_choices) {
    for (int i = 0; i < axis.choices_size(); ++i) {
      if (absl::Status s = CheckValue(path, lines.Of("choices", i), where, *flag, axis.choices(i)); !s.ok()) {
        return s;
      }
    }
  } else {
    const SweepRange& range = axis.range();
    const int range_line = lines.Of("range");
    if (!IsDoubleFlag(*flag) && !IsIntegerFlag(*flag)) {
      return SpecError(path, range_line, absl::StrCat(where, ": not a numeric flag; give choices"));
    }
    if (IsIntegerFlag(*flag) && !range.integer()) {
      return SpecError(path, range_line, absl::StrCat(where, ": an integer flag; set `integer: true` in its range"));
    }
    if (!std::isfinite(range.min()) || !std::isfinite(range.max()) || !(range.min() <= range.max()) ||
        !std::isfinite(range.max() - range.min())) {
      return SpecError(
          path, range_line,
          absl::StrCat(where, ": range needs finite min <= max, got [", range.min(), ", ", range.max(), "]"));
    }
    // An integer draw is rounded to 64 bits: past 2^53 a double no longer holds every integer, and
    // past 2^63 the rounding would wrap.
    if (range.integer() && (std::abs(range.min()) > kMaxIntegerRange || std::abs(range.max()) > kMaxIntegerRange)) {
      return SpecError(path, range_line,
                       absl::StrCat(where, ": an integer range must lie within -2^53..2^53, got [", range.min(), ", ",
                                    range.max(), "]"));
    }
    if (range.log_scale() && !(range.min() > 0)) {
      return SpecError(path, range_line, absl::StrCat(where, ": a log_scale range needs min > 0"));
    }
  }
  RandomStream stream(random.seed(), absl::StrCat("sweep.random.", block, ".", *flag));
  std::vector<SourcedSetting> draws;
  for (int s = 0; s < random.samples(); ++s) {
    const double u = stream.Uniform();  // in (0, 1)
    std::string value;
    if (has_choices) {
      const int n = axis.choices_size();
      value = axis.choices(std::min(n - 1, static_cast<int>(u * n)));
    } else {
      const SweepRange& range = axis.range();
      const double x = range.log_scale()
                           ? std::exp(std::log(range.min()) + u * (std::log(range.max()) - std::log(range.min())))
                           : range.min() + u * (range.max() - range.min());
      value = range.integer() ? absl::StrCat(std::llround(x)) : absl::StrFormat("%.8g", x);
      if (absl::Status st = CheckValue(path, line, where, *flag, value); !st.ok()) return st;
    }
    draws.push_back({*flag, value, line});
  }
  return draws;
}

// The base experiment: one simulate flag per entry.
absl::Status ReadBase(const std::string& path, const SweepSpec& spec, const Lines& lines, SweepDesign& design) {
  for (int i = 0; i < spec.base_size(); ++i) {
    const std::string& entry = spec.base(i);
    const int line = lines.Of("base", i);
    if (!absl::StartsWith(entry, "-")) {
      return SpecError(path, line,
                       absl::StrCat("base: expected one simulate flag such as \"--rate=4\", got '", entry, "'"));
    }
    absl::StatusOr<cli::ParsedCommandLine> parsed = cli::ParseCommandLine({entry}, cli::SimulationFlags());
    if (!parsed.ok()) return SpecError(path, line, absl::StrCat("base: ", parsed.status().message()));
    if (parsed->help || !parsed->positional.empty() || parsed->flags.GivenNames().size() != 1) {
      return SpecError(path, line,
                       absl::StrCat("base: expected one simulate flag such as \"--rate=4\", got '", entry, "'"));
    }
    const std::string flag = parsed->flags.GivenNames()[0];
    if (IsSweepOwnedFlag(flag)) {
      return SpecError(path, line,
                       absl::StrCat("base: ", cli::DashedFlag(flag),
                                    " is the sweep's own (every run writes its summary.json "
                                    "under --out); remove it"));
    }
    if (const auto it = design.base_lines.find(flag); it != design.base_lines.end()) {
      return SpecError(
          path, line,
          absl::StrCat("base: ", cli::DashedFlag(flag), " is set twice (lines ", it->second, " and ", line, ")"));
    }
    design.base_lines[flag] = line;
    design.base = design.base.With(parsed->flags);
  }
  return absl::OkStatus();
}

// Every flag is varied by one dimension at most: two would contradict each other.
absl::Status CheckDistinctAxes(const std::string& path, SweepDesign& design) {
  std::map<std::string, int> seen;
  for (const SweepDimension& dimension : design.dimensions) {
    for (const SourcedSetting& setting : dimension.settings.front()) {
      if (const auto it = seen.find(setting.flag); it != seen.end()) {
        return SpecError(path, setting.line,
                         absl::StrCat(cli::DashedFlag(setting.flag), " is varied twice (lines ", it->second, " and ",
                                      setting.line, ")"));
      }
      seen[setting.flag] = setting.line;
      design.axes.push_back(setting.flag);
    }
  }
  return absl::OkStatus();
}

// settings[i] of every list, side by side: the zip of `lists` (equal lengths checked).
std::vector<std::vector<SourcedSetting>> Transpose(const std::vector<std::vector<SourcedSetting>>& lists) {
  std::vector<std::vector<SourcedSetting>> settings(lists.front().size());
  for (const std::vector<SourcedSetting>& list : lists) {
    for (size_t i = 0; i < list.size(); ++i) settings[i].push_back(list[i]);
  }
  return settings;
}

absl::Status ReadDimensions(const std::string& path, const SweepSpec& spec, const Lines& lines, SweepDesign& design) {
  for (int i = 0; i < spec.grid_size(); ++i) {
    absl::StatusOr<std::vector<SourcedSetting>> axis =
        ReadAxis(path, spec.grid(i), lines.Nested("grid", i, spec.grid(i)), "grid axis");
    if (!axis.ok()) return axis.status();
    SweepDimension dimension{lines.Of("grid", i), {}};
    for (const SourcedSetting& setting : *axis) dimension.settings.push_back({setting});
    design.dimensions.push_back(std::move(dimension));
  }
  for (int i = 0; i < spec.zip_size(); ++i) {
    const SweepZip& zip = spec.zip(i);
    const Lines zip_lines = lines.Nested("zip", i, zip);
    const int line = lines.Of("zip", i);
    if (zip.axis().empty()) return SpecError(path, line, "zip: no axis");
    std::vector<std::vector<SourcedSetting>> lists;
    for (int a = 0; a < zip.axis_size(); ++a) {
      absl::StatusOr<std::vector<SourcedSetting>> axis =
          ReadAxis(path, zip.axis(a), zip_lines.Nested("axis", a, zip.axis(a)), "zip axis");
      if (!axis.ok()) return axis.status();
      if (!lists.empty() && axis->size() != lists.front().size()) {
        return SpecError(path, zip_lines.Of("axis", a),
                         absl::StrCat("zip axis ", cli::DashedFlag(axis->front().flag), ": ", axis->size(),
                                      " values, but ", cli::DashedFlag(lists.front().front().flag), " has ",
                                      lists.front().size(), " (zipped lists advance together)"));
      }
      lists.push_back(*std::move(axis));
    }
    design.dimensions.push_back({line, Transpose(lists)});
  }
  for (int i = 0; i < spec.random_size(); ++i) {
    const SweepRandom& random = spec.random(i);
    const Lines random_lines = lines.Nested("random", i, random);
    const int line = lines.Of("random", i);
    if (random.samples() <= 0 || random.samples() > kMaxSweepRuns) {
      return SpecError(path, random_lines.Of("samples"),
                       absl::StrCat("random: samples must be 1..", kMaxSweepRuns, " (the runs a sweep may have), got ",
                                    random.samples()));
    }
    if (random.axis().empty()) return SpecError(path, line, "random: no axis");
    std::vector<std::vector<SourcedSetting>> lists;
    for (int a = 0; a < random.axis_size(); ++a) {
      absl::StatusOr<std::vector<SourcedSetting>> draws =
          DrawAxis(path, random.axis(a), random_lines.Nested("axis", a, random.axis(a)), i, random);
      if (!draws.ok()) return draws.status();
      lists.push_back(*std::move(draws));
    }
    design.dimensions.push_back({line, Transpose(lists)});
  }
  return CheckDistinctAxes(path, design);
}

}  // namespace

bool IsSweepOwnedFlag(absl::string_view flag) { return flag == "out" || flag == "outputs" || flag == "format"; }

std::string CanonicalFlagName(absl::string_view flag) {
  while (absl::StartsWith(flag, "-")) flag.remove_prefix(1);
  std::string name(flag);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

absl::StatusOr<SweepDesign> ReadSweepSpec(const std::string& path) {
  SweepSpec spec;
  Tree tree;
  if (absl::Status s = ReadTextProtoFile(path, &spec, &tree); !s.ok()) {
    return absl::InvalidArgumentError(s.message());  // a spec that cannot be read is bad input
  }
  const Lines lines(&tree, spec, 1);
  SweepDesign design;
  design.path = path;
  if (spec.replications() < 0 || spec.replications() > 100000) {
    return SpecError(path, lines.Of("replications"),
                     absl::StrCat("replications: expected 1..100000, got ", spec.replications()));
  }
  design.replications = spec.replications() == 0 ? 1 : spec.replications();
  if (absl::Status s = ReadBase(path, spec, lines, design); !s.ok()) return s;
  if (absl::Status s = ReadDimensions(path, spec, lines, design); !s.ok()) return s;
  return design;
}

}  // namespace infergrid::sweep
