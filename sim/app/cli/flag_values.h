// The flags one command line gave, as canonical text by flag name (flag_value_text.h), over the
// defaults its command declares (flag_group.h). Commands read them as typed structs
// (FlagGroup::Read); the text form lets command lines be laid over one another (With).
#ifndef INFERGRID_SIM_APP_CLI_FLAG_VALUES_H_
#define INFERGRID_SIM_APP_CLI_FLAG_VALUES_H_

#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace infergrid::cli {

class CommandFlags;

class FlagValues {
 public:
  // The canonical text given for `name`, or null if the command line did not name it.
  const std::string* Given(absl::string_view name) const {
    const auto it = given_.find(name);
    return it == given_.end() ? nullptr : &it->second;
  }
  // Whether the command line named the flag (whatever the value).
  bool IsSet(absl::string_view name) const { return given_.find(name) != given_.end(); }
  // The names of the flags given, sorted.
  std::vector<std::string> GivenNames() const;
  // How the command line spelled a given flag: its alias (--tp) or its name.
  std::string Spelling(absl::string_view name) const;
  // The value as canonical text, given or the declared default ("" for an undeclared flag).
  std::string Text(absl::string_view name) const;
  // The declared default of `name` as canonical text ("" for an undeclared flag).
  std::string DefaultText(absl::string_view name) const;
  // These values without the named flags (as if the command line had not given them).
  FlagValues Without(const std::vector<std::string>& names) const;
  // These values with `overrides`' given values on top.
  FlagValues With(const FlagValues& overrides) const;

  // Records a given value (canonical text, checked by the caller); false if `name` was given
  // already. `spelling` is the alias used, if any.
  bool Set(const std::string& name, const std::string& canonical, const std::string& spelling = "");
  // Adds ",canonical" to a value given already (an appendable flag given again,
  // CommandFlags::Appendable).
  void Append(const std::string& name, const std::string& canonical);
  // Declares where the defaults of these values come from.
  void DeclaredBy(const CommandFlags* flags) { declared_.push_back(flags); }

 private:
  std::map<std::string, std::string, std::less<>> given_;  // flag name -> canonical text
  std::map<std::string, std::string, std::less<>> spelling_;  // flag name -> alias used
  std::vector<const CommandFlags*> declared_;
};

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_FLAG_VALUES_H_
