// Typed flag declarations. A group of flags is a struct of values (its members' initializers are
// the defaults) and one declaration that names each member's flag and help:
//
//   struct TrainFlags { int64_t num_gpus = 1; double mfu = 0; };
//   const FlagGroup<TrainFlags>& TrainFlagGroup() {
//     static const auto* group = &(*new FlagGroup<TrainFlags>())
//         .Add("num_gpus", &TrainFlags::num_gpus, "number of GPUs G training together")
//         .Add("mfu", &TrainFlags::mfu, "model FLOPs utilisation");
//     return *group;
//   }
//
// A command declares the groups (or the members of a group) it accepts in a CommandFlags, which
// the parser, --help and the Python module read; a command reads its values as the group's
// struct (Read). Nothing is global: two commands may each declare a flag of the same name with
// their own meaning and help (`--out`), and one process may parse several command lines.
#ifndef INFERGRID_SIM_APP_CLI_FLAG_GROUP_H_
#define INFERGRID_SIM_APP_CLI_FLAG_GROUP_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/string_view.h"
#include "sim/app/cli/flag_value_text.h"
#include "sim/app/cli/flag_values.h"

namespace infergrid::cli {

// What a flag's value is.
enum class FlagKind {
  kBool,  // --name alone means true, --noname false
  kInteger,  // int32_t, int64_t or uint64_t
  kReal,  // double
  kText,  // std::string
  kIntegerList,  // one or more integers, as Python's nargs="+": --batch-size 1 8 16 (the
  // arguments after the first that parse as integers) or --batch-size=1,8,16
};

template <typename T>
constexpr FlagKind KindOf() {
  if constexpr (std::is_same_v<T, bool>) return FlagKind::kBool;
  if constexpr (std::is_integral_v<T>) return FlagKind::kInteger;
  if constexpr (std::is_floating_point_v<T>) return FlagKind::kReal;
  return FlagKind::kText;
}

// One flag as the parser and --help see it.
struct FlagSpec {
  std::string name;  // snake_case; given as --name or --na-me
  std::string help;
  std::string default_text;  // canonical text of the default
  FlagKind kind = FlagKind::kText;
  // Canonical text of `text` (CanonicalFlagText), or false with the reason.
  bool (*canonical)(absl::string_view text, std::string* canonical, std::string* error) = nullptr;
};

// The declaration of a struct of flag values. Options must be default-constructible; its
// members' default initializers are the flags' defaults.
template <typename Options>
class FlagGroup {
 public:
  // A flag of type bool, int32_t, int64_t, uint64_t, double or std::string.
  template <typename T>
  FlagGroup& Add(absl::string_view name, T Options::*member, absl::string_view help) {
    FlagSpec spec{.name = std::string(name),
                  .help = std::string(help),
                  .default_text = FlagText<T>::Unparse(Options{}.*member),
                  .kind = KindOf<T>(),
                  .canonical = &FlagText<T>::Canonical};
    specs_.push_back(std::move(spec));
    setters_.push_back(
        [member](Options& options, absl::string_view text) { FlagText<T>::Parse(text, &(options.*member)); });
    return *this;
  }
  // A list flag of integers (Python's nargs="+", with int items).
  FlagGroup& AddList(absl::string_view name, std::vector<int64_t> Options::*member, absl::string_view help) {
    FlagSpec spec{.name = std::string(name),
                  .help = std::string(help),
                  .default_text = IntegerListText::Unparse(Options{}.*member),
                  .kind = FlagKind::kIntegerList,
                  .canonical = &IntegerListText::Canonical};
    specs_.push_back(std::move(spec));
    setters_.push_back(
        [member](Options& options, absl::string_view text) { IntegerListText::Parse(text, &(options.*member)); });
    return *this;
  }

  // The values `values` gives for this group's flags, the defaults for the others. Values were
  // checked when parsed, so reading cannot fail.
  Options Read(const FlagValues& values) const {
    Options options;
    for (size_t i = 0; i < specs_.size(); ++i) {
      if (const std::string* text = values.Given(specs_[i].name)) setters_[i](options, *text);
    }
    return options;
  }

  const std::vector<FlagSpec>& specs() const { return specs_; }
  // The spec of `name`, or null.
  const FlagSpec* Find(absl::string_view name) const {
    for (const FlagSpec& spec : specs_) {
      if (spec.name == name) return &spec;
    }
    return nullptr;
  }

 private:
  std::vector<FlagSpec> specs_;
  std::vector<std::function<void(Options&, absl::string_view)>> setters_;
};

// Another spelling of a flag (SGLang's --tp for --tensor-parallel-size). Giving both, or two
// aliases of one flag, is a usage error. `implies` are flag=value settings applied with the
// alias unless given themselves (vLLM's old --dataset=PATH also means --dataset-name=sharegpt).
struct FlagAlias {
  std::string alias;
  std::string canonical;
  std::vector<std::pair<std::string, std::string>> implies = {};
};

// The flags one command accepts, in --help order, and their aliases.
class CommandFlags {
 public:
  CommandFlags() = default;
  // Every flag of the group.
  template <typename Options>
  CommandFlags& Take(const FlagGroup<Options>& group) {
    for (const FlagSpec& spec : group.specs()) Insert(&spec);
    return *this;
  }
  // The named flags of the group (each must exist in it).
  template <typename Options>
  CommandFlags& Take(const FlagGroup<Options>& group, const std::vector<absl::string_view>& names) {
    for (absl::string_view name : names) Insert(Require(group.Find(name), name));
    return *this;
  }
  // One flag of a group (FlagGroup::Find), which must not be null.
  CommandFlags& Take(const FlagSpec& spec) {
    Insert(&spec);
    return *this;
  }
  // Every flag of `other` but those named in `except`.
  CommandFlags& TakeAll(const CommandFlags& other, const std::vector<absl::string_view>& except = {});
  CommandFlags& Alias(FlagAlias alias);
  // This command's help for a flag it took (which must be there): a flag shared by commands
  // whose group's help was written for one of them (memory's --engine "whose KV-cache plan to
  // print" is the engine simulate runs). The name, default and parsing stay the group's.
  CommandFlags& Help(absl::string_view name, absl::string_view help);
  // Accept a unique prefix of a flag's or an alias's name as that flag, as Python's argparse
  // does (allow_abbrev): the command mirrors Python tools whose users type abbreviations.
  CommandFlags& AllowAbbreviations() {
    allow_abbreviations_ = true;
    return *this;
  }
  bool allow_abbreviations() const { return allow_abbreviations_; }
  // A text flag that may be given more than once, its values joined with commas, as a Python
  // tool's list option (aiperf's --extra-inputs max_tokens:64 --extra-inputs ignore_eos:true).
  // Any other flag given twice is refused.
  CommandFlags& Appendable(absl::string_view name) {
    appendable_.emplace_back(name);
    return *this;
  }
  bool appendable(absl::string_view name) const {
    return std::find(appendable_.begin(), appendable_.end(), name) != appendable_.end();
  }

  const FlagSpec* Find(absl::string_view name) const;
  const FlagAlias* FindAlias(absl::string_view name) const;
  const std::vector<const FlagSpec*>& specs() const { return specs_; }
  const std::vector<FlagAlias>& aliases() const { return aliases_; }
  std::vector<absl::string_view> Names() const;

 private:
  // Adds a flag; a name declared twice in one command is a programming error (aborts).
  void Insert(const FlagSpec* spec);
  static const FlagSpec* Require(const FlagSpec* spec, absl::string_view name);

  std::vector<const FlagSpec*> specs_;
  std::vector<std::shared_ptr<const FlagSpec>> rewritten_;  // the specs Help changed (copies share them)
  std::vector<FlagAlias> aliases_;
  bool allow_abbreviations_ = false;
  std::vector<std::string> appendable_;
};

// A flag's name as a user types it: "kv_cache_dtype" -> "--kv-cache-dtype".
std::string DashedFlag(absl::string_view name);

// "  --name=<default>  help" lines for the command's flags and its aliases, for --help.
std::string FlagHelp(const CommandFlags& flags);

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_FLAG_GROUP_H_
