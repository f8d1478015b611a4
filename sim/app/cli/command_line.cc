#include "sim/app/cli/command_line.h"

#include <algorithm>
#include <map>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace infergrid::cli {
namespace {

// A flag named on the command line: its spec and how it was spelled (an alias, or its name).
struct NamedFlag {
  const FlagSpec* spec = nullptr;
  const FlagAlias* alias = nullptr;
  bool negated = false;  // --nobool
};

NamedFlag Lookup(const CommandFlags& flags, const std::string& name, bool has_value) {
  NamedFlag named;
  named.spec = flags.Find(name);
  if (named.spec == nullptr) {
    named.alias = flags.FindAlias(name);
    if (named.alias != nullptr) named.spec = flags.Find(named.alias->canonical);
  }
  if (named.spec == nullptr && absl::StartsWith(name, "no") && !has_value) {
    const absl::string_view positive_name = absl::string_view(name).substr(2);
    const FlagAlias* alias = flags.FindAlias(positive_name);
    const FlagSpec* positive = flags.Find(alias != nullptr ? absl::string_view(alias->canonical) : positive_name);
    if (positive != nullptr && positive->kind == FlagKind::kBool) {
      named.spec = positive;
      named.alias = alias;
      named.negated = true;
    }
  }
  return named;
}

// Python argparse's abbreviation rule: a name that is a prefix of exactly one flag or alias
// names it; a prefix of several is refused, listing them as argparse does.
absl::StatusOr<NamedFlag> LookupAbbreviation(const CommandFlags& flags, const std::string& name,
                                             absl::string_view shown) {
  NamedFlag named;
  std::vector<std::string> matches;
  for (const FlagSpec* spec : flags.specs()) {
    if (!absl::StartsWith(spec->name, name)) continue;
    matches.push_back(DashedFlag(spec->name));
    named.spec = spec;
  }
  for (const FlagAlias& alias : flags.aliases()) {
    if (!absl::StartsWith(alias.alias, name)) continue;
    matches.push_back(DashedFlag(alias.alias));
    named.alias = &alias;
    named.spec = flags.Find(alias.canonical);
  }
  if (matches.size() > 1) {
    return UsageError(absl::StrCat("ambiguous option: ", shown, " could match ", absl::StrJoin(matches, ", ")));
  }
  if (matches.empty()) return NamedFlag{};
  return named;
}

// The order in which two spellings of one flag are named in an error: aliases as declared,
// then the flag's own name.
size_t SpellingRank(const CommandFlags& flags, const std::string& spelling) {
  const std::vector<FlagAlias>& aliases = flags.aliases();
  for (size_t i = 0; i < aliases.size(); ++i) {
    if (aliases[i].alias == spelling) return i;
  }
  return aliases.size();
}

// Records one value; a flag given twice, in one spelling or two, is refused (the last value
// would silently win).
absl::Status Record(const CommandFlags& flags, const NamedFlag& named, const std::string& spelling,
                    const std::string& canonical, FlagValues& values) {
  const std::string& name = named.spec->name;
  if (const std::string* earlier = values.Given(name)) {
    const std::string first = values.Spelling(name);
    if (flags.appendable(name)) {
      values.Append(name, canonical);
      return absl::OkStatus();
    }
    if (first == spelling) {
      return UsageError(absl::StrCat("flag ", DashedFlag(spelling), " is given twice (", *earlier, " and ", canonical,
                                     "); give it once"));
    }
    const bool swap = SpellingRank(flags, spelling) < SpellingRank(flags, first);
    return UsageError(absl::StrCat(DashedFlag(swap ? spelling : first), " and ", DashedFlag(swap ? first : spelling),
                                   " are the same setting: give one"));
  }
  values.Set(name, canonical, spelling);
  return absl::OkStatus();
}

// Appends to a list flag's text the arguments after it that are list items ("--batch-size 1 8
// 16"); returns the index of the last one taken.
size_t TakeListItems(const std::vector<std::string>& args, size_t i, std::string* text) {
  std::string item;
  while (i + 1 < args.size() && !absl::StartsWith(args[i + 1], "-") &&
         IntegerListText::Canonical(args[i + 1], &item, nullptr)) {
    absl::StrAppend(text, ",", item);
    ++i;
  }
  return i;
}

}  // namespace

int ExitCodeFor(const absl::Status& status) {
  if (status.ok()) return kExitOk;
  return IsUsageError(status) ? kExitUsage : kExitBadInput;
}

absl::StatusOr<ParsedCommandLine> ParseCommandLine(const std::vector<std::string>& args, const CommandFlags& flags) {
  ParsedCommandLine parsed;
  parsed.flags.DeclaredBy(&flags);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      parsed.positional.insert(parsed.positional.end(), args.begin() + i + 1, args.end());
      break;
    }
    if (!absl::StartsWith(arg, "-") || arg == "-") {
      parsed.positional.push_back(arg);
      continue;
    }
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
    NamedFlag named = Lookup(flags, name, has_value);
    const std::string shown = absl::StrCat("--", body.substr(0, body.find('=')));
    if (named.spec == nullptr && flags.allow_abbreviations() && absl::StartsWith(arg, "--")) {
      absl::StatusOr<NamedFlag> abbreviated = LookupAbbreviation(flags, name, shown);
      if (!abbreviated.ok()) return abbreviated.status();
      named = *abbreviated;
      if (named.spec != nullptr) name = named.alias != nullptr ? named.alias->alias : named.spec->name;
    }
    if (named.spec == nullptr) {
      return UsageError(absl::StrCat("unknown flag ", shown, " for this command (see --help)"));
    }
    const std::string spelling = !named.negated ? name : named.alias != nullptr ? named.alias->alias : named.spec->name;
    if (!has_value) {
      if (named.spec->kind == FlagKind::kBool) {
        value = named.negated ? "false" : "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return UsageError(absl::StrCat("flag ", shown, " needs a value"));
      }
    }
    if (named.spec->kind == FlagKind::kIntegerList) i = TakeListItems(args, i, &value);
    std::string canonical, reason;
    if (!named.spec->canonical(value, &canonical, &reason)) {
      // Worded as Abseil's own parser words it, the flag named as typed.
      return UsageError(
          absl::StrCat("flag ", shown, ": Illegal value '", value, "'", reason.empty() ? "" : "; ", reason));
    }
    if (absl::Status s = Record(flags, named, spelling, canonical, parsed.flags); !s.ok()) return s;
  }
  for (const FlagAlias& alias : flags.aliases()) {
    if (parsed.flags.Spelling(alias.canonical) != alias.alias || !parsed.flags.IsSet(alias.canonical)) continue;
    for (const auto& [name, value] : alias.implies) {
      if (!parsed.flags.IsSet(name)) parsed.flags.Set(name, value, alias.alias);
    }
  }
  return parsed;
}

}  // namespace infergrid::cli
