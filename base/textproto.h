// Reading protobuf text format with errors that name the file, line and column.
// Every input file of InferGrid (specs, catalogs, calibration, experiments) goes through here.
#ifndef INFERGRID_BASE_TEXTPROTO_H_
#define INFERGRID_BASE_TEXTPROTO_H_

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"

namespace infergrid {

// Parses `text` into `message`; `path` only names the source in errors
// ("path:LINE:COL: message"). Unknown fields are errors.
absl::Status ParseTextProto(absl::string_view text, absl::string_view path, google::protobuf::Message* message,
                            google::protobuf::TextFormat::ParseInfoTree* locations = nullptr);

// OK when `path` is a regular file (after links); NotFound when it does not exist, and
// InvalidArgument for a folder, FIFO, device or socket (reading one may block or never end).
absl::Status CheckRegularFile(const std::string& path);

// Reads a whole regular file (at most `max_bytes`) into `contents`; errors name the path.
absl::Status ReadFileToString(const std::string& path, std::string* contents, size_t max_bytes = size_t{1} << 30);

// Reads and parses a textproto file. With `locations`, records where each field was written
// (0-based line and column), so checks after parsing can name the line of a bad value.
absl::Status ReadTextProtoFile(const std::string& path, google::protobuf::Message* message,
                               google::protobuf::TextFormat::ParseInfoTree* locations = nullptr);

}  // namespace infergrid

#endif  // INFERGRID_BASE_TEXTPROTO_H_
