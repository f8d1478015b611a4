#include "sim/app/sweep/sweep_shard.h"

#include <cstdint>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "sim/app/cli/command_line.h"

namespace infergrid::sweep {
namespace {

constexpr int kMaxShards = 1000000;

absl::StatusOr<Shard> Checked(int64_t index, int64_t count, absl::string_view source, absl::string_view shown) {
  if (count < 1 || count > kMaxShards || index < 0 || index >= count) {
    return cli::UsageError(absl::StrCat(shown, ": expected a shard I of N with 0 <= I < N <= ", kMaxShards));
  }
  return Shard{static_cast<int>(index), static_cast<int>(count), std::string(source)};
}

// The integer value of variable `name`; an unset or non-integer one is an error naming it.
absl::StatusOr<int64_t> IntegerVariable(const std::function<const char*(const char*)>& getenv, const char* name,
                                        absl::string_view needed_by) {
  const char* text = getenv(name);
  int64_t value = 0;
  if (text == nullptr) {
    return cli::UsageError(absl::StrCat(needed_by, " is set but ", name, " is not (or pass --shard=I/N)"));
  }
  if (!absl::SimpleAtoi(text, &value)) {
    return cli::UsageError(absl::StrCat(name, "='", text, "': expected an integer"));
  }
  return value;
}

}  // namespace

absl::StatusOr<Shard> ParseShard(absl::string_view text) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, '/');
  int64_t index = 0, count = 0;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &index) || !absl::SimpleAtoi(parts[1], &count)) {
    return cli::UsageError(absl::StrCat("--shard='", text, "': expected I/N, e.g. --shard=0/4"));
  }
  return Checked(index, count, "--shard", absl::StrCat("--shard=", text));
}

absl::StatusOr<Shard> ShardFromEnvironment(const std::function<const char*(const char*)>& getenv) {
  if (getenv("SLURM_ARRAY_TASK_ID") != nullptr) {
    absl::StatusOr<int64_t> id = IntegerVariable(getenv, "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_ID");
    if (!id.ok()) return id.status();
    absl::StatusOr<int64_t> count = IntegerVariable(getenv, "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_ID");
    if (!count.ok()) return count.status();
    // --array=1-4 numbers its tasks from 1: the shard is the offset from the first.
    int64_t min = 0;
    if (getenv("SLURM_ARRAY_TASK_MIN") != nullptr) {
      absl::StatusOr<int64_t> m = IntegerVariable(getenv, "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_ID");
      if (!m.ok()) return m.status();
      min = *m;
    }
    return Checked(*id - min, *count, "SLURM_ARRAY_TASK_ID",
                   absl::StrCat("SLURM_ARRAY_TASK_ID=", *id, " (min ", min, ") of SLURM_ARRAY_TASK_COUNT=", *count,
                                " (an array with steps, --array=0-9:2, needs --shard)"));
  }
  if (getenv("JOB_COMPLETION_INDEX") != nullptr) {
    absl::StatusOr<int64_t> index = IntegerVariable(getenv, "JOB_COMPLETION_INDEX", "JOB_COMPLETION_INDEX");
    if (!index.ok()) return index.status();
    absl::StatusOr<int64_t> count = IntegerVariable(getenv, "JOB_COMPLETIONS", "JOB_COMPLETION_INDEX");
    if (!count.ok()) return count.status();
    return Checked(*index, *count, "JOB_COMPLETION_INDEX",
                   absl::StrCat("JOB_COMPLETION_INDEX=", *index, " of JOB_COMPLETIONS=", *count));
  }
  return Shard{};
}

}  // namespace infergrid::sweep
