#include "sim/core/personality/personality_inheritance.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/descriptor.h"
#include "sim/core/personality/personality_catalog.h"

namespace infergrid {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Empties in `target` every repeated field `change` gives, at any depth, so that MergeFrom's
// append leaves exactly the change's list.
void ClearRepeatedGivenIn(const Message& change, Message* target) {
  const Reflection* reflection = change.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(change, &fields);  // repeated: non-empty; singular: present
  for (const FieldDescriptor* field : fields) {
    if (field->is_repeated()) {
      target->GetReflection()->ClearField(target, field);
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      ClearRepeatedGivenIn(reflection->GetMessage(change, field),
                           target->GetReflection()->MutableMessage(target, field));
    }
  }
}

// Resolves entry `i` and the bases it needs into `resolved`, depth first; `state` is 0 (not
// yet), 1 (on the current chain: seen again, a cycle) or 2 (done). `chain` names the entries
// on the current path, for the cycle's message.
struct Resolver {
  absl::Span<const CatalogEntry<EnginePersonality>> entries;
  std::map<std::string, size_t> by_name;
  std::vector<CatalogEntry<EnginePersonality>> resolved;
  std::vector<int> state;
  std::vector<std::string> chain;

  absl::Status Resolve(size_t i) {
    if (state[i] == 2) return absl::OkStatus();
    const CatalogEntry<EnginePersonality>& entry = entries[i];
    const std::string name = PersonalityName(entry.message);
    chain.push_back(name);
    if (state[i] == 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(entry.path, ": its bases form a cycle: ", absl::StrJoin(chain, " -> ")));
    }
    resolved[i].path = entry.path;
    resolved[i].message = entry.message;
    if (entry.message.base().empty() && !entry.message.clear().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(entry.path, ": clear without a base"));
    }
    if (!entry.message.base().empty()) {
      state[i] = 1;
      auto base = by_name.find(entry.message.base());
      if (base == by_name.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat(entry.path, ": base '", entry.message.base(), "' names no engine personality"));
      }
      if (absl::Status status = Resolve(base->second); !status.ok()) return status;
      absl::StatusOr<EnginePersonality> merged =
          ApplyPersonalityChange(resolved[base->second].message, entry.message, entry.path);
      if (!merged.ok()) return merged.status();
      resolved[i].message = *std::move(merged);
    }
    state[i] = 2;
    chain.pop_back();
    return absl::OkStatus();
  }
};

}  // namespace

void MergeReplacingRepeated(const Message& change, Message* target) {
  ClearRepeatedGivenIn(change, target);
  target->MergeFrom(change);
}

absl::Status ClearFieldPath(absl::string_view path, Message* message) {
  std::vector<absl::string_view> names = absl::StrSplit(path, '.');
  for (size_t i = 0; i < names.size(); ++i) {
    const FieldDescriptor* field = message->GetDescriptor()->FindFieldByName(std::string(names[i]));
    const bool last = i + 1 == names.size();
    if (field == nullptr ||
        (!last && (field->is_repeated() || field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE))) {
      return absl::InvalidArgumentError(absl::StrCat("clear: '", path, "': ", names[i], " is no ",
                                                     last ? "field" : "message field", " of ",
                                                     message->GetDescriptor()->name()));
    }
    if (last) {
      message->GetReflection()->ClearField(message, field);
    } else {
      message = message->GetReflection()->MutableMessage(message, field);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<EnginePersonality> ApplyPersonalityChange(const EnginePersonality& base, const EnginePersonality& change,
                                                         absl::string_view where) {
  if (change.engine() != base.engine()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": base '", PersonalityName(base),
                                                   "' is another engine's (this file's engine is '", change.engine(),
                                                   "')"));
  }
  EnginePersonality merged = base;
  merged.clear_is_default();
  merged.clear_covers();
  merged.clear_base();
  merged.clear_clear();
  for (const std::string& path : change.clear()) {
    if (absl::Status status = ClearFieldPath(path, &merged); !status.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": ", status.message()));
    }
  }
  MergeReplacingRepeated(change, &merged);
  merged.clear_base();  // resolved: nothing is left to look up
  merged.clear_clear();  // applied above
  return merged;
}

absl::StatusOr<std::vector<CatalogEntry<EnginePersonality>>> ResolvePersonalityBases(
    absl::Span<const CatalogEntry<EnginePersonality>> entries) {
  Resolver resolver{entries,
                    {},
                    std::vector<CatalogEntry<EnginePersonality>>(entries.size()),
                    std::vector<int>(entries.size(), 0),
                    {}};
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string name = PersonalityName(entries[i].message);
    if (!resolver.by_name.emplace(name, i).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(entries[i].path, ": ", name, " is also ", entries[resolver.by_name[name]].path));
    }
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    resolver.chain.clear();
    if (absl::Status status = resolver.Resolve(i); !status.ok()) return status;
  }
  return std::move(resolver.resolved);
}

}  // namespace infergrid
