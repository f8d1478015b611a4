#include "sim/app/cli/flag_values.h"

#include "sim/app/cli/flag_group.h"

namespace infergrid::cli {

std::vector<std::string> FlagValues::GivenNames() const {
  std::vector<std::string> names;
  names.reserve(given_.size());
  for (const auto& entry : given_) names.push_back(entry.first);
  return names;
}

std::string FlagValues::Spelling(absl::string_view name) const {
  const auto it = spelling_.find(name);
  return it == spelling_.end() ? std::string(name) : it->second;
}

std::string FlagValues::Text(absl::string_view name) const {
  if (const std::string* given = Given(name)) return *given;
  return DefaultText(name);
}

std::string FlagValues::DefaultText(absl::string_view name) const {
  for (const CommandFlags* flags : declared_) {
    if (const FlagSpec* spec = flags->Find(name)) return spec->default_text;
  }
  return "";
}

FlagValues FlagValues::Without(const std::vector<std::string>& names) const {
  FlagValues kept = *this;
  for (const std::string& name : names) {
    kept.given_.erase(name);
    kept.spelling_.erase(name);
  }
  return kept;
}

FlagValues FlagValues::With(const FlagValues& overrides) const {
  FlagValues merged = *this;
  for (const auto& [name, value] : overrides.given_) {
    merged.given_[name] = value;
    merged.spelling_.erase(name);
  }
  for (const auto& [name, spelling] : overrides.spelling_) merged.spelling_[name] = spelling;
  for (const CommandFlags* flags : overrides.declared_) merged.declared_.push_back(flags);
  return merged;
}

bool FlagValues::Set(const std::string& name, const std::string& canonical, const std::string& spelling) {
  if (!given_.emplace(name, canonical).second) return false;
  if (!spelling.empty() && spelling != name) spelling_[name] = spelling;
  return true;
}

void FlagValues::Append(const std::string& name, const std::string& canonical) {
  auto it = given_.find(name);
  if (it == given_.end()) {
    given_.emplace(name, canonical);
  } else {
    it->second += "," + canonical;
  }
}

}  // namespace infergrid::cli
