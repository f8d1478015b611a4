// Results as JSON: the proto3 JSON mapping with the .proto field names and every field
// printed (zeros included), one object, newline-terminated.
#ifndef INFERGRID_SIM_APP_FORMAT_JSON_OUTPUT_H_
#define INFERGRID_SIM_APP_FORMAT_JSON_OUTPUT_H_

#include <string>

#include "google/protobuf/message.h"

namespace infergrid::format {

std::string ToJson(const google::protobuf::Message& message);

}  // namespace infergrid::format

#endif  // INFERGRID_SIM_APP_FORMAT_JSON_OUTPUT_H_
