// Protocol Buffers fields encoded into fixed memory, for the timeline's messages: ProtoBytes, a
// fixed array that checks its bound at each field (the names it interns, a bounded entry at a
// time: a message that would outgrow the array is a bug in the caller's bound, so it aborts
// rather than overflow), and wire::, bare pointer writers for the track event written once per
// iteration, whose size the caller bounds up front. Neither makes a std::string call per
// field. The wire format is Protocol Buffers' own (tags, varints, little-endian fixed64,
// length-delimited bytes), through its CodedOutputStream and WireFormatLite helpers.
#ifndef INFERGRID_SIM_APP_OUTPUT_PROTO_BYTES_H_
#define INFERGRID_SIM_APP_OUTPUT_PROTO_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "absl/strings/string_view.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"

namespace infergrid {

template <size_t kCapacity>
class ProtoBytes {
 public:
  using WireFormatLite = google::protobuf::internal::WireFormatLite;

  void Clear() { end_ = data_; }
  absl::string_view view() const { return {reinterpret_cast<const char*>(data_), size()}; }
  size_t size() const { return static_cast<size_t>(end_ - data_); }

  // A bare varint (a length, or a value after its tag).
  void RawVarint(uint64_t value) {
    Room(10);
    end_ = google::protobuf::io::CodedOutputStream::WriteVarint64ToArray(value, end_);
  }
  void Tag(int field, WireFormatLite::WireType type) { RawVarint(WireFormatLite::MakeTag(field, type)); }
  // A varint field (negative int64 values take ten bytes, as the schema's int64 encodes them).
  void Varint(int field, uint64_t value) {
    Tag(field, WireFormatLite::WIRETYPE_VARINT);
    RawVarint(value);
  }
  void Double(int field, double value) {
    Tag(field, WireFormatLite::WIRETYPE_FIXED64);
    Room(8);
    end_ =
        google::protobuf::io::CodedOutputStream::WriteLittleEndian64ToArray(WireFormatLite::EncodeDouble(value), end_);
  }
  // A string, bytes or nested-message field.
  void Bytes(int field, absl::string_view bytes) {
    Tag(field, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
    RawVarint(bytes.size());
    Room(bytes.size());
    std::memcpy(end_, bytes.data(), bytes.size());
    end_ += bytes.size();
  }

 private:
  void Room(size_t bytes) {
    if (static_cast<size_t>(data_ + kCapacity - end_) < bytes) [[unlikely]]
      std::abort();
  }

  uint8_t data_[kCapacity];
  uint8_t* end_ = data_;
};

// The same fields written through a bare pointer that the caller has bounded (no check per
// field), each returning the pointer past what it wrote: for the message written once per
// iteration, where a pointer kept in a register is what makes it cheap (ProtoBytes's end_, a
// member written through by byte stores, is reloaded after each one). Field numbers are
// template arguments, so each tag is a constant.
namespace wire {

using WireFormatLite = google::protobuf::internal::WireFormatLite;
using CodedOutputStream = google::protobuf::io::CodedOutputStream;

template <int kField, WireFormatLite::WireType kType>
inline uint8_t* Tag(uint8_t* p) {
  constexpr uint32_t kTag = WireFormatLite::MakeTag(kField, kType);
  if constexpr (kTag < 0x80) {
    *p = static_cast<uint8_t>(kTag);
    return p + 1;
  } else {
    return CodedOutputStream::WriteVarint32ToArray(kTag, p);
  }
}
inline uint8_t* RawVarint(uint8_t* p, uint64_t value) {
  if (value < 0x80) {
    *p = static_cast<uint8_t>(value);
    return p + 1;
  }
  return CodedOutputStream::WriteVarint64ToArray(value, p);
}
template <int kField>
inline uint8_t* Varint(uint8_t* p, uint64_t value) {
  return RawVarint(Tag<kField, WireFormatLite::WIRETYPE_VARINT>(p), value);
}
template <int kField>
inline uint8_t* Double(uint8_t* p, double value) {
  return CodedOutputStream::WriteLittleEndian64ToArray(WireFormatLite::EncodeDouble(value),
                                                       Tag<kField, WireFormatLite::WIRETYPE_FIXED64>(p));
}
template <int kField>
inline uint8_t* Bytes(uint8_t* p, absl::string_view bytes) {
  p = RawVarint(Tag<kField, WireFormatLite::WIRETYPE_LENGTH_DELIMITED>(p), bytes.size());
  std::memcpy(p, bytes.data(), bytes.size());
  return p + bytes.size();
}

}  // namespace wire
}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_OUTPUT_PROTO_BYTES_H_
