#include "kernels/textproto_writer.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace infergrid::calib {
namespace {

// Accumulates "name: value" lines with two-space indentation per nested message.
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
  void Raw(const char* name, const std::string& text) {
    Indent();
    out_ << name << ": " << text << "\n";
  }
  void Str(const char* name, const std::string& value) {
    if (!value.empty()) Raw(name, QuoteTextProtoString(value));
  }
  void Int(const char* name, int64_t value) {
    if (value != 0) Raw(name, std::to_string(value));
  }
  void Dbl(const char* name, double value) {
    if (value != 0 || std::signbit(value)) Raw(name, FormatTextProtoDouble(value));
  }
  void Bool(const char* name, bool value) {
    if (value) Raw(name, "true");
  }
  void Enum(const char* name, const char* value) { Raw(name, value); }
  std::string str() const { return out_.str(); }

 private:
  void Indent() { out_ << std::string(static_cast<size_t>(depth_) * 2, ' '); }
  std::ostringstream out_;
  int depth_ = 0;
};

void WriteTiming(TextOut& t, const TimingStats& s) {
  t.Open("timing");
  t.Dbl("median_seconds", s.median_seconds);
  t.Dbl("min_seconds", s.min_seconds);
  t.Dbl("max_seconds", s.max_seconds);
  t.Int("iterations", s.iterations);
  t.Bool("l2_flushed", s.l2_flushed);
  t.Close();
}

void WriteProvenance(TextOut& t, const Provenance& p) {
  t.Open("provenance");
  t.Str("gpu_name", p.gpu_name);
  t.Str("gpu_uuid", p.gpu_uuid);
  t.Str("driver_version", p.driver_version);
  t.Int("cuda_driver_api_version", p.cuda_driver_api_version);
  t.Int("cuda_runtime_version", p.cuda_runtime_version);
  t.Int("cublaslt_version", p.cublaslt_version);
  t.Int("nccl_version", p.nccl_version);
  t.Int("compute_capability_major", p.compute_capability_major);
  t.Int("compute_capability_minor", p.compute_capability_minor);
  t.Int("sm_count", p.sm_count);
  t.Int("memory_total_mib", p.memory_total_mib);
  t.Int("l2_bytes", p.l2_bytes);
  t.Int("shared_memory_per_sm_bytes", p.shared_memory_per_sm_bytes);
  t.Int("memory_bus_width_bits", p.memory_bus_width_bits);
  t.Dbl("sm_clock_max_mhz", p.sm_clock_max_mhz);
  t.Dbl("memory_clock_max_mhz", p.memory_clock_max_mhz);
  t.Dbl("sm_clock_start_mhz", p.sm_clock_start_mhz);
  t.Dbl("sm_clock_end_mhz", p.sm_clock_end_mhz);
  t.Dbl("memory_clock_start_mhz", p.memory_clock_start_mhz);
  t.Dbl("power_limit_watts", p.power_limit_watts);
  t.Int("gpu_count", p.gpu_count);
  t.Str("date_utc", p.date_utc);
  t.Str("tool_version", p.tool_version);
  t.Str("host", p.host);
  t.Str("command_line", p.command_line);
  t.Bool("quick", p.quick);
  t.Dbl("budget_seconds", p.budget_seconds);
  t.Dbl("wall_seconds", p.wall_seconds);
  for (const std::string& note : p.notes) t.Raw("notes", QuoteTextProtoString(note));
  t.Close();
}

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
  WriteProvenance(t, set.provenance);
  for (const CorrectnessCheck& c : set.checks) {
    t.Open("checks");
    t.Str("name", c.name);
    t.Bool("passed", c.passed);
    t.Dbl("relative_error", c.relative_error);
    t.Dbl("tolerance", c.tolerance);
    t.Close();
  }
  for (const HbmSample& s : set.hbm) {
    t.Open("hbm");
    t.Enum("kind", HbmKindName(s.kind));
    t.Int("buffer_bytes", s.buffer_bytes);
    t.Int("moved_bytes", s.moved_bytes);
    WriteTiming(t, s.timing);
    t.Dbl("bytes_per_second", s.bytes_per_second);
    t.Close();
  }
  for (const L2Sample& s : set.l2) {
    t.Open("l2");
    t.Int("footprint_bytes", s.footprint_bytes);
    t.Int("passes", s.passes);
    t.Int("moved_bytes", s.moved_bytes);
    WriteTiming(t, s.timing);
    t.Dbl("read_bytes_per_second", s.read_bytes_per_second);
    t.Close();
  }
  for (const GemmSample& s : set.gemm) {
    t.Open("gemm");
    t.Int("m", s.m);
    t.Int("n", s.n);
    t.Int("k", s.k);
    t.Enum("dtype", DTypeName(s.dtype));
    t.Enum("output_dtype", DTypeName(s.output_dtype));
    t.Str("layout", s.layout);
    WriteTiming(t, s.timing);
    t.Dbl("flops", s.flops);
    t.Dbl("flops_per_second", s.flops_per_second);
    t.Int("algorithm_id", s.algorithm_id);
    t.Int("tile_id", s.tile_id);
    t.Int("stages_id", s.stages_id);
    t.Int("splitk", s.splitk);
    t.Int("workspace_bytes", s.workspace_bytes);
    t.Bool("fp8_fast_accum", s.fp8_fast_accum);
    t.Int("min_moved_bytes", s.min_moved_bytes);
    for (const std::string& src : s.sources) t.Raw("sources", QuoteTextProtoString(src));
    t.Close();
  }
  for (const DecodeAttentionSample& s : set.decode_attention) {
    t.Open("decode_attention");
    t.Int("batch", s.batch);
    t.Int("context_tokens", s.context_tokens);
    t.Int("q_heads", s.q_heads);
    t.Int("kv_heads", s.kv_heads);
    t.Int("head_dim", s.head_dim);
    t.Enum("kv_dtype", DTypeName(s.kv_dtype));
    t.Enum("query_dtype", DTypeName(s.query_dtype));
    t.Int("block_size_tokens", s.block_size_tokens);
    WriteTiming(t, s.timing);
    t.Int("kv_bytes", s.kv_bytes);
    t.Int("moved_bytes", s.moved_bytes);
    t.Dbl("bytes_per_second", s.bytes_per_second);
    t.Dbl("flops", s.flops);
    t.Str("kernel", s.kernel);
    t.Close();
  }
  for (const PrefillAttentionSample& s : set.prefill_attention) {
    t.Open("prefill_attention");
    t.Int("batch", s.batch);
    t.Int("query_tokens", s.query_tokens);
    t.Int("context_tokens", s.context_tokens);
    t.Int("q_heads", s.q_heads);
    t.Int("kv_heads", s.kv_heads);
    t.Int("head_dim", s.head_dim);
    t.Bool("causal", s.causal);
    t.Enum("dtype", DTypeName(s.dtype));
    WriteTiming(t, s.timing);
    t.Dbl("flops", s.flops);
    t.Dbl("flops_per_second", s.flops_per_second);
    t.Int("moved_bytes", s.moved_bytes);
    t.Str("kernel", s.kernel);
    t.Close();
  }
  for (const LaunchOverheadSample& s : set.launch_overhead) {
    t.Open("launch_overhead");
    t.Enum("kind", LaunchKindName(s.kind));
    t.Int("kernels_per_measurement", s.kernels_per_measurement);
    WriteTiming(t, s.timing);
    t.Dbl("seconds_per_kernel", s.seconds_per_kernel);
    t.Close();
  }
  for (const AllReduceSample& s : set.all_reduce) {
    t.Open("all_reduce");
    t.Int("buffer_bytes", s.buffer_bytes);
    t.Int("ranks", s.ranks);
    t.Enum("dtype", DTypeName(s.dtype));
    WriteTiming(t, s.timing);
    t.Dbl("algorithm_bytes_per_second", s.algorithm_bytes_per_second);
    t.Dbl("bus_bytes_per_second", s.bus_bytes_per_second);
    t.Close();
  }
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
