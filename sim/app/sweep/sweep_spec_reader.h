// Reads a sweep spec (sim/app/sweep/sweep_spec.proto, a textproto) into a design: the base
// experiment's flags and the dimensions of the sweep, each a list of settings, every value
// already checked by simulate's own flag parser. Random blocks are drawn here (seeded, so the
// design is the same on every run and every shard). Any error names the spec file and line:
// "sweep.textproto:12: grid axis --rate: empty axis (no values)".
#ifndef INFERGRID_SIM_APP_SWEEP_SWEEP_SPEC_READER_H_
#define INFERGRID_SIM_APP_SWEEP_SWEEP_SPEC_READER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/app/cli/command_line.h"

namespace infergrid::sweep {

// Runs more than this are refused before anything is drawn or expanded (a typo in a grid, not
// a plan): checking a run costs about 0.3 ms and its manifest entry about 300 bytes, so 100,000
// runs are half a minute of checks and a 30 MB sweep.json. Larger studies are several specs.
inline constexpr int64_t kMaxSweepRuns = 100000;

// One flag set to one value, and the spec line it came from.
struct SourcedSetting {
  std::string flag;  // canonical name, underscores ("max_num_seqs")
  std::string value;  // as written (or as drawn)
  int line = 0;
};

// One dimension: a grid axis (one flag per setting), a zip (several), a random block (several,
// drawn). Every setting of a dimension sets the same flags.
struct SweepDimension {
  int line = 0;
  std::vector<std::vector<SourcedSetting>> settings;
};

struct SweepDesign {
  std::string path;  // the spec file, as given
  cli::FlagValues base;  // the base experiment's flags
  std::map<std::string, int> base_lines;  // flag -> its line in the spec
  std::vector<SweepDimension> dimensions;  // combined as a product, first slowest
  std::vector<std::string> axes;  // the varied flags, in dimension order
  int replications = 1;
};

// The simulate flags a spec may not set: the sweep writes its own outputs.
bool IsSweepOwnedFlag(absl::string_view flag);

// "--max-num-seqs", "max-num-seqs" and "max_num_seqs" all name max_num_seqs.
std::string CanonicalFlagName(absl::string_view flag);

// Reads and checks the spec at `path`. Errors are InvalidArgument (bad input, exit 1), one
// line naming path:line and the field or flag.
absl::StatusOr<SweepDesign> ReadSweepSpec(const std::string& path);

}  // namespace infergrid::sweep

#endif  // INFERGRID_SIM_APP_SWEEP_SWEEP_SPEC_READER_H_
