#include "sim/app/format/json_output.h"

#include "google/protobuf/util/json_util.h"

namespace infergrid::format {

std::string ToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  // Printing a valid message cannot fail; the status is only non-OK for unresolvable Any.
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  return json;
}

}  // namespace infergrid::format
