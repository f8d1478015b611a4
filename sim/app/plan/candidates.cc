#include "sim/app/plan/candidates.h"

#include <cstdint>
#include <functional>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/decimal_number.h"

namespace infergrid::plan {

absl::StatusOr<std::vector<std::string>> ParseList(absl::string_view text, absl::string_view flag) {
  std::vector<std::string> values;
  if (absl::StripAsciiWhitespace(text).empty()) return values;
  for (absl::string_view raw : absl::StrSplit(text, ',')) {
    const absl::string_view value = absl::StripAsciiWhitespace(raw);
    if (value.empty()) return absl::InvalidArgumentError(absl::StrCat("--", flag, ": empty value in '", text, "'"));
    for (const std::string& earlier : values) {
      if (earlier == value) return absl::InvalidArgumentError(absl::StrCat("--", flag, ": '", value, "' listed twice"));
    }
    values.emplace_back(value);
  }
  return values;
}

absl::StatusOr<std::vector<int32_t>> ParsePositiveInts(absl::string_view text, absl::string_view flag) {
  absl::StatusOr<std::vector<std::string>> values = ParseList(text, flag);
  if (!values.ok()) return values.status();
  std::vector<int32_t> numbers;
  for (const std::string& value : *values) {
    // Read in 64 bits: an int32 read refused 3000000000 as "not a positive integer".
    int64_t n = 0;
    const bool decimal = IsDecimalNumber(value, false);
    const bool read = decimal && absl::SimpleAtoi(value, &n);
    if (!decimal || (read && n < 1) || (!read && absl::StartsWith(value, "-"))) {
      return absl::InvalidArgumentError(absl::StrCat("--", flag, ": '", value, "' is not a positive integer"));
    }
    if (!read || n > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, ": '", value, "' is out of range for a 32-bit integer"));
    }
    numbers.push_back(static_cast<int32_t>(n));
  }
  return numbers;
}

absl::StatusOr<std::vector<Candidate>> ExpandCandidates(const CandidateAxes& axes, size_t limit) {
  // Each axis as (flag, label prefix, values as text); an empty axis contributes nothing.
  struct Axis {
    const char* flag;
    const char* label;
    std::vector<std::string> values;
  };
  std::vector<Axis> list;
  auto add = [&](const char* flag, const char* label, std::vector<std::string> values) {
    if (!values.empty()) list.push_back({flag, label, std::move(values)});
  };
  auto texts = [](const auto& numbers) {
    std::vector<std::string> out;
    for (const auto n : numbers) out.push_back(absl::StrCat(n));
    return out;
  };
  add("gpu", "", axes.gpus);
  add("tensor_parallel_size", "tp", texts(axes.tensor_parallel));
  add("num_replicas", "x", texts(axes.replicas));
  add("weight_dtype", "w=", axes.weight_dtypes);
  add("kv_cache_dtype", "kv=", axes.kv_dtypes);
  add("engine", "", axes.engines);
  add("scheduler", "sched=", axes.schedulers);
  add("max_num_seqs", "seqs=", texts(axes.max_num_seqs));

  size_t total = 1;
  for (const Axis& axis : list) {
    total *= axis.values.size();
    if (total > limit) {
      return absl::InvalidArgumentError(
          absl::StrCat("the candidate axes multiply to more than ", limit, " deployments; list fewer values"));
    }
  }
  std::vector<Candidate> candidates;
  std::vector<size_t> index(list.size(), 0);
  for (size_t n = 0; n < total; ++n) {
    Candidate c;
    std::vector<std::string> parts;
    for (size_t a = 0; a < list.size(); ++a) {
      const std::string& value = list[a].values[index[a]];
      c.flags.emplace_back(list[a].flag, value);
      parts.push_back(absl::StrCat(list[a].label, value));
      const absl::string_view flag = list[a].flag;
      if (flag == "gpu") c.gpu = value;
      if (flag == "tensor_parallel_size") (void)absl::SimpleAtoi(value, &c.tensor_parallel);
      if (flag == "num_replicas") (void)absl::SimpleAtoi(value, &c.replicas);
    }
    c.label = parts.empty() ? "as given" : absl::StrJoin(parts, " ");
    candidates.push_back(std::move(c));
    // Advance like an odometer, the last axis fastest.
    for (size_t a = list.size(); a-- > 0;) {
      if (++index[a] < list[a].values.size()) break;
      index[a] = 0;
    }
  }
  return candidates;
}

}  // namespace infergrid::plan
