// Every number of a protocol buffer message checked in one pass, by reflection: nested messages
// and repeated fields included, each named by its path ("tensor_peaks.fp8_flops",
// "binding[2].share") in the error. Used where a message is read from a file a person can edit
// (a GPU spec, a summary.json given to `report`), so that no infinite, negative or absurd value
// reaches the event engine or a chart.
#ifndef INFERGRID_BASE_PROTO_NUMBERS_H_
#define INFERGRID_BASE_PROTO_NUMBERS_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace infergrid {

struct NumberRule {
  double maximum = 1e21;  // every number in [0, maximum], floating-point ones finite
  // Fields (by name) that are rates: 0 (unknown) or at least `minimum_rate`.
  std::function<bool(absl::string_view field)> is_rate;
  double minimum_rate = 1e3;
};

// InvalidArgument "<where>: <path> is <value>; expected ..." for the first number that breaks
// `rule`; OK otherwise.
absl::Status CheckMessageNumbers(const google::protobuf::Message& message, absl::string_view where,
                                 const NumberRule& rule);

}  // namespace infergrid

#endif  // INFERGRID_BASE_PROTO_NUMBERS_H_
