#include "base/textproto.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"

namespace infergrid {
namespace {

// Keeps the first error (the rest usually follow from it) with a 1-based position.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (!has_error_) {
      has_error_ = true;
      line_ = line + 1;
      column_ = column + 1;
      message_ = message;
    }
  }
  bool has_error() const { return has_error_; }
  std::string Format(absl::string_view path) const {
    return absl::StrCat(path, ":", line_, ":", column_, ": ", message_);
  }

 private:
  bool has_error_ = false;
  int line_ = 0;
  int column_ = 0;
  std::string message_;
};

}  // namespace

absl::Status ParseTextProto(absl::string_view text, absl::string_view path, google::protobuf::Message* message,
                            google::protobuf::TextFormat::ParseInfoTree* locations) {
  google::protobuf::TextFormat::Parser parser;
  if (locations != nullptr) parser.WriteLocationsTo(locations);
  FirstErrorCollector errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(std::string(text), message)) {
    if (errors.has_error()) return absl::InvalidArgumentError(errors.Format(path));
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a valid ", message->GetTypeName(), " textproto"));
  }
  return absl::OkStatus();
}

absl::Status CheckRegularFile(const std::string& path) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (error || !std::filesystem::exists(status))
    return absl::NotFoundError(absl::StrCat(path, ": cannot open file: no such file"));
  if (std::filesystem::is_directory(status)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a folder, not a file"));
  }
  if (!std::filesystem::is_regular_file(status)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a regular file (a FIFO, device or socket is not read: it may never end)"));
  }
  return absl::OkStatus();
}

absl::Status ReadFileToString(const std::string& path, std::string* contents, size_t max_bytes) {
  if (absl::Status s = CheckRegularFile(path); !s.ok()) return s;
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open file"));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) return absl::InvalidArgumentError(absl::StrCat(path, ": not a regular file"));
  if (static_cast<size_t>(size) > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": file is ", size, " bytes, more than the ", max_bytes, " allowed"));
  }
  in.seekg(0, std::ios::beg);
  contents->resize(static_cast<size_t>(size));
  if (size > 0 && !in.read(contents->data(), size)) {
    return absl::DataLossError(absl::StrCat(path, ": read failed"));
  }
  return absl::OkStatus();
}

absl::Status ReadTextProtoFile(const std::string& path, google::protobuf::Message* message,
                               google::protobuf::TextFormat::ParseInfoTree* locations) {
  std::string text;
  if (absl::Status status = ReadFileToString(path, &text, size_t{64} << 20); !status.ok()) {
    return status;
  }
  return ParseTextProto(text, path, message, locations);
}

}  // namespace infergrid
