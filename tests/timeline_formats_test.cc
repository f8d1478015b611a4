// `simulate --out` in its two timeline formats and with compressed tables: timeline.pftrace
// parses with Perfetto's schema (sim/app/output/perfetto_trace.proto, the public schema's fields),
// follows the sequence rules trace_processor applies (state cleared before any interned id is
// used, every id defined before use, every slice ended, each track in time order), and holds
// the same slices, args and counter values as timeline.json; --compress=zstd tables
// decompress (with the zstd command, an independent decoder) to the plain tables' bytes.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/app/output/perfetto_trace.pb.h"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;
using testing::ReadAll;
using testing::RunInfergrid;

// Two replicas, prefill, decode and mixed iterations, a queue that builds up.
const char kRun[] =
    "simulate --engine=vllm-v1@0.19 --num-replicas=2 --max-requests=80 --rate=40 --record-wall-time=false --quiet";

struct Slice {
  int64_t ts_ns = 0;
  int64_t dur_ns = 0;
  std::string name;
  std::map<std::string, double> numbers;
  std::string binding;
};

// Per replica, in time order: its slices and, per counter track name, its values.
struct Timeline {
  std::map<int, std::vector<Slice>> slices;
  std::map<std::pair<int, std::string>, std::vector<std::pair<int64_t, double>>> counters;
};

Timeline FromJson(const std::string& text) {
  Timeline t;
  const nlohmann::json doc = nlohmann::json::parse(text);
  for (const auto& e : doc["traceEvents"]) {
    const int replica = e["pid"].get<int>();
    if (e["ph"] == "X") {
      Slice s;
      s.ts_ns = std::llround(e["ts"].get<double>() * 1e3);
      s.dur_ns = std::llround(e["dur"].get<double>() * 1e3);
      s.name = e["name"].get<std::string>();
      for (const auto& [key, value] : e["args"].items()) {
        if (value.is_string())
          s.binding = value.get<std::string>();
        else
          s.numbers[key] = value.get<double>();
      }
      t.slices[replica].push_back(s);
    } else if (e["ph"] == "C") {
      const int64_t ts = std::llround(e["ts"].get<double>() * 1e3);
      for (const auto& [key, value] : e["args"].items()) {
        t.counters[{replica, absl::StrCat(e["name"].get<std::string>(), " ", key)}].emplace_back(ts,
                                                                                                 value.get<double>());
      }
    }
  }
  return t;
}

Timeline FromPerfetto(const std::string& bytes) {
  perfetto::protos::Trace trace;
  EXPECT_TRUE(trace.ParseFromString(bytes));
  Timeline t;
  std::map<uint64_t, int> replica_of_process;  // process uuid -> replica
  std::map<uint64_t, std::pair<int, std::string>> track;  // uuid -> replica, name
  std::map<uint64_t, std::string> event_names, annotation_names;
  std::map<uint64_t, int64_t> last_ts;  // per track
  std::map<int, bool> open;
  bool cleared = false;
  for (const perfetto::protos::TracePacket& p : trace.packet()) {
    EXPECT_EQ(p.trusted_packet_sequence_id(), 1u);
    if (p.sequence_flags() & perfetto::protos::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED) cleared = true;
    for (const auto& n : p.interned_data().event_names()) {
      EXPECT_TRUE(cleared);
      EXPECT_TRUE(event_names.emplace(n.iid(), n.name()).second) << "event name iid defined twice: " << n.iid();
    }
    for (const auto& n : p.interned_data().debug_annotation_names()) {
      EXPECT_TRUE(cleared);
      annotation_names.emplace(n.iid(), n.name());
    }
    if (p.has_track_descriptor()) {
      const perfetto::protos::TrackDescriptor& d = p.track_descriptor();
      if (d.has_process()) {
        EXPECT_EQ(d.process().process_name(), absl::StrCat("replica ", d.process().pid() - 1));
        replica_of_process[d.uuid()] = d.process().pid() - 1;
      } else {
        if (!replica_of_process.count(d.parent_uuid())) {
          ADD_FAILURE() << "a child track before its process";
          continue;
        }
        track[d.uuid()] = {replica_of_process[d.parent_uuid()], d.name()};
        EXPECT_EQ(d.has_counter(), d.name() != "iterations") << d.name();
      }
      continue;
    }
    EXPECT_TRUE(p.has_track_event());
    const perfetto::protos::TrackEvent& e = p.track_event();
    if (!track.count(e.track_uuid())) {
      ADD_FAILURE() << "an event on an undeclared track";
      continue;
    }
    const int replica = track[e.track_uuid()].first;
    const int64_t ts = static_cast<int64_t>(p.timestamp());
    EXPECT_GE(ts, last_ts[e.track_uuid()]) << "track out of time order";
    last_ts[e.track_uuid()] = ts;
    if (e.type() == perfetto::protos::TrackEvent::TYPE_SLICE_END) {
      EXPECT_TRUE(open[replica]);
      open[replica] = false;
      t.slices[replica].back().dur_ns = ts - t.slices[replica].back().ts_ns;
      continue;
    }
    if (e.type() != perfetto::protos::TrackEvent::TYPE_SLICE_BEGIN) {
      ADD_FAILURE() << "an event that is neither a slice's begin nor its end";
      continue;
    }
    EXPECT_FALSE(open[replica]) << "slices on one track nest";
    open[replica] = true;
    EXPECT_EQ(p.sequence_flags(), perfetto::protos::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE);
    Slice s;
    s.ts_ns = ts;
    EXPECT_TRUE(event_names.count(e.name_iid())) << "name iid used before it is interned";
    s.name = event_names[e.name_iid()];
    for (const perfetto::protos::DebugAnnotation& a : e.debug_annotations()) {
      EXPECT_TRUE(annotation_names.count(a.name_iid()));
      const std::string& key = annotation_names[a.name_iid()];
      if (a.has_string_value())
        s.binding = a.string_value();
      else
        s.numbers[key] = a.has_int_value() ? static_cast<double>(a.int_value()) : a.double_value();
    }
    t.slices[replica].push_back(s);
    EXPECT_EQ(e.extra_counter_values_size(), e.extra_counter_track_uuids_size());
    EXPECT_EQ(e.extra_double_counter_values_size(), e.extra_double_counter_track_uuids_size());
    EXPECT_LE(e.extra_counter_values_size() + e.extra_double_counter_values_size(), 8);  // trace_processor's limit
    for (int i = 0; i < e.extra_counter_values_size(); ++i) {
      t.counters[track.at(e.extra_counter_track_uuids(i))].emplace_back(ts,
                                                                        static_cast<double>(e.extra_counter_values(i)));
    }
    for (int i = 0; i < e.extra_double_counter_values_size(); ++i) {
      t.counters[track.at(e.extra_double_counter_track_uuids(i))].emplace_back(ts, e.extra_double_counter_values(i));
    }
  }
  for (const auto& [replica, is_open] : open)
    EXPECT_FALSE(is_open) << "replica " << replica << " has a slice never ended";
  return t;
}

TEST(TimelineFormats, PerfettoTraceHoldsTheJsonTimelinesEvents) {
  const fs::path base = testing::TestDir();  // (each call empties the folder)
  const fs::path json_dir = base / "json";
  const fs::path proto_dir = base / "proto";
  const testing::CommandResult j =
      RunInfergrid(absl::StrCat(kRun, " --timeline-format=json --out=", json_dir.string()));
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const testing::CommandResult p = RunInfergrid(absl::StrCat(kRun, " --out=", proto_dir.string()));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_FALSE(fs::exists(proto_dir / "timeline.json"));
  EXPECT_FALSE(fs::exists(json_dir / "timeline.pftrace"));
  // The choice of format changes nothing else.
  for (const char* name : {"requests.csv", "iterations.csv"}) {
    EXPECT_EQ(ReadAll(json_dir / name), ReadAll(proto_dir / name)) << name;
  }
  nlohmann::json json_summary = nlohmann::json::parse(ReadAll(json_dir / "summary.json"));
  nlohmann::json proto_summary = nlohmann::json::parse(ReadAll(proto_dir / "summary.json"));
  json_summary["config"].erase("command_line");
  proto_summary["config"].erase("command_line");
  EXPECT_EQ(json_summary, proto_summary);

  const Timeline from_json = FromJson(ReadAll(json_dir / "timeline.json"));
  const Timeline from_proto = FromPerfetto(ReadAll(proto_dir / "timeline.pftrace"));
  const int iterations =
      nlohmann::json::parse(ReadAll(proto_dir / "summary.json"))["iterations"]["iterations"].get<int>();
  ASSERT_EQ(from_proto.slices.size(), 2u);
  ASSERT_EQ(from_json.slices.size(), 2u);
  size_t slices = 0, mixed = 0;
  for (const auto& [replica, json_slices] : from_json.slices) {
    const std::vector<Slice>& proto_slices = from_proto.slices.at(replica);
    ASSERT_EQ(proto_slices.size(), json_slices.size()) << "replica " << replica;
    slices += json_slices.size();
    for (size_t i = 0; i < json_slices.size(); ++i) {
      const Slice& a = json_slices[i];
      const Slice& b = proto_slices[i];
      EXPECT_EQ(a.name, b.name);
      mixed += a.name.rfind("mixed ", 0) == 0;
      EXPECT_NEAR(static_cast<double>(a.ts_ns), static_cast<double>(b.ts_ns), 1) << a.name;
      EXPECT_NEAR(static_cast<double>(a.dur_ns), static_cast<double>(b.dur_ns), 2) << a.name;
      EXPECT_EQ(a.binding, b.binding);
      ASSERT_EQ(a.numbers.size(), b.numbers.size());
      for (const auto& [key, value] : a.numbers)
        EXPECT_NEAR(value, b.numbers.at(key), 5e-7) << key;  // JSON: 6 decimals
    }
  }
  EXPECT_EQ(static_cast<int>(slices), iterations);
  EXPECT_GT(mixed, 0u);
  ASSERT_EQ(from_json.counters.size(), 16u);  // 8 tracks x 2 replicas
  for (const auto& [key, values] : from_json.counters) {
    const auto& proto_values = from_proto.counters.at(key);
    ASSERT_EQ(values.size(), proto_values.size()) << key.second;
    for (size_t i = 0; i < values.size(); ++i) {
      EXPECT_NEAR(static_cast<double>(values[i].first), static_cast<double>(proto_values[i].first), 1);
      EXPECT_NEAR(values[i].second, proto_values[i].second, 5e-7) << key.second;
    }
  }
  // The queue builds up at 40 req/s, and every iteration is bound by some resource share.
  double most_waiting = 0;
  for (const auto& [ts, v] : from_proto.counters.at({0, "queue waiting"})) most_waiting = std::max(most_waiting, v);
  EXPECT_GT(most_waiting, 0);
  // The binary trace is the smaller: under half the JSON's bytes.
  EXPECT_LT(fs::file_size(proto_dir / "timeline.pftrace") * 2, fs::file_size(json_dir / "timeline.json"));
}

TEST(TimelineFormats, TruncatedTimelineIsNamedInTheNote) {
  const fs::path dir = testing::TestDir() / "short";
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat(kRun, " --timeline-max-iterations=5 --format=json --out=", dir.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("timeline.pftrace holds the first 5 iterations"));
  EXPECT_EQ(FromPerfetto(ReadAll(dir / "timeline.pftrace")).slices.at(0).size() +
                FromPerfetto(ReadAll(dir / "timeline.pftrace")).slices.at(1).size(),
            5u);
}

TEST(TimelineFormats, CompressedTablesDecompressToThePlainBytes) {
  const fs::path base = testing::TestDir();  // (each call empties the folder)
  const fs::path plain = base / "plain";
  const fs::path packed = base / "zstd";
  const testing::CommandResult a = RunInfergrid(absl::StrCat(kRun, " --out=", plain.string()));
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const testing::CommandResult b = RunInfergrid(absl::StrCat(kRun, " --compress=zstd --out=", packed.string()));
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_THAT(b.out, ::testing::HasSubstr("requests.csv.zst, iterations.csv.zst, timeline.pftrace}"));
  for (const char* name : {"requests.csv", "iterations.csv"}) {
    EXPECT_FALSE(fs::exists(packed / name)) << name;
    const fs::path compressed = packed / absl::StrCat(name, ".zst");
    const fs::path restored = base / absl::StrCat(name, ".restored");
    ASSERT_EQ(std::system(absl::StrCat("zstd -q -d -f -o ", restored.string(), " ", compressed.string()).c_str()), 0)
        << name;
    const std::string original = ReadAll(plain / name);
    EXPECT_EQ(ReadAll(restored), original) << name;
    EXPECT_LT(fs::file_size(compressed) * 2, original.size()) << name;
  }
  EXPECT_EQ(ReadAll(packed / "timeline.pftrace"), ReadAll(plain / "timeline.pftrace"));
  // report reads plain tables and says so, rather than drawing a page without them.
  const testing::CommandResult report =
      RunInfergrid(absl::StrCat("report ", packed.string(), " --out=", (base / "page.html").string()));
  EXPECT_NE(report.exit_code, 0);
  EXPECT_THAT(report.err,
              ::testing::HasSubstr("requests.csv.zst: report reads the plain table; restore it with `zstd -d"));
  EXPECT_FALSE(fs::exists(base / "page.html"));
  // simulate --report with --compress draws from the plain tables and writes the compressed ones.
  const fs::path both = base / "both";
  const testing::CommandResult c = RunInfergrid(
      absl::StrCat(kRun, " --compress=zstd --out=", both.string(), " --report=", (base / "both.html").string()));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_TRUE(fs::exists(base / "both.html"));
  for (const char* name : {"requests.csv", "iterations.csv"}) {
    EXPECT_FALSE(fs::exists(both / name)) << name;
    const fs::path restored = base / absl::StrCat(name, ".from-report-run");
    ASSERT_EQ(
        std::system(absl::StrCat("zstd -q -d -f -o ", restored.string(), " ", (both / name).string(), ".zst").c_str()),
        0);
    EXPECT_EQ(ReadAll(restored), ReadAll(plain / name)) << name;
  }
}

TEST(TimelineFormats, FormatFlagsAreCheckedAndNeedOut) {
  for (const testing::CliErrorCase& c : std::vector<testing::CliErrorCase>{
           {"simulate --max-requests=5 --out=never-written --timeline-format=chrome", 2,
            "--timeline-format: unknown format 'chrome'"},
           {"simulate --max-requests=5 --out=never-written --compress=gzip", 2,
            "--compress: unknown compression 'gzip'"},
           {"simulate --max-requests=5 --compress=zstd", 2, "--compress needs --out=DIR"},
           {"simulate --max-requests=5 --timeline-format=json", 2, "--timeline-format needs --out=DIR"}}) {
    testing::ExpectOneLineError(c);
  }
}

}  // namespace
}  // namespace infergrid
