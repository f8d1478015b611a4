#include "sim/core/personality/front_end_model.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "base/textproto.h"

namespace infergrid {
namespace {

// The first bad field of process `p`, or an empty name.
struct BadField {
  std::string name;
  double value = 0;
};

BadField FirstBadField(const FrontEndProcessModel& p) {
  const std::pair<const char*, double> costs[] = {{"request_s", p.request_s()},
                                                  {"prompt_token_s", p.prompt_token_s()},
                                                  {"step_s", p.step_s()},
                                                  {"output_token_s", p.output_token_s()}};
  for (const auto& [name, value] : costs) {
    // At most an hour per request or token: anything larger is a unit mistake.
    if (!(std::isfinite(value) && value >= 0 && value <= 3600)) return {name, value};
  }
  if (p.servers() < 0 || p.servers() > 4096) return {"servers", static_cast<double>(p.servers())};
  return {};
}

}  // namespace

absl::Status ValidateFrontEndModel(const FrontEndModel& model, absl::string_view where) {
  for (int i = 0; i < model.process_size(); ++i) {
    const FrontEndProcessModel& p = model.process(i);
    if (p.name().empty()) return absl::InvalidArgumentError(absl::StrCat(where, ": process[", i, "] needs a name"));
    const BadField bad = FirstBadField(p);
    if (!bad.name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": process[", i, "] (", p.name(), ").", bad.name, " is ", bad.value,
          bad.name == "servers" ? "; expected 0 (one) to 4096" : "; expected a finite number of seconds in [0, 3600]"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<FrontEndModel> ReadFrontEndModel(const std::string& path) {
  FrontEndModel model;
  google::protobuf::TextFormat::ParseInfoTree locations;
  if (absl::Status s = ReadTextProtoFile(path, &model, &locations); !s.ok()) return s;
  for (int i = 0; i < model.process_size(); ++i) {
    const BadField bad = FirstBadField(model.process(i));
    if (bad.name.empty()) continue;
    int line = 0;
    if (google::protobuf::TextFormat::ParseInfoTree* sub =
            locations.GetTreeForNested(FrontEndModel::descriptor()->FindFieldByName("process"), i)) {
      const google::protobuf::FieldDescriptor* field = FrontEndProcessModel::descriptor()->FindFieldByName(bad.name);
      line = sub->GetLocation(field, -1).line + 1;
    }
    return ValidateFrontEndModel(model, line > 0 ? absl::StrCat(path, ":", line) : path);
  }
  if (absl::Status s = ValidateFrontEndModel(model, path); !s.ok()) return s;
  return model;
}

}  // namespace infergrid
