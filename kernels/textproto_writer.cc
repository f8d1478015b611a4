#include "kernels/textproto_writer.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace infergrid::calib {
namespace {

// Accumulates "name: value" lines with two-space indentation per nested message. Field()
// writes a value in the text form of its type, leaving scalars at their default (0, false, "")
// out; enums and every element of a repeated string are written.
class TextOut {
 public:
  void Open(const char* name) {
    Indent();
    out_ << name << " {\n";
    ++depth_;
  }
  void Close() {
    --depth_;
    Indent();
    out_ << "}\n";
  }
  void Field(const char* name, const std::string& value) {
    if (!value.empty()) Line(name, QuoteTextProtoString(value));
  }
  void Field(const char* name, const std::vector<std::string>& values) {
    for (const std::string& value : values) Line(name, QuoteTextProtoString(value));
  }
  void Field(const char* name, int64_t value) {
    if (value != 0) Line(name, std::to_string(value));
  }
  void Field(const char* name, int32_t value) { Field(name, int64_t{value}); }
  void Field(const char* name, double value) {
    if (value != 0 || std::signbit(value)) Line(name, FormatTextProtoDouble(value));
  }
  void Field(const char* name, bool value) {
    if (value) Line(name, "true");
  }
  void Field(const char* name, DType value) { Line(name, DTypeName(value)); }
  void Field(const char* name, HbmKind value) { Line(name, HbmKindName(value)); }
  void Field(const char* name, LaunchKind value) { Line(name, LaunchKindName(value)); }
  void Field(const char* name, const TimingStats& timing);  // nested: after WriteFields below
  std::string str() const { return out_.str(); }

 private:
  void Line(const char* name, const std::string& text) {
    Indent();
    out_ << name << ": " << text << "\n";
  }
  void Indent() { out_ << std::string(static_cast<size_t>(depth_) * 2, ' '); }
  std::ostringstream out_;
  int depth_ = 0;
};

// `name { ... }` around the fields WriteFields writes for `message` (defined below them, so
// that it sees every overload).
template <typename Message>
void WriteMessage(TextOut& t, const char* name, const Message& message);

// One `name { ... }` block per element of a repeated message field.
template <typename Message>
void WriteRepeated(TextOut& t, const char* name, const std::vector<Message>& messages) {
  for (const Message& message : messages) WriteMessage(t, name, message);
}

// The fields of each message, in the order of calibration/measurements.proto.
void WriteFields(TextOut& t, const TimingStats& s) {
  t.Field("median_seconds", s.median_seconds);
  t.Field("min_seconds", s.min_seconds);
  t.Field("max_seconds", s.max_seconds);
  t.Field("iterations", s.iterations);
  t.Field("l2_flushed", s.l2_flushed);
}

void WriteFields(TextOut& t, const Provenance& p) {
  t.Field("gpu_name", p.gpu_name);
  t.Field("gpu_uuid", p.gpu_uuid);
  t.Field("driver_version", p.driver_version);
  t.Field("cuda_driver_api_version", p.cuda_driver_api_version);
  t.Field("cuda_runtime_version", p.cuda_runtime_version);
  t.Field("cublaslt_version", p.cublaslt_version);
  t.Field("nccl_version", p.nccl_version);
  t.Field("compute_capability_major", p.compute_capability_major);
  t.Field("compute_capability_minor", p.compute_capability_minor);
  t.Field("sm_count", p.sm_count);
  t.Field("memory_total_mib", p.memory_total_mib);
  t.Field("l2_bytes", p.l2_bytes);
  t.Field("shared_memory_per_sm_bytes", p.shared_memory_per_sm_bytes);
  t.Field("memory_bus_width_bits", p.memory_bus_width_bits);
  t.Field("sm_clock_max_mhz", p.sm_clock_max_mhz);
  t.Field("memory_clock_max_mhz", p.memory_clock_max_mhz);
  t.Field("sm_clock_start_mhz", p.sm_clock_start_mhz);
  t.Field("sm_clock_end_mhz", p.sm_clock_end_mhz);
  t.Field("memory_clock_start_mhz", p.memory_clock_start_mhz);
  t.Field("power_limit_watts", p.power_limit_watts);
  t.Field("gpu_count", p.gpu_count);
  t.Field("date_utc", p.date_utc);
  t.Field("tool_version", p.tool_version);
  t.Field("host", p.host);
  t.Field("command_line", p.command_line);
  t.Field("quick", p.quick);
  t.Field("budget_seconds", p.budget_seconds);
  t.Field("wall_seconds", p.wall_seconds);
  t.Field("notes", p.notes);
}

void WriteFields(TextOut& t, const CorrectnessCheck& c) {
  t.Field("name", c.name);
  t.Field("passed", c.passed);
  t.Field("relative_error", c.relative_error);
  t.Field("tolerance", c.tolerance);
}

void WriteFields(TextOut& t, const HbmSample& s) {
  t.Field("kind", s.kind);
  t.Field("buffer_bytes", s.buffer_bytes);
  t.Field("moved_bytes", s.moved_bytes);
  t.Field("timing", s.timing);
  t.Field("bytes_per_second", s.bytes_per_second);
}

void WriteFields(TextOut& t, const L2Sample& s) {
  t.Field("footprint_bytes", s.footprint_bytes);
  t.Field("passes", s.passes);
  t.Field("moved_bytes", s.moved_bytes);
  t.Field("timing", s.timing);
  t.Field("read_bytes_per_second", s.read_bytes_per_second);
}

void WriteFields(TextOut& t, const GemmSample& s) {
  t.Field("m", s.m);
  t.Field("n", s.n);
  t.Field("k", s.k);
  t.Field("dtype", s.dtype);
  t.Field("output_dtype", s.output_dtype);
  t.Field("layout", s.layout);
  t.Field("timing", s.timing);
  t.Field("flops", s.flops);
  t.Field("flops_per_second", s.flops_per_second);
  t.Field("algorithm_id", s.algorithm_id);
  t.Field("tile_id", s.tile_id);
  t.Field("stages_id", s.stages_id);
  t.Field("splitk", s.splitk);
  t.Field("workspace_bytes", s.workspace_bytes);
  t.Field("fp8_fast_accum", s.fp8_fast_accum);
  t.Field("min_moved_bytes", s.min_moved_bytes);
  t.Field("sources", s.sources);
}

void WriteFields(TextOut& t, const DecodeAttentionSample& s) {
  t.Field("batch", s.batch);
  t.Field("context_tokens", s.context_tokens);
  t.Field("q_heads", s.q_heads);
  t.Field("kv_heads", s.kv_heads);
  t.Field("head_dim", s.head_dim);
  t.Field("kv_dtype", s.kv_dtype);
  t.Field("query_dtype", s.query_dtype);
  t.Field("block_size_tokens", s.block_size_tokens);
  t.Field("timing", s.timing);
  t.Field("kv_bytes", s.kv_bytes);
  t.Field("moved_bytes", s.moved_bytes);
  t.Field("bytes_per_second", s.bytes_per_second);
  t.Field("flops", s.flops);
  t.Field("kernel", s.kernel);
}

void WriteFields(TextOut& t, const PrefillAttentionSample& s) {
  t.Field("batch", s.batch);
  t.Field("query_tokens", s.query_tokens);
  t.Field("context_tokens", s.context_tokens);
  t.Field("q_heads", s.q_heads);
  t.Field("kv_heads", s.kv_heads);
  t.Field("head_dim", s.head_dim);
  t.Field("causal", s.causal);
  t.Field("dtype", s.dtype);
  t.Field("timing", s.timing);
  t.Field("flops", s.flops);
  t.Field("flops_per_second", s.flops_per_second);
  t.Field("moved_bytes", s.moved_bytes);
  t.Field("kernel", s.kernel);
}

void WriteFields(TextOut& t, const LaunchOverheadSample& s) {
  t.Field("kind", s.kind);
  t.Field("kernels_per_measurement", s.kernels_per_measurement);
  t.Field("timing", s.timing);
  t.Field("seconds_per_kernel", s.seconds_per_kernel);
}

void WriteFields(TextOut& t, const AllReduceSample& s) {
  t.Field("buffer_bytes", s.buffer_bytes);
  t.Field("ranks", s.ranks);
  t.Field("dtype", s.dtype);
  t.Field("timing", s.timing);
  t.Field("algorithm_bytes_per_second", s.algorithm_bytes_per_second);
  t.Field("bus_bytes_per_second", s.bus_bytes_per_second);
}

template <typename Message>
void WriteMessage(TextOut& t, const char* name, const Message& message) {
  t.Open(name);
  WriteFields(t, message);
  t.Close();
}

void TextOut::Field(const char* name, const TimingStats& timing) { WriteMessage(*this, name, timing); }

}  // namespace

std::string QuoteTextProtoString(const std::string& value) {
  std::string out = "\"";
  for (unsigned char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\'': out += "\\'"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\%03o", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += "\"";
  return out;
}

std::string FormatTextProtoDouble(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, result.ptr);
}

std::string ToTextProto(const MeasurementSet& set) {
  TextOut t;
  WriteMessage(t, "provenance", set.provenance);
  WriteRepeated(t, "checks", set.checks);
  WriteRepeated(t, "hbm", set.hbm);
  WriteRepeated(t, "l2", set.l2);
  WriteRepeated(t, "gemm", set.gemm);
  WriteRepeated(t, "decode_attention", set.decode_attention);
  WriteRepeated(t, "prefill_attention", set.prefill_attention);
  WriteRepeated(t, "launch_overhead", set.launch_overhead);
  WriteRepeated(t, "all_reduce", set.all_reduce);
  return "# proto-file: calibration/measurements.proto\n"
         "# proto-message: infergrid.Measurements\n"
         "# Written by infergrid-calibrate (kernels/). Raw samples; see the proto for units.\n" +
         t.str();
}

std::string WriteFileAtomically(const std::string& path, const std::string& contents) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return tmp + ": cannot open for writing: " + std::strerror(errno);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return tmp + ": write failed: " + std::strerror(errno);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string error = std::strerror(errno);
    std::remove(tmp.c_str());
    return path + ": cannot rename " + tmp + " into place: " + error;
  }
  return "";
}

}  // namespace infergrid::calib
