#include "sim/app/cli/command_line.h"

#include <algorithm>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/decimal_number.h"

namespace infergrid::cli {
namespace {

constexpr absl::string_view kUsagePayload = "infergrid/usage";

bool Allowed(const std::vector<absl::string_view>& allowed, absl::string_view name) {
  return std::find(allowed.begin(), allowed.end(), name) != allowed.end();
}

// Parses `text` as T and writes its canonical text; false (with Abseil's reason) if it does
// not parse.
template <typename T>
bool Canonical(absl::string_view text, std::string* canonical, std::string* error) {
  T value{};
  if (!absl::ParseFlag(text, &value, error)) return false;
  *canonical = absl::UnparseFlag(value);
  return true;
}

}  // namespace

namespace {

// The flag types InferGrid defines. A number must be spelled in decimal (IsDecimalNumber):
// Abseil's parsers also take hexadecimal (0x10 = 16), "inf" and "nan", which no flag means.
bool CanonicalFor(const absl::CommandLineFlag& flag, absl::string_view text, std::string* canonical,
                  std::string* error) {
  if (flag.IsOfType<bool>()) return Canonical<bool>(text, canonical, error);
  const bool integer = flag.IsOfType<int32_t>() || flag.IsOfType<int64_t>() || flag.IsOfType<uint64_t>();
  if ((integer || flag.IsOfType<double>()) && !IsDecimalNumber(text, !integer)) {
    *error = integer ? "not a decimal integer" : "not a decimal number (digits, an optional fraction and exponent)";
    return false;
  }
  if (flag.IsOfType<int32_t>()) return Canonical<int32_t>(text, canonical, error);
  if (flag.IsOfType<int64_t>()) return Canonical<int64_t>(text, canonical, error);
  if (flag.IsOfType<uint64_t>()) return Canonical<uint64_t>(text, canonical, error);
  if (flag.IsOfType<double>()) return Canonical<double>(text, canonical, error);
  if (flag.IsOfType<std::string>()) return Canonical<std::string>(text, canonical, error);
  *error = "unsupported flag type";
  return false;
}

}  // namespace

std::string FlagValues::Text(absl::string_view name) const {
  const auto it = given_.find(std::string(name));
  if (it != given_.end()) return it->second;
  const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  return flag == nullptr ? "" : flag->DefaultValue();
}

FlagValues FlagValues::With(const FlagValues& overrides) const {
  FlagValues merged = *this;
  for (const auto& [name, value] : overrides.given_) merged.given_[name] = value;
  return merged;
}

absl::Status UsageError(absl::string_view message) {
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kUsagePayload, absl::Cord("1"));
  return status;
}

int ExitCodeFor(const absl::Status& status) {
  if (status.ok()) return kExitOk;
  return status.GetPayload(kUsagePayload).has_value() ? kExitUsage : kExitBadInput;
}

absl::StatusOr<ParsedCommandLine> ParseCommandLine(const std::vector<std::string>& args,
                                                   const std::vector<absl::string_view>& allowed) {
  ParsedCommandLine parsed;
  std::string after;  // the flag whose value was the previous argument, if given separately
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      parsed.positional.insert(parsed.positional.end(), args.begin() + i + 1, args.end());
      parsed.positional_after_flag.resize(parsed.positional.size());
      break;
    }
    if (!absl::StartsWith(arg, "-") || arg == "-") {
      parsed.positional.push_back(arg);
      parsed.positional_after_flag.push_back(after);
      continue;
    }
    after.clear();
    absl::string_view body = arg;
    body.remove_prefix(absl::StartsWith(body, "--") ? 2 : 1);
    if (body == "help" || body == "h") {
      parsed.help = true;
      continue;
    }
    std::string name(body);
    std::string value;
    bool has_value = false;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    std::replace(name.begin(), name.end(), '-', '_');  // --kv-cache-dtype == --kv_cache_dtype
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    bool negated = false;
    if ((flag == nullptr || !Allowed(allowed, name)) && absl::StartsWith(name, "no") && !has_value) {
      absl::CommandLineFlag* positive = absl::FindCommandLineFlag(name.substr(2));
      if (positive != nullptr && positive->IsOfType<bool>() && Allowed(allowed, name.substr(2))) {
        flag = positive;
        name = name.substr(2);
        negated = true;
      }
    }
    const std::string shown = absl::StrCat("--", body.substr(0, body.find('=')));
    if (flag == nullptr || !Allowed(allowed, name)) {
      return UsageError(absl::StrCat("unknown flag ", shown, " for this command (see --help)"));
    }
    if (!has_value) {
      if (flag->IsOfType<bool>()) {
        value = negated ? "false" : "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
        after = name;
      } else {
        return UsageError(absl::StrCat("flag ", shown, " needs a value"));
      }
    }
    std::string canonical, reason;
    if (!CanonicalFor(*flag, value, &canonical, &reason)) {
      // Worded as Abseil's own parser words it.
      return UsageError(absl::StrCat("flag ", shown, ": Illegal value '", value, "' specified for flag '",
                                     name, "'", reason.empty() ? "" : "; ", reason));
    }
    // A repeated flag is a mistake the last value would hide (--rate=5 ... --rate=50).
    if (const auto [it, inserted] = parsed.flags.given_.emplace(name, canonical); !inserted) {
      return UsageError(absl::StrCat("flag ", shown, " is given twice (", it->second, " and ", canonical,
                                     "); give it once"));
    }
  }
  return parsed;
}

std::string FlagHelp(const std::vector<absl::string_view>& allowed) {
  std::string help;
  for (absl::string_view name : allowed) {
    const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr) continue;
    std::string dashed(name);
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    absl::StrAppend(&help, "  --", dashed, "=", flag->DefaultValue(), "\n      ", flag->Help(), "\n");
  }
  return help;
}

}  // namespace infergrid::cli
