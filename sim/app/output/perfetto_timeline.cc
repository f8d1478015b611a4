#include "sim/app/output/perfetto_timeline.h"

#include <algorithm>
#include <cmath>
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
constexpr const char* kCounterNames[kCounters] = {
    "queue waiting",   "queue running", "queue swapped",     "kv_blocks used",
    "resources tensor", "resources hbm", "resources network", "resources host"};

// The slice's args, interned as debug-annotation names 1..N in this order.
enum Arg : uint64_t {
  kIteration = 1, kBatchSize, kPrefillSeqs, kPrefillTokens, kDecodeSeqs, kPaddingSeqs,
  kKvBlocksUsed, kPreempted, kComputeMs, kCommunicationMs, kBinding, kNumArgsPlusOne
};
constexpr const char* kArgNames[kNumArgsPlusOne] = {
    "",           "iteration",   "batch_size",     "prefill_seqs", "prefill_tokens", "decode_seqs",
    "padding_seqs", "kv_blocks_used", "preempted", "compute_ms",   "communication_ms", "binding"};

int64_t Nanoseconds(double seconds) { return std::llround(seconds * 1e9); }

using google::protobuf::internal::WireFormatLite;

// TrackEvent.debug_annotations += {name_iid, int_value | double_value}, written in place: the
// annotation's length is known from its two fields (a name iid below 128 is one byte).
void IntArg(TrackEventBytes& event, uint64_t name, int64_t value) {
  const auto bits = static_cast<uint64_t>(value);
  event.Tag(TrackEvent::kDebugAnnotationsFieldNumber, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  event.RawVarint(1 + google::protobuf::io::CodedOutputStream::VarintSize64(name) + 1 +
                  google::protobuf::io::CodedOutputStream::VarintSize64(bits));
  event.Varint(DebugAnnotation::kNameIidFieldNumber, name);
  event.Varint(DebugAnnotation::kIntValueFieldNumber, bits);
}

void DoubleArg(TrackEventBytes& event, uint64_t name, double value) {
  event.Tag(TrackEvent::kDebugAnnotationsFieldNumber, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  event.RawVarint(1 + google::protobuf::io::CodedOutputStream::VarintSize64(name) + 1 + 8);
  event.Varint(DebugAnnotation::kNameIidFieldNumber, name);
  event.Double(DebugAnnotation::kDoubleValueFieldNumber, value);
}

// What a slice's name is made of (AppendSliceName): the name is built only the first time.
SliceNameKey NameKeyOf(const IterationRecord& r) {
  const int64_t decodes = r.decode_seqs + r.padding_seqs;
  if (r.prefill_seqs > 0) return {r.prefill_seqs, decodes > 0 ? decodes : 0, decodes > 0 ? r.new_tokens() : r.prefill_tokens};
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
      if (c < 4) counter->mutable_counter()->set_unit(CounterDescriptor::UNIT_COUNT);
      else counter->mutable_counter();
      EmitPacket();
    }
  }
}

void PerfettoTimeline::EndOpenSlice(int replica) {
  int64_t& end_ns = open_slice_end_ns_[static_cast<size_t>(replica)];
  if (end_ns < 0) return;
  event_.Clear();
  event_.Varint(TrackEvent::kTypeFieldNumber, TrackEvent::TYPE_SLICE_END);
  event_.Varint(TrackEvent::kTrackUuidFieldNumber, IterationsUuid(replica));
  EmitEvent(end_ns, false);
  end_ns = -1;
}

// The packet {timestamp, sequence id, flags, interned_, track_event = event_} as one
// Trace.packet, encoded field by field with the schema's numbers (no message objects: this
// runs once per iteration).
void PerfettoTimeline::EmitEvent(int64_t timestamp_ns, bool uses_interning) {
  ProtoBytes<64> head;  // the packet's fields before the event
  head.Varint(TracePacket::kTimestampFieldNumber, static_cast<uint64_t>(timestamp_ns));
  head.Varint(TracePacket::kTrustedPacketSequenceIdFieldNumber, kSequence);
  if (uses_interning) head.Varint(TracePacket::kSequenceFlagsFieldNumber, TracePacket::SEQ_NEEDS_INCREMENTAL_STATE);
  if (interned_.size() > 0) {
    head.Tag(TracePacket::kInternedDataFieldNumber, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
    head.RawVarint(interned_.size());
  }
  ProtoBytes<16> event_head;
  event_head.Tag(TracePacket::kTrackEventFieldNumber, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  event_head.RawVarint(event_.size());
  ProtoBytes<16> packet_head;
  packet_head.Tag(perfetto::protos::Trace::kPacketFieldNumber, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  packet_head.RawVarint(head.size() + interned_.size() + event_head.size() + event_.size());
  std::string& out = *file_.buffer();
  const auto append = [&out](absl::string_view bytes) { out.append(bytes.data(), bytes.size()); };
  append(packet_head.view());
  append(head.view());
  append(interned_.view());
  interned_.Clear();  // defined once, in this packet
  append(event_head.view());
  append(event_.view());
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
  event_.Clear();
  event_.Varint(TrackEvent::kTypeFieldNumber, TrackEvent::TYPE_SLICE_BEGIN);
  event_.Varint(TrackEvent::kTrackUuidFieldNumber, IterationsUuid(r.replica));
  event_.Varint(TrackEvent::kNameIidFieldNumber, name_iid);
  const int64_t ints[] = {r.index, r.batch_size(), r.prefill_seqs, r.prefill_tokens,
                          r.decode_seqs, r.padding_seqs, r.kv_blocks_used, r.preempted};
  for (uint64_t arg = kIteration; arg <= kPreempted; ++arg) IntArg(event_, arg, ints[arg - kIteration]);
  DoubleArg(event_, kComputeMs, r.compute_s * 1e3);
  DoubleArg(event_, kCommunicationMs, r.communication_s * 1e3);
  ProtoBytes<64> binding;
  binding.Varint(DebugAnnotation::kNameIidFieldNumber, kBinding);
  binding.Bytes(DebugAnnotation::kStringValueFieldNumber, ResourceName(r.binding));
  event_.Bytes(TrackEvent::kDebugAnnotationsFieldNumber, binding.view());

  const int64_t counts[] = {r.waiting, r.running, r.swapped, r.kv_blocks_used};
  for (int c = 0; c < 4; ++c) {
    event_.Varint(TrackEvent::kExtraCounterTrackUuidsFieldNumber, CounterUuid(r.replica, c));
    event_.Varint(TrackEvent::kExtraCounterValuesFieldNumber, static_cast<uint64_t>(counts[c]));
  }
  const ResourceShares shares = SharesOf(r);
  const double fractions[] = {shares.tensor, shares.hbm, shares.network, shares.host};
  for (int c = 0; c < 4; ++c) {
    event_.Varint(TrackEvent::kExtraDoubleCounterTrackUuidsFieldNumber, CounterUuid(r.replica, 4 + c));
    event_.Double(TrackEvent::kExtraDoubleCounterValuesFieldNumber, fractions[c]);
  }
  EmitEvent(start_ns, true);
  open_slice_end_ns_[static_cast<size_t>(r.replica)] = std::max(Nanoseconds(r.end_s), start_ns);
}

absl::Status PerfettoTimeline::Close() {
  for (int r = 0; r < num_replicas_; ++r) EndOpenSlice(r);
  return file_.Close();
}

}  // namespace infergrid
