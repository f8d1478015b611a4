#include "sim/app/output/perfetto_timeline.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"

namespace infergrid {
namespace {

using perfetto::protos::CounterDescriptor;
using perfetto::protos::DebugAnnotation;
using perfetto::protos::TracePacket;
using perfetto::protos::TrackEvent;

constexpr uint32_t kSequence = 1;
constexpr int kCounters = 8;
constexpr const char* kCounterNames[kCounters] = {"queue waiting",     "queue running",    "queue swapped",
                                                  "kv_blocks used",    "resources tensor", "resources hbm",
                                                  "resources network", "resources host"};

// The slice's args, interned as debug-annotation names 1..N in this order.
enum Arg : uint64_t {
  kIteration = 1,
  kBatchSize,
  kPrefillSeqs,
  kPrefillTokens,
  kDecodeSeqs,
  kPaddingSeqs,
  kKvBlocksUsed,
  kPreempted,
  kComputeMs,
  kCommunicationMs,
  kBinding,
  kNumArgsPlusOne
};
constexpr const char* kArgNames[kNumArgsPlusOne] = {"",
                                                    "iteration",
                                                    "batch_size",
                                                    "prefill_seqs",
                                                    "prefill_tokens",
                                                    "decode_seqs",
                                                    "padding_seqs",
                                                    "kv_blocks_used",
                                                    "preempted",
                                                    "compute_ms",
                                                    "communication_ms",
                                                    "binding"};

int64_t Nanoseconds(double seconds) { return std::llround(seconds * 1e9); }

using google::protobuf::internal::WireFormatLite;

// TrackEvent.debug_annotations += {name_iid, value}, written in place: `value` writes the
// value's field, and the annotation's length (one byte: a name iid below 128 and a value of at
// most a few dozen bytes) is filled in after.
template <typename WriteValue>
uint8_t* Annotation(uint8_t* p, uint64_t name, WriteValue write_value) {
  p = wire::Tag<TrackEvent::kDebugAnnotationsFieldNumber, WireFormatLite::WIRETYPE_LENGTH_DELIMITED>(p);
  uint8_t* length = p++;
  p = write_value(wire::Varint<DebugAnnotation::kNameIidFieldNumber>(p, name));
  *length = static_cast<uint8_t>(p - length - 1);
  return p;
}

uint8_t* IntArg(uint8_t* p, uint64_t name, int64_t value) {
  return Annotation(p, name, [value](uint8_t* q) {
    return wire::Varint<DebugAnnotation::kIntValueFieldNumber>(q, static_cast<uint64_t>(value));
  });
}

uint8_t* DoubleArg(uint8_t* p, uint64_t name, double value) {
  return Annotation(p, name,
                    [value](uint8_t* q) { return wire::Double<DebugAnnotation::kDoubleValueFieldNumber>(q, value); });
}

uint8_t* StringArg(uint8_t* p, uint64_t name, absl::string_view value) {
  return Annotation(p, name,
                    [value](uint8_t* q) { return wire::Bytes<DebugAnnotation::kStringValueFieldNumber>(q, value); });
}

// What a slice's name is made of (AppendSliceName): the name is built only the first time.
SliceNameKey NameKeyOf(const IterationRecord& r) {
  const int64_t decodes = r.decode_seqs + r.padding_seqs;
  if (r.prefill_seqs > 0)
    return {r.prefill_seqs, decodes > 0 ? decodes : 0, decodes > 0 ? r.new_tokens() : r.prefill_tokens};
  return {0, decodes, 0};
}

}  // namespace

PerfettoTimeline::PerfettoTimeline(BufferedFile file, int num_replicas, int64_t max_iterations)
    : Timeline(max_iterations),
      file_(std::move(file)),
      num_replicas_(num_replicas),
      open_slice_end_ns_(static_cast<size_t>(num_replicas), -1) {}

absl::StatusOr<std::unique_ptr<Timeline>> PerfettoTimeline::Open(const std::string& path, int num_replicas,
                                                                 int64_t max_iterations) {
  absl::StatusOr<BufferedFile> file = BufferedFile::Open(path);
  if (!file.ok()) return file.status();
  std::unique_ptr<PerfettoTimeline> timeline(new PerfettoTimeline(std::move(*file), num_replicas, max_iterations));
  timeline->WriteHeader();
  return std::unique_ptr<Timeline>(std::move(timeline));
}

void PerfettoTimeline::EmitPacket() {
  const size_t size = packet_.ByteSizeLong();
  std::string& b = *file_.buffer();
  const size_t at = b.size();
  b.resize(at + 1 + google::protobuf::io::CodedOutputStream::VarintSize64(size) + size);
  auto* p = reinterpret_cast<uint8_t*>(b.data() + at);
  *p++ = 0x0A;  // Trace.packet: field 1, length-delimited
  p = google::protobuf::io::CodedOutputStream::WriteVarint64ToArray(size, p);
  packet_.SerializeWithCachedSizesToArray(p);
  file_.FlushIfFull();
}

// Track descriptors for every replica; the first packet also clears the sequence's state and
// interns the argument names.
void PerfettoTimeline::WriteHeader() {
  for (int r = 0; r < num_replicas_; ++r) {
    packet_.Clear();
    packet_.set_trusted_packet_sequence_id(kSequence);
    if (r == 0) {
      packet_.set_sequence_flags(TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
      for (uint64_t iid = 1; iid < kNumArgsPlusOne; ++iid) {
        perfetto::protos::DebugAnnotationName* name = packet_.mutable_interned_data()->add_debug_annotation_names();
        name->set_iid(iid);
        name->set_name(kArgNames[iid]);
      }
    }
    perfetto::protos::TrackDescriptor* process = packet_.mutable_track_descriptor();
    process->set_uuid(ProcessUuid(r));
    process->mutable_process()->set_pid(r + 1);
    process->mutable_process()->set_process_name(absl::StrCat("replica ", r));
    EmitPacket();

    packet_.Clear();
    packet_.set_trusted_packet_sequence_id(kSequence);
    perfetto::protos::TrackDescriptor* iterations = packet_.mutable_track_descriptor();
    iterations->set_uuid(IterationsUuid(r));
    iterations->set_parent_uuid(ProcessUuid(r));
    iterations->set_name("iterations");
    EmitPacket();

    for (int c = 0; c < kCounters; ++c) {
      packet_.Clear();
      packet_.set_trusted_packet_sequence_id(kSequence);
      perfetto::protos::TrackDescriptor* counter = packet_.mutable_track_descriptor();
      counter->set_uuid(CounterUuid(r, c));
      counter->set_parent_uuid(ProcessUuid(r));
      counter->set_name(kCounterNames[c]);
      if (c < 4)
        counter->mutable_counter()->set_unit(CounterDescriptor::UNIT_COUNT);
      else
        counter->mutable_counter();
      EmitPacket();
    }
  }
}

void PerfettoTimeline::EndOpenSlice(int replica) {
  int64_t& end_ns = open_slice_end_ns_[static_cast<size_t>(replica)];
  if (end_ns < 0) return;
  uint8_t packet[kPacketHeadRoom + 32];
  uint8_t* const event = packet + kPacketHeadRoom;
  uint8_t* p = wire::Varint<TrackEvent::kTypeFieldNumber>(event, TrackEvent::TYPE_SLICE_END);
  p = wire::Varint<TrackEvent::kTrackUuidFieldNumber>(p, IterationsUuid(replica));
  EmitEvent(end_ns, false, event, p);
  end_ns = -1;
}

// The packet {timestamp, sequence id, flags, interned_, track_event = [event, end)} as one
// Trace.packet: its fields before the event are written into a small array, then copied with
// the packet's tag and length into the kPacketHeadRoom bytes before `event`, so that the
// packet's bytes are contiguous (one append).
void PerfettoTimeline::EmitEvent(int64_t timestamp_ns, bool uses_interning, uint8_t* event, uint8_t* end) {
  const auto event_size = static_cast<size_t>(end - event);
  uint8_t head[kPacketHeadRoom];
  uint8_t* h = wire::Varint<TracePacket::kTimestampFieldNumber>(head, static_cast<uint64_t>(timestamp_ns));
  h = wire::Varint<TracePacket::kTrustedPacketSequenceIdFieldNumber>(h, kSequence);
  if (uses_interning)
    h = wire::Varint<TracePacket::kSequenceFlagsFieldNumber>(h, TracePacket::SEQ_NEEDS_INCREMENTAL_STATE);
  if (interned_.size() > 0) {
    h = wire::Bytes<TracePacket::kInternedDataFieldNumber>(h, interned_.view());
    interned_.Clear();  // defined once, in this packet
  }
  h = wire::Tag<TracePacket::kTrackEventFieldNumber, WireFormatLite::WIRETYPE_LENGTH_DELIMITED>(h);
  h = wire::RawVarint(h, event_size);
  const auto head_size = static_cast<size_t>(h - head);
  uint8_t packet_tag[16];
  uint8_t* t =
      wire::Tag<perfetto::protos::Trace::kPacketFieldNumber, WireFormatLite::WIRETYPE_LENGTH_DELIMITED>(packet_tag);
  t = wire::RawVarint(t, head_size + event_size);
  const auto tag_size = static_cast<size_t>(t - packet_tag);
  uint8_t* const start = event - tag_size - head_size;
  std::memcpy(start, packet_tag, tag_size);
  std::memcpy(start + tag_size, head, head_size);
  file_.Append(absl::string_view(reinterpret_cast<const char*>(start), static_cast<size_t>(end - start)));
  file_.FlushIfFull();
}

// Decode-only slices ("decode N", most of them) are looked up by N in an array; the others, whose
// names hold token counts, in a hash map. Iids count up in order of first use across both.
uint64_t PerfettoTimeline::NameIid(const IterationRecord& r) {
  const SliceNameKey key = NameKeyOf(r);
  const auto [prefills, decodes, tokens] = key;
  uint64_t* iid = nullptr;
  if (prefills == 0 && decodes >= 0 && decodes < kDirectDecodeNames) {
    if (decode_iids_.size() <= static_cast<size_t>(decodes)) decode_iids_.resize(static_cast<size_t>(decodes) + 1, 0);
    iid = &decode_iids_[static_cast<size_t>(decodes)];
  } else {
    iid = &name_iids_.try_emplace(key, 0).first->second;
  }
  if (*iid != 0) return *iid;
  *iid = ++names_interned_;
  // InternedData.event_names += EventName{iid, name}
  name_.clear();
  AppendSliceName(&name_, r);
  ProtoBytes<96> entry;
  entry.Varint(perfetto::protos::EventName::kIidFieldNumber, *iid);
  entry.Bytes(perfetto::protos::EventName::kNameFieldNumber, name_);
  interned_.Bytes(perfetto::protos::InternedData::kEventNamesFieldNumber, entry.view());
  return *iid;
}

void PerfettoTimeline::Write(const IterationRecord& r) {
  EndOpenSlice(r.replica);
  const int64_t start_ns = Nanoseconds(r.start_s);
  const uint64_t name_iid = NameIid(r);
  uint8_t packet[kPacketHeadRoom + kMaxBeginEventBytes];
  uint8_t* const event = packet + kPacketHeadRoom;
  uint8_t* p = wire::Varint<TrackEvent::kTypeFieldNumber>(event, TrackEvent::TYPE_SLICE_BEGIN);
  p = wire::Varint<TrackEvent::kTrackUuidFieldNumber>(p, IterationsUuid(r.replica));
  p = wire::Varint<TrackEvent::kNameIidFieldNumber>(p, name_iid);
  const int64_t ints[] = {r.index,       r.batch_size(), r.prefill_seqs,   r.prefill_tokens,
                          r.decode_seqs, r.padding_seqs, r.kv_blocks_used, r.preempted};
  for (uint64_t arg = kIteration; arg <= kPreempted; ++arg) p = IntArg(p, arg, ints[arg - kIteration]);
  p = DoubleArg(p, kComputeMs, r.compute_s * 1e3);
  p = DoubleArg(p, kCommunicationMs, r.communication_s * 1e3);
  p = StringArg(p, kBinding, ResourceName(r.binding));

  const int64_t counts[] = {r.waiting, r.running, r.swapped, r.kv_blocks_used};
  for (int c = 0; c < 4; ++c) {
    p = wire::Varint<TrackEvent::kExtraCounterTrackUuidsFieldNumber>(p, CounterUuid(r.replica, c));
    p = wire::Varint<TrackEvent::kExtraCounterValuesFieldNumber>(p, static_cast<uint64_t>(counts[c]));
  }
  const ResourceShares shares = SharesOf(r);
  const double fractions[] = {shares.tensor, shares.hbm, shares.network, shares.host};
  for (int c = 0; c < 4; ++c) {
    p = wire::Varint<TrackEvent::kExtraDoubleCounterTrackUuidsFieldNumber>(p, CounterUuid(r.replica, 4 + c));
    p = wire::Double<TrackEvent::kExtraDoubleCounterValuesFieldNumber>(p, fractions[c]);
  }
  EmitEvent(start_ns, true, event, p);
  open_slice_end_ns_[static_cast<size_t>(r.replica)] = std::max(Nanoseconds(r.end_s), start_ns);
}

absl::Status PerfettoTimeline::Close() {
  for (int r = 0; r < num_replicas_; ++r) EndOpenSlice(r);
  return file_.Close();
}

}  // namespace infergrid
