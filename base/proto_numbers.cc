#include "base/proto_numbers.h"

#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"

namespace infergrid {
namespace {

using google::protobuf::FieldDescriptor;

// The value of a numeric field (element `index` when repeated); false for other types.
bool NumberOf(const google::protobuf::Message& m, const FieldDescriptor* f, int index, double* value) {
  const google::protobuf::Reflection* r = m.GetReflection();
  const bool repeated = f->is_repeated();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
      *value = repeated ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f);
      return true;
    case FieldDescriptor::CPPTYPE_FLOAT:
      *value = repeated ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f);
      return true;
    case FieldDescriptor::CPPTYPE_INT32:
      *value = repeated ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f);
      return true;
    case FieldDescriptor::CPPTYPE_INT64:
      *value = static_cast<double>(repeated ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f));
      return true;
    default: return false;  // unsigned and enum fields cannot be negative; strings and bools are not numbers
  }
}

absl::Status Check(const google::protobuf::Message& m, const std::string& prefix, absl::string_view where,
                   const NumberRule& rule) {
  const google::protobuf::Descriptor* d = m.GetDescriptor();
  const google::protobuf::Reflection* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    const int count = f->is_repeated() ? r->FieldSize(m, f) : 1;
    for (int k = 0; k < count; ++k) {
      const std::string name = f->is_repeated() ? absl::StrCat(prefix, f->name(), "[", k, "]") : prefix + f->name();
      if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        if (!f->is_repeated() && !r->HasField(m, f)) continue;
        const google::protobuf::Message& inner =
            f->is_repeated() ? r->GetRepeatedMessage(m, f, k) : r->GetMessage(m, f);
        if (absl::Status s = Check(inner, name + ".", where, rule); !s.ok()) return s;
        continue;
      }
      double value = 0;
      if (!NumberOf(m, f, k, &value)) continue;
      const bool rate = rule.is_rate && rule.is_rate(f->name());
      if (!std::isfinite(value) || value < 0 || value > rule.maximum ||
          (rate && value > 0 && value < rule.minimum_rate)) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": ", name, " is ", value, "; expected ",
                         rate ? absl::StrCat("0 (unknown) or a finite rate in [", rule.minimum_rate, ", ", rule.maximum,
                                             "] per second")
                              : absl::StrCat("a finite number in [0, ", rule.maximum, "]")));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckMessageNumbers(const google::protobuf::Message& message, absl::string_view where,
                                 const NumberRule& rule) {
  return Check(message, "", where, rule);
}

}  // namespace infergrid
