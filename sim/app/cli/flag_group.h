// Typed flag declarations. A group of flags is a struct of values (its members' initializers are
// the defaults) and one declaration that names each member's flag, its help and its check:
//
//   struct TrainFlags { int64_t num_gpus = 1; double mfu = 0; };
//   const FlagGroup<TrainFlags>& TrainFlagGroup() {
//     static const auto* group = &(*new FlagGroup<TrainFlags>())
//         .Add("num_gpus", &TrainFlags::num_gpus, "number of GPUs G training together").Within(1, 1 << 20)
//         .Add("mfu", &TrainFlags::mfu, "model FLOPs utilisation");
//     return *group;
//   }
//
// A flag may bind a member of a base of the struct: SimulateFlags derives from SimulateOptions
// (and so from the core's SimulationSettings), and most of its flags write those settings
// directly, so a setting's default is written once, as its member's initializer, and its range
// once, in its declaration (docs/development.md#adding-a-setting). Policy names bind enums
// through their name tables (AddEnum).
//
// A command declares the groups (or the members of a group) it accepts in a CommandFlags, which
// the parser, --help and the Python module read; a command reads its values as the group's
// struct (Read) after checking them (CheckGiven). Nothing is global: two commands may each
// declare a flag of the same name with their own meaning and help (`--out`), and one process
// may parse several command lines.
#ifndef INFERGRID_SIM_APP_CLI_FLAG_GROUP_H_
#define INFERGRID_SIM_APP_CLI_FLAG_GROUP_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/enum_names.h"
#include "base/usage_error.h"
#include "sim/app/cli/flag_value_text.h"
#include "sim/app/cli/flag_values.h"
#include "sim/app/cli/number_flags.h"

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

// A flag's name as a user types it: "kv_cache_dtype" -> "--kv-cache-dtype".
std::string DashedFlag(absl::string_view name);

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
    Declare(name, help, FlagText<T>::Unparse(Defaults().*member), KindOf<T>(), &FlagText<T>::Canonical,
            [member](Options& options, absl::string_view text) { FlagText<T>::Parse(text, &(options.*member)); });
    return *this;
  }
  // An optional setting: unset (its default, shown as an empty default in --help) means "the
  // engine's own"; given, it holds the value.
  template <typename T>
  FlagGroup& Add(absl::string_view name, std::optional<T> Options::*member, absl::string_view help) {
    const std::optional<T> initial = Defaults().*member;
    Declare(name, help, initial.has_value() ? FlagText<T>::Unparse(*initial) : "", KindOf<T>(), &FlagText<T>::Canonical,
            [member](Options& options, absl::string_view text) {
              T value{};
              if (FlagText<T>::Parse(text, &value)) options.*member = value;
            });
    return *this;
  }
  // A flag that writes a member of a base of Options (a setting of SimulationSettings).
  template <typename T, typename Base>
  requires(!std::is_same_v<Base, Options> && std::is_base_of_v<Base, Options>) FlagGroup& Add(absl::string_view name,
                                                                                              T Base::*member,
                                                                                              absl::string_view help) {
    return Add(name, static_cast<T Options::*>(member), help);
  }
  // A policy flag: its text is one of `names` (base/enum_names.h), read into an enum member or,
  // for an optional member, left unset when empty. Other text is refused by CheckGiven with
  // the names it accepts.
  template <typename Value, typename Base, typename Enum, size_t N>
  requires std::is_base_of_v<Base, Options> FlagGroup& AddEnum(absl::string_view name, Value Base::*member,
                                                               const EnumName<Enum> (&names)[N],
                                                               absl::string_view help) {
    constexpr bool kOptional = std::is_same_v<Value, std::optional<Enum>>;
    static_assert(kOptional || std::is_same_v<Value, Enum>, "an enum member, or an optional one");
    const Value initial = Defaults().*member;
    std::string default_text;
    if constexpr (kOptional) {
      if (initial.has_value()) default_text = std::string(NameOf(names, *initial));
    } else {
      default_text = std::string(NameOf(names, initial));
    }
    Value Options::*bound = member;
    Declare(name, help, default_text, FlagKind::kText, &FlagText<std::string>::Canonical,
            [bound, &names](Options& options, absl::string_view text) {
              if (kOptional && text.empty()) {
                options.*bound = Value{};
              } else if (std::optional<Enum> parsed = ParseEnumName(names, text)) {
                options.*bound = *parsed;
              }
            });
    checks_.back() = [flag = std::string(name), &names](absl::string_view text) {
      if ((kOptional && text.empty()) || ParseEnumName(names, text).has_value()) return absl::OkStatus();
      return UsageError(absl::StrCat(DashedFlag(flag), ": expected ", NameList(names), ", got '", text, "'"));
    };
    return *this;
  }
  // The range of the number flag declared last, both ends included: a value given outside it is
  // refused by CheckGiven, naming the flag ("--cost-stride=0 is out of range (1..4096)"). The
  // default is not checked (an "unset" 0 may lie outside the range of given values).
  FlagGroup& Within(double minimum, double maximum) {
    const FlagSpec& spec = specs_.back();
    if (spec.kind == FlagKind::kInteger) {
      checks_.back() = [flag = spec.name, minimum, maximum](absl::string_view text) {
        int64_t value = 0;
        FlagText<int64_t>::Parse(text, &value);
        return CheckRange(flag, value, static_cast<int64_t>(minimum), static_cast<int64_t>(maximum));
      };
    } else {
      checks_.back() = [flag = spec.name, minimum, maximum](absl::string_view text) {
        double value = 0;
        FlagText<double>::Parse(text, &value);
        return CheckDoubleRange(flag, value, minimum, maximum);
      };
    }
    return *this;
  }
  // A list flag of integers (Python's nargs="+", with int items).
  FlagGroup& AddList(absl::string_view name, std::vector<int64_t> Options::*member, absl::string_view help) {
    Declare(name, help, IntegerListText::Unparse(Defaults().*member), FlagKind::kIntegerList,
            &IntegerListText::Canonical,
            [member](Options& options, absl::string_view text) { IntegerListText::Parse(text, &(options.*member)); });
    return *this;
  }

  // The first declared check (Within, AddEnum) that a given value fails, in declaration order,
  // as a usage error; OK when every given value passes.
  absl::Status CheckGiven(const FlagValues& values) const {
    for (size_t i = 0; i < specs_.size(); ++i) {
      if (!checks_[i]) continue;
      if (const std::string* text = values.Given(specs_[i].name)) {
        if (absl::Status s = checks_[i](*text); !s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }
  // The values `values` gives for this group's flags, the defaults for the others. Values were
  // parsed when given, so reading cannot fail; a value a check refuses (CheckGiven) is read
  // as its flag's default where it does not parse as the member (an unknown policy name).
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
  // One default-constructed Options, read for each flag's default text (built once: a
  // temporary per flag would copy every setting, and GCC misreads such temporaries as
  // uninitialized).
  static const Options& Defaults() {
    static const Options* defaults = new Options();
    return *defaults;
  }
  using Setter = std::function<void(Options&, absl::string_view)>;
  using Check = std::function<absl::Status(absl::string_view canonical_text)>;

  void Declare(absl::string_view name, absl::string_view help, std::string default_text, FlagKind kind,
               bool (*canonical)(absl::string_view, std::string*, std::string*), Setter setter) {
    specs_.push_back(FlagSpec{.name = std::string(name),
                              .help = std::string(help),
                              .default_text = std::move(default_text),
                              .kind = kind,
                              .canonical = canonical});
    setters_.push_back(std::move(setter));
    checks_.emplace_back();
  }

  std::vector<FlagSpec> specs_;
  std::vector<Setter> setters_;
  std::vector<Check> checks_;  // empty where the flag has no check beyond its type
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

// "  --name=<default>  help" lines for the command's flags and its aliases, for --help.
std::string FlagHelp(const CommandFlags& flags);

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_FLAG_GROUP_H_
