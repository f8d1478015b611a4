// timeline.pftrace: the timeline (sim/app/output/timeline.h) as Perfetto's native protobuf trace
// (sim/app/output/perfetto_trace.proto, wire-compatible with Perfetto's public schema). One packet
// sequence; the first packet clears the incremental state and interns the argument names;
// each slice name is interned the first time it occurs. Per replica R: a process track (pid
// R + 1, "replica R"), a child track "iterations" for the slices and eight counter tracks,
// whose values ride on each slice's begin event (extra counter values, as Perfetto's own SDK
// records thread time). A slice's end is written just before the replica's next slice begins
// (or at Close), so each track's events are in time order. Timestamps in nanoseconds.
#ifndef INFERGRID_SIM_APP_OUTPUT_PERFETTO_TIMELINE_H_
#define INFERGRID_SIM_APP_OUTPUT_PERFETTO_TIMELINE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "sim/app/output/buffered_file.h"
#include "sim/app/output/perfetto_trace.pb.h"
#include "sim/app/output/proto_bytes.h"
#include "sim/app/output/timeline.h"

namespace infergrid {

// A slice name's parts: prefill sequences, decode sequences, tokens (as AppendSliceName shows
// them); one key per distinct name.
using SliceNameKey = std::tuple<int64_t, int64_t, int64_t>;

class PerfettoTimeline final : public Timeline {
 public:
  static absl::StatusOr<std::unique_ptr<Timeline>> Open(const std::string& path, int num_replicas,
                                                        int64_t max_iterations);
  absl::Status Close() override;

  // Track uuids of replica R: the process, its "iterations" track and counter track c (0..7 in
  // the order "queue waiting", "queue running", "queue swapped", "kv_blocks used", "resources
  // tensor", "resources hbm", "resources network", "resources host").
  static uint64_t ProcessUuid(int replica) { return (static_cast<uint64_t>(replica) + 1) << 4; }
  static uint64_t IterationsUuid(int replica) { return ProcessUuid(replica) + 1; }
  static uint64_t CounterUuid(int replica, int counter) {
    return ProcessUuid(replica) + 2 + static_cast<uint64_t>(counter);
  }

 private:
  PerfettoTimeline(BufferedFile file, int num_replicas, int64_t max_iterations);
  void Write(const IterationRecord& r) override;
  void WriteHeader();
  void EndOpenSlice(int replica);
  // Appends `packet_` (the header's messages) to the file as one Trace.packet.
  void EmitPacket();
  // A slice's begin event is at most: type, track, name (3 + 2 x 11), 8 int args (8 x 15),
  // 2 double args (2 x 13), the binding (5 + 1 + a name of a few bytes), 4 + 4 counters with
  // their tracks (4 x 14 + 4 x 24): 336 bytes and the binding's name.
  static constexpr size_t kMaxBeginEventBytes = 512;
  // Room before an event for its packet's other fields: packet tag and length (4), timestamp
  // (11), sequence id and flags (4), interned data (2 + at most 128), the event's tag and length
  // (3).
  static constexpr size_t kPacketHeadRoom = 160;
  // Appends the packet holding the track event [event, end) (and interned_, if not empty); the
  // kPacketHeadRoom bytes before `event` are its to write.
  void EmitEvent(int64_t timestamp_ns, bool uses_interning, uint8_t* event, uint8_t* end);

  BufferedFile file_;
  int num_replicas_;
  perfetto::protos::TracePacket packet_;  // reused: its cleared sub-messages keep their memory
  // Per-iteration packets are encoded in stack arrays (EmitEvent); these are reused.
  std::string name_;
  ProtoBytes<128> interned_;  // the one slice name an event may define (names are short)
  // The interned iid of r's slice name, defining it in interned_ the first time.
  uint64_t NameIid(const IterationRecord& r);
  static constexpr int64_t kDirectDecodeNames = 1 << 16;
  std::vector<uint64_t> decode_iids_;  // by decode count; 0: not yet
  absl::flat_hash_map<SliceNameKey, uint64_t> name_iids_;  // the other names
  uint64_t names_interned_ = 0;
  std::vector<int64_t> open_slice_end_ns_;  // per replica; -1: none open
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_OUTPUT_PERFETTO_TIMELINE_H_
