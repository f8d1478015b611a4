// libFuzzer target for the one JSON reader (base/json_text.h) and every reader built on it: the
// first input byte picks the reader, the rest is the file. Each must answer an Ok or a one-line
// error, never crash, throw, overflow the stack or leak; what it returns is walked as its user
// would (dumped, validated, sampled).
//   0: ParseJson, the result dumped         4: a safetensors header
//   1: config.json, validated               5: a custom dataset (JSON lines)
//   2: a summary.json (ParseJsonMessage)    6: a ShareGPT dataset (SAX)
//   3: a ModelSpec in JSON                  7: a bench --compare file, compared
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/json_text.h"
#include "models/hf_config.h"
#include "models/model_catalog.h"
#include "models/model_spec.pb.h"
#include "models/safetensors_header.h"
#include "sim/app/bench/bench_dataset.h"
#include "sim/app/bench/compare_result.h"
#include "sim/app/results/simulation.pb.h"

namespace {

// A scratch file per process holding the input, for the readers that take a path.
std::string WriteScratch(absl::string_view text, absl::string_view extension) {
  const std::string path = absl::StrCat("/tmp/json_reader_fuzzer.", getpid(), extension);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(text.data(), static_cast<std::streamsize>(text.size()));
  return path;
}

void Dataset(absl::string_view text, const char* name, const char* extension) {
  infergrid::bench::DatasetOptions options;
  options.name = name;
  options.path = WriteScratch(text, extension);
  options.num_prompts = 16;
  (void)infergrid::bench::SampleDataset(options);
  std::remove(options.path.c_str());
}

void Compare(absl::string_view text) {
  const std::string path = WriteScratch(text, ".json");
  absl::StatusOr<std::vector<nlohmann::json>> docs = infergrid::bench::ReadSavedResults(path);
  if (docs.ok() && !docs->empty()) {
    infergrid::bench::PyJson predicted;
    predicted["request_rate"] = "inf";
    predicted["max_concurrency"] = nullptr;
    predicted["request_throughput"] = 1.0;
    predicted["mean_ttft_ms"] = 10.0;
    (void)infergrid::bench::CompareResults(predicted, *docs, path);
  }
  std::remove(path.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const absl::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 8) {
    case 0: {
      absl::StatusOr<nlohmann::json> parsed = infergrid::ParseJson(text, "fuzz.json");
      if (parsed.ok()) (void)parsed->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      break;
    }
    case 1: {
      absl::StatusOr<infergrid::ModelSpec> spec = infergrid::ImportHfConfig(text, "fuzz/config.json");
      if (spec.ok()) (void)infergrid::ValidateModelSpec(*spec, "fuzz/config.json");
      break;
    }
    case 2: {
      infergrid::SimulationSummary summary;
      (void)infergrid::ParseJsonMessage(text, infergrid::JsonSource{"summary.json"}, "summary.json", &summary);
      break;
    }
    case 3: {
      infergrid::ModelSpec spec;
      (void)infergrid::ParseJsonMessage(text, infergrid::JsonSource{"spec.json", 3, true}, "model spec", &spec);
      break;
    }
    case 4: {
      std::string file(8, '\0');
      for (int i = 0; i < 8; ++i) file[static_cast<size_t>(i)] = static_cast<char>((text.size() >> (8 * i)) & 0xff);
      file.append(text.data(), text.size());
      (void)infergrid::ParseSafetensorsHeader(file, static_cast<int64_t>(file.size()), "fuzz.safetensors");
      break;
    }
    case 5: Dataset(text, "custom", ".jsonl"); break;
    case 6: Dataset(text, "sharegpt", ".json"); break;
    default: Compare(text); break;
  }
  return 0;
}
