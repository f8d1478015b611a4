// libFuzzer target for every trace reader: the input becomes a file (an anonymous memfd, no
// disk), opened with options chosen by the first byte (format, skip or fail, a small or the
// real line cap), and drained into the trace statistics (`trace stats`, `trace fit`). Any crash,
// leak or sanitizer report is a bug; errors are not.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "traces/trace_reader.h"
#include "traces/trace_statistics.h"

namespace {

constexpr const char* kFormats[] = {"auto", "azure", "burstgpt", "mooncake", "vidur", "lengths", "infergrid"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t control = data[0];
  ++data;
  --size;
  const int fd = memfd_create("trace", 0);
  if (fd < 0) return 0;
  size_t written = 0;
  while (written < size) {
    const ssize_t n = write(fd, data + written, size - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  infergrid::TraceOptions options;
  options.format = kFormats[control % 7];
  options.skip_bad_rows = (control & 0x08) != 0;
  options.max_line_bytes = (control & 0x10) != 0 ? 64 : int64_t{1} << 20;
  options.allow_out_of_order = (control & 0x20) != 0;
  if ((control & 0x40) != 0) options.model_filter = "ChatGPT";
  infergrid::TraceReadStats stats;
  auto source = infergrid::OpenTrace("/proc/self/fd/" + std::to_string(fd), options, &stats);
  if (source.ok()) {
    infergrid::Request request;
    infergrid::TraceStatsAccumulator statistics;
    for (int i = 0; i < 1'000'000; ++i) {
      absl::StatusOr<bool> more = (*source)->Next(&request);
      if (!more.ok() || !*more) break;
      statistics.Add(request);
    }
    statistics.Finish(stats);
  }
  close(fd);
  return 0;
}
