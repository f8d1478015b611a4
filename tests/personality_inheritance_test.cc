#include <cstdio>
#include <cstdlib>
#include <vector>
#include <fstream>
#include <string>

#include "absl/status/statusor.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "sim/core/personality/personality_catalog.h"

namespace infergrid {
namespace {

// Throwaway: writes every resolved personality as text format to $PERSONALITY_DUMP_DIR.
TEST(PersonalityDump, WritesResolved) {
  const char* dir = std::getenv("PERSONALITY_DUMP_DIR");
  if (dir == nullptr) GTEST_SKIP();
  for (const std::string& name : EnginePersonalityNames()) {
    absl::StatusOr<EnginePersonality> p = ResolveEnginePersonality(name);
    ASSERT_TRUE(p.ok()) << p.status();
    std::string text;
    google::protobuf::TextFormat::PrintToString(*p, &text);
    std::ofstream(std::string(dir) + "/" + name + ".txtpb") << text;
  }
}

void Missing(const google::protobuf::Message& base, const google::protobuf::Message& child,
             const std::string& prefix) {
  const auto* r = base.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  r->ListFields(base, &fields);
  for (const auto* f : fields) {
    const std::string path = prefix + f->name();
    if (f->is_repeated()) {
      if (r->FieldSize(child, f) == 0) std::printf("  repeated emptied: %s\n", path.c_str());
    } else if (!r->HasField(child, f)) {
      std::printf("  unset in child: %s\n", path.c_str());
    } else if (f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
      Missing(r->GetMessage(base, f), r->GetMessage(child, f), path + ".");
    }
  }
}

TEST(PersonalityDump, NeedsClear) {
  const char* pairs[][2] = {{"vllm-v1@0.11", "vllm-v1@0.15"}, {"vllm-v1@0.15", "vllm-v1@0.19"},
                            {"vllm-v1@0.19", "vllm-v1@0.21"}, {"vllm-v0@0.5.3", "vllm-v0@0.6.3"},
                            {"vllm-v0@0.6.3", "vllm-v0@0.6.5"}, {"sglang@0.4.1", "sglang@0.4.9"},
                            {"sglang@0.4.9", "sglang@0.5.3"}, {"trtllm@cpp", "trtllm@pytorch"},
                            {"vllm-v1@0.19", "vllm-v1@0.15"}};
  for (const auto& pair : pairs) {
    std::printf("%s -> %s\n", pair[0], pair[1]);
    Missing(*ResolveEnginePersonality(pair[0]), *ResolveEnginePersonality(pair[1]), "");
  }
}

}  // namespace
}  // namespace infergrid
