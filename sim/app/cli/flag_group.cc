#include "sim/app/cli/flag_group.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace infergrid::cli {
bool IntegerListText::Parse(absl::string_view text, std::vector<int64_t>* values, std::string* error) {
  values->clear();
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    int64_t value = 0;
    if (!IsDecimalNumber(item, false)) {
      if (error != nullptr) *error = absl::StrCat("'", item, "' is not an integer");
      return false;
    }
    if (!absl::SimpleAtoi(item, &value)) {
      if (error != nullptr) *error = absl::StrCat("'", item, "' is out of range for a 64-bit integer");
      return false;
    }
    values->push_back(value);
  }
  return true;
}

std::string IntegerListText::Unparse(const std::vector<int64_t>& values) { return absl::StrJoin(values, ","); }

bool IntegerListText::Canonical(absl::string_view text, std::string* canonical, std::string* error) {
  std::vector<int64_t> values;
  if (!Parse(text, &values, error)) return false;
  *canonical = Unparse(values);
  return true;
}

CommandFlags& CommandFlags::TakeAll(const CommandFlags& other, const std::vector<absl::string_view>& except) {
  for (const FlagSpec* spec : other.specs_) {
    if (std::find(except.begin(), except.end(), spec->name) == except.end()) Insert(spec);
  }
  for (const FlagAlias& alias : other.aliases_) Alias(alias);
  return *this;
}

CommandFlags& CommandFlags::Alias(FlagAlias alias) {
  Require(Find(alias.canonical), alias.canonical);
  if (Find(alias.alias) != nullptr || FindAlias(alias.alias) != nullptr) {
    std::fprintf(stderr, "infergrid: flag alias --%s declared twice in one command\n", alias.alias.c_str());
    std::abort();
  }
  aliases_.push_back(std::move(alias));
  return *this;
}

CommandFlags& CommandFlags::Help(absl::string_view name, absl::string_view help) {
  auto it = std::find_if(specs_.begin(), specs_.end(), [&](const FlagSpec* spec) { return spec->name == name; });
  Require(it == specs_.end() ? nullptr : *it, name);
  auto spec = std::make_shared<FlagSpec>(**it);
  spec->help = std::string(help);
  *it = spec.get();
  rewritten_.push_back(std::move(spec));
  return *this;
}

const FlagSpec* CommandFlags::Find(absl::string_view name) const {
  for (const FlagSpec* spec : specs_) {
    if (spec->name == name) return spec;
  }
  return nullptr;
}

const FlagAlias* CommandFlags::FindAlias(absl::string_view name) const {
  for (const FlagAlias& alias : aliases_) {
    if (alias.alias == name) return &alias;
  }
  return nullptr;
}

std::vector<absl::string_view> CommandFlags::Names() const {
  std::vector<absl::string_view> names;
  names.reserve(specs_.size());
  for (const FlagSpec* spec : specs_) names.push_back(spec->name);
  return names;
}

void CommandFlags::Insert(const FlagSpec* spec) {
  if (Find(spec->name) != nullptr) {
    std::fprintf(stderr, "infergrid: flag --%s declared twice in one command\n", spec->name.c_str());
    std::abort();
  }
  specs_.push_back(spec);
}

const FlagSpec* CommandFlags::Require(const FlagSpec* spec, absl::string_view name) {
  if (spec == nullptr) {
    std::fprintf(stderr, "infergrid: no flag --%s in the group a command takes it from\n", std::string(name).c_str());
    std::abort();
  }
  return spec;
}

std::string DashedFlag(absl::string_view name) {
  std::string dashed = absl::StrCat("--", name);
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  return dashed;
}

std::string FlagHelp(const CommandFlags& flags) {
  std::string help;
  for (const FlagSpec* spec : flags.specs()) {
    absl::StrAppend(&help, "  ", DashedFlag(spec->name), "=", spec->default_text,
                    spec->kind == FlagKind::kIntegerList ? " (one or more values)" : "", "\n      ", spec->help, "\n");
  }
  if (!flags.aliases().empty()) absl::StrAppend(&help, "\naliases:\n");
  for (const FlagAlias& alias : flags.aliases()) {
    absl::StrAppend(&help, "  ", DashedFlag(alias.alias), " is ", DashedFlag(alias.canonical));
    for (const auto& [name, value] : alias.implies) absl::StrAppend(&help, " (and ", DashedFlag(name), "=", value, ")");
    absl::StrAppend(&help, "\n");
  }
  return help;
}

}  // namespace infergrid::cli
