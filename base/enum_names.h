// Names of an enum's values as users type them and outputs print them, written once per enum
// as a table of {value, name} pairs next to the enum:
//   inline constexpr EnumName<RouterKind> kRouterNames[] = {
//       {RouterKind::kRoundRobin, "round-robin"}, {RouterKind::kLeastKv, "least-kv"}};
// Policy names become enums where they enter (a flag, a spec file) and names again only where
// they leave (a report), so no code below the edge compares strings.
#ifndef INFERGRID_BASE_ENUM_NAMES_H_
#define INFERGRID_BASE_ENUM_NAMES_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace infergrid {

template <typename Enum>
struct EnumName {
  Enum value;
  absl::string_view name;
};

// The value named `name` exactly, or nullopt.
template <typename Enum, size_t N>
std::optional<Enum> ParseEnumName(const EnumName<Enum> (&names)[N], absl::string_view name) {
  for (const EnumName<Enum>& entry : names) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

// The name of `value` ("" for a value missing from the table).
template <typename Enum, size_t N>
absl::string_view NameOf(const EnumName<Enum> (&names)[N], Enum value) {
  for (const EnumName<Enum>& entry : names) {
    if (entry.value == value) return entry.name;
  }
  return "";
}

// "a, b or c": the names in table order, for "expected ..." messages.
template <typename Enum, size_t N>
std::string NameList(const EnumName<Enum> (&names)[N]) {
  std::string list;
  for (size_t i = 0; i < N; ++i) {
    absl::StrAppend(&list, i == 0 ? "" : i + 1 == N ? " or " : ", ", names[i].name);
  }
  return list;
}

}  // namespace infergrid

#endif  // INFERGRID_BASE_ENUM_NAMES_H_
