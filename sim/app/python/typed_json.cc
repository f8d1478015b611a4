#include "sim/app/python/typed_json.h"

#include <memory>

#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/util/json_util.h"

namespace py = pybind11;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

namespace infergrid::python {
namespace {

py::object MessageToPython(const Message& message);

// One value of `field`: element `index` of a repeated field, or the singular value (index < 0).
py::object FieldValue(const Message& message, const FieldDescriptor* field, int index) {
  const Reflection* r = message.GetReflection();
  const bool one = index < 0;
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return py::int_(one ? r->GetInt32(message, field) : r->GetRepeatedInt32(message, field, index));
    case FieldDescriptor::CPPTYPE_INT64:
      return py::int_(one ? r->GetInt64(message, field) : r->GetRepeatedInt64(message, field, index));
    case FieldDescriptor::CPPTYPE_UINT32:
      return py::int_(one ? r->GetUInt32(message, field) : r->GetRepeatedUInt32(message, field, index));
    case FieldDescriptor::CPPTYPE_UINT64:
      return py::int_(one ? r->GetUInt64(message, field) : r->GetRepeatedUInt64(message, field, index));
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return py::float_(one ? r->GetDouble(message, field) : r->GetRepeatedDouble(message, field, index));
    case FieldDescriptor::CPPTYPE_FLOAT:
      return py::float_(one ? r->GetFloat(message, field) : r->GetRepeatedFloat(message, field, index));
    case FieldDescriptor::CPPTYPE_BOOL:
      return py::bool_(one ? r->GetBool(message, field) : r->GetRepeatedBool(message, field, index));
    case FieldDescriptor::CPPTYPE_ENUM:
      return py::str((one ? r->GetEnum(message, field) : r->GetRepeatedEnum(message, field, index))->name());
    case FieldDescriptor::CPPTYPE_STRING: {
      const std::string text = one ? r->GetString(message, field) : r->GetRepeatedString(message, field, index);
      if (field->type() == FieldDescriptor::TYPE_BYTES) return py::bytes(text);
      return py::str(text);
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return MessageToPython(one ? r->GetMessage(message, field) : r->GetRepeatedMessage(message, field, index));
  }
  return py::none();
}

// A map field's entries as a dict (keys typed as the map's key type).
py::dict MapValue(const Message& message, const FieldDescriptor* field) {
  const Reflection* r = message.GetReflection();
  py::dict out;
  for (int i = 0; i < r->FieldSize(message, field); ++i) {
    const Message& entry = r->GetRepeatedMessage(message, field, i);
    const google::protobuf::Descriptor* d = entry.GetDescriptor();
    out[FieldValue(entry, d->map_key(), -1)] = FieldValue(entry, d->map_value(), -1);
  }
  return out;
}

py::object MessageToPython(const Message& message) {
  const google::protobuf::Descriptor* d = message.GetDescriptor();
  const Reflection* r = message.GetReflection();
  py::dict out;
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* field = d->field(i);
    if (field->is_map()) {
      out[py::str(field->name())] = MapValue(message, field);
    } else if (field->is_repeated()) {
      py::list values;
      for (int j = 0; j < r->FieldSize(message, field); ++j) values.append(FieldValue(message, field, j));
      out[py::str(field->name())] = values;
    } else if (!field->has_presence() || r->HasField(message, field)) {
      out[py::str(field->name())] = FieldValue(message, field, -1);
    }
  }
  return out;
}

}  // namespace

py::object TypedJson(const std::string& message, const std::string& json) {
  const google::protobuf::Descriptor* d =
      google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(message);
  if (d == nullptr) throw py::value_error("infergrid: no message " + message + " in the module");
  std::unique_ptr<Message> parsed(google::protobuf::MessageFactory::generated_factory()->GetPrototype(d)->New());
  const auto status = google::protobuf::util::JsonStringToMessage(json, parsed.get());
  if (!status.ok()) throw py::value_error("infergrid: the JSON is not a " + message + ": " + status.ToString());
  return MessageToPython(*parsed);
}

}  // namespace infergrid::python
