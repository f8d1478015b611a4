// The CSV number appenders print exactly what printf prints (iterations.csv must not change
// when its writer does).
#include <sched.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <thread>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/prefault.h"
#include "gtest/gtest.h"
#include "sim/app/output/background_sink.h"
#include "sim/app/output/csv_append.h"
#include "sim/app/output/perfetto_trace.pb.h"
#include "sim/app/output/proto_bytes.h"

namespace infergrid {
namespace {

TEST(CsvAppend, FixedMatchesPrintfEverywhere) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-12, 40);
  std::vector<double> values = {0.0,
                                -0.0,
                                0.5e-9,
                                1.5e-9,
                                2.5e-9,
                                0.0000000005,
                                1e300,
                                -1e300,
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::denorm_min(),
                                1.0 / 3,
                                2.0 / 3,
                                204.11312345678951,
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN()};
  for (int i = 0; i < 100000; ++i) values.push_back(std::ldexp(mantissa(rng), exponent(rng)));
  // Simulated times (0 .. 10^6 s) and values next to a rounding tie or a carry at 6 and 9
  // decimals, where a shortcut through value x 10^precision would go wrong.
  std::uniform_real_distribution<double> seconds(0.0, 1e6);
  for (int i = 0; i < 200000; ++i) values.push_back(seconds(rng));
  for (const double whole : {0.0, 1.0, 3599.0, 123456.0, 9.0e15}) {
    for (const double tail : {0.5e-9, 1.5e-9, 0.5e-6, 2.5e-6, 0.9999999995, 0.9999995, 0.1234565, 0.1234564995}) {
      const double v = whole + tail;
      values.insert(values.end(), {v, std::nextafter(v, 0.0), std::nextafter(v, 1e300)});
    }
  }
  for (const double v : values) {
    for (const int precision : {6, 9}) {
      std::string got;
      AppendFixed(&got, v, precision, '\n');
      EXPECT_EQ(got, absl::StrFormat("%.*f\n", precision, v)) << v;
    }
  }
}

TEST(CsvAppend, IntCharsMatchesToChars) {
  std::vector<int64_t> values = {std::numeric_limits<int64_t>::min(),
                                 std::numeric_limits<int64_t>::max(),
                                 99999,
                                 100000,
                                 123456789,
                                 99999999,
                                 100000000,
                                 100000001};
  for (int64_t v = -1000; v <= 20000; ++v) values.push_back(v);  // every fast-path digit count
  // Below 10^8 (the second fast path): each power of ten and its neighbours, and random values.
  for (int64_t p = 10000; p <= 100000000; p *= 10) {
    for (int64_t d = -2; d <= 2; ++d) values.push_back(p + d);
  }
  std::mt19937_64 rng(3);
  for (int i = 0; i < 200000; ++i) values.push_back(static_cast<int64_t>(rng() % 120000000));
  for (const int64_t v : values) {
    char fast[24];
    char reference[24];
    const char* const fast_end = IntChars(fast, v);
    const char* reference_end = std::to_chars(reference, reference + sizeof(reference), v).ptr;
    ASSERT_EQ(std::string(static_cast<const char*>(fast), fast_end),
              std::string(static_cast<const char*>(reference), reference_end))
        << v;
  }
}

TEST(CsvAppend, IntegersAndFields) {
  std::string row;
  AppendInt(&row, 0);
  AppendInt(&row, -42);
  AppendInt(&row, std::numeric_limits<int64_t>::min());
  AppendInt(&row, std::numeric_limits<int64_t>::max());
  AppendField(&row, "hbm", '\n');
  EXPECT_EQ(row, "0,-42,-9223372036854775808,9223372036854775807,hbm\n");
}

// A row built in its own array gives the text of the appenders, through the fast path, the
// exact fallback (negative, huge, NaN), rows that outgrow the array and fields longer than it.
TEST(CsvAppend, TextRowWritesWhatTheAppendersWrite) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> seconds(0.0, 1e5);
  const double specials[] = {-1.5, 1e300, std::numeric_limits<double>::quiet_NaN(), 0.9999999995, -0.0};
  std::string rows = "head\n";
  std::string expected = rows;
  for (int line = 0; line < 2000; ++line) {
    const int fields = 1 + line % 60;  // up to 60 fields: past the room one row starts with
    TextRow row(&rows);
    for (int f = 0; f < fields; ++f) {
      const char separator = f + 1 == fields ? '\n' : ',';
      if (f % 3 == 0) {
        const int64_t v = static_cast<int64_t>(rng()) >> (f % 60);
        row.Int(v, separator);
        AppendInt(&expected, v, separator);
      } else if (f % 3 == 1) {
        const double v = f % 13 == 1 ? specials[static_cast<size_t>(line + f) % 5] : seconds(rng);
        const int precision = f % 2 == 0 ? 6 : 9;
        row.Fixed(v, precision, separator);
        AppendFixed(&expected, v, precision, separator);
      } else {
        // Now and then a field longer than the row's whole array.
        const std::string text = f % 29 == 2 ? std::string(700 + static_cast<size_t>(line % 5), 'x') : "hbm";
        row.Text(text, separator);
        AppendField(&expected, text, separator);
      }
    }
  }
  EXPECT_EQ(rows.size(), expected.size());
  EXPECT_EQ(rows, expected);
}

// Through memos, a row is what it is without them: a repeated value copies the text it had
// (0 and -0, NaN, values the fast path leaves to std::to_chars, precision 6 and 9 included),
// a changed one is formatted anew; it fails if a memo matched a different value or kept text
// past a value the fast path did not take.
TEST(CsvAppend, FixedThroughAMemoWritesWhatFixedWrites) {
  std::mt19937_64 rng(5);
  const double pool[] = {0.0,          -0.0,         1.5e-9, 0.007271634, 0.0072716341,
                         13.849230475, 0.9999999995, -1.5,   1e300,       std::numeric_limits<double>::quiet_NaN(),
                         0.5e-6,       2.5};
  std::string memoized, plain;
  FixedMemo memos[3];
  for (int line = 0; line < 20000; ++line) {
    TextRow with_memo(&memoized);
    TextRow without(&plain);
    for (int f = 0; f < 3; ++f) {
      // Mostly the value before (as iterations.csv's columns), else another from the pool.
      const double v =
          pool[rng() % 4 == 0 ? rng() % std::size(pool) : static_cast<size_t>(line / 7 + f) % std::size(pool)];
      const int precision = f == 1 ? 6 : 9;
      const char separator = f == 2 ? '\n' : ',';
      with_memo.Fixed(v, precision, memos[f], separator);
      without.Fixed(v, precision, separator);
    }
  }
  EXPECT_EQ(memoized, plain);
}

// The pointer writers (wire::) write what the library serializes too, one- and two-byte tags.
TEST(WireFields, EncodeAsTheLibrarySerializes) {
  perfetto::protos::TrackEvent event;
  event.set_type(perfetto::protos::TrackEvent::TYPE_SLICE_BEGIN);
  event.set_track_uuid(uint64_t{1} << 40);
  event.add_extra_counter_track_uuids(18);
  event.add_extra_counter_values(-3);
  event.add_extra_double_counter_track_uuids(300);
  event.add_extra_double_counter_values(0.25);
  perfetto::protos::DebugAnnotation* arg = event.add_debug_annotations();
  arg->set_name_iid(11);
  arg->set_string_value("network");
  uint8_t bytes[128];
  uint8_t* p = wire::Varint<perfetto::protos::TrackEvent::kTypeFieldNumber>(
      bytes, perfetto::protos::TrackEvent::TYPE_SLICE_BEGIN);
  p = wire::Varint<perfetto::protos::TrackEvent::kTrackUuidFieldNumber>(p, uint64_t{1} << 40);
  p = wire::Varint<perfetto::protos::TrackEvent::kExtraCounterTrackUuidsFieldNumber>(p, 18);
  p = wire::Varint<perfetto::protos::TrackEvent::kExtraCounterValuesFieldNumber>(p, static_cast<uint64_t>(int64_t{-3}));
  p = wire::Varint<perfetto::protos::TrackEvent::kExtraDoubleCounterTrackUuidsFieldNumber>(p, 300);
  p = wire::Double<perfetto::protos::TrackEvent::kExtraDoubleCounterValuesFieldNumber>(p, 0.25);
  uint8_t annotation[32];
  uint8_t* a = wire::Varint<perfetto::protos::DebugAnnotation::kNameIidFieldNumber>(annotation, 11);
  a = wire::Bytes<perfetto::protos::DebugAnnotation::kStringValueFieldNumber>(a, "network");
  p = wire::Bytes<perfetto::protos::TrackEvent::kDebugAnnotationsFieldNumber>(
      p, absl::string_view(reinterpret_cast<const char*>(annotation), static_cast<size_t>(a - annotation)));
  perfetto::protos::TrackEvent parsed;
  ASSERT_TRUE(parsed.ParseFromArray(bytes, static_cast<int>(p - bytes)));
  EXPECT_EQ(parsed.SerializeAsString(), event.SerializeAsString());
  EXPECT_EQ(static_cast<size_t>(p - bytes), event.ByteSizeLong());
}

// The fixed-array encoder writes what the Protocol Buffers library serializes for the same
// fields: varints of every size (negative int64 as ten bytes), doubles and nested bytes.
TEST(ProtoBytes, EncodesAsTheLibrarySerializes) {
  for (const int64_t v : {int64_t{0}, int64_t{1}, int64_t{127}, int64_t{128}, int64_t{300}, int64_t{-1},
                          int64_t{1} << 40, std::numeric_limits<int64_t>::min()}) {
    perfetto::protos::DebugAnnotation message;
    message.set_name_iid(7);
    message.set_int_value(v);
    ProtoBytes<32> bytes;
    bytes.Varint(perfetto::protos::DebugAnnotation::kNameIidFieldNumber, 7);
    bytes.Varint(perfetto::protos::DebugAnnotation::kIntValueFieldNumber, static_cast<uint64_t>(v));
    EXPECT_EQ(std::string(bytes.view()), message.SerializeAsString()) << v;
  }
  perfetto::protos::DebugAnnotation message;
  message.set_name_iid(3);
  message.set_double_value(-12.5e-3);
  ProtoBytes<32> bytes;
  bytes.Varint(perfetto::protos::DebugAnnotation::kNameIidFieldNumber, 3);
  bytes.Double(perfetto::protos::DebugAnnotation::kDoubleValueFieldNumber, -12.5e-3);
  EXPECT_EQ(std::string(bytes.view()), message.SerializeAsString());
  perfetto::protos::DebugAnnotation text;
  text.set_name_iid(11);
  text.set_string_value("hbm");
  ProtoBytes<32> text_bytes;
  text_bytes.Varint(perfetto::protos::DebugAnnotation::kNameIidFieldNumber, 11);
  text_bytes.Bytes(perfetto::protos::DebugAnnotation::kStringValueFieldNumber, "hbm");
  EXPECT_EQ(std::string(text_bytes.view()), text.SerializeAsString());
}

// Prefaulting leaves the bytes as they were, including those of partial pages at either end;
// on this kernel (Linux >= 5.14, as CI's) it succeeds.
TEST(PrefaultPages, FaultsInWithoutChangingTheBytes) {
  std::vector<char> bytes(3 * 4096 + 123);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 + 1);
  const std::vector<char> before = bytes;
  EXPECT_TRUE(PrefaultPages(bytes.data() + 5, bytes.size() - 5));
  EXPECT_EQ(bytes, before);
  EXPECT_TRUE(PrefaultPages(bytes.data(), 0));  // no whole page: nothing to do
}

// Records the thread and the order it was handed records in.
class ThreadRecordingSink final : public IterationSink {
 public:
  void OnIteration(const IterationRecord& record) override {
    indices.push_back(record.index);
    threads.push_back(std::this_thread::get_id());
  }
  std::vector<int64_t> indices;
  std::vector<std::thread::id> threads;
};

// Sleeps now and then, so that the simulation's side fills the ring and must wait for it.
class SlowSink final : public IterationSink {
 public:
  void OnIteration(const IterationRecord& record) override {
    if (record.index % 1000 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    recording.OnIteration(record);
  }
  ThreadRecordingSink recording;
};

// Hands `sink` n records (several laps of the ring and a last partial chunk that only Finish()
// publishes), then checks that each target got every record in order, all on one thread that
// is not this one; returns each target's thread.
std::vector<std::thread::id> HandOverAndCheck(BackgroundSink& sink,
                                              const std::vector<const ThreadRecordingSink*>& targets) {
  const auto n = static_cast<int64_t>(BackgroundSink::kRingRecords * 5 + BackgroundSink::kPublishRecords / 2 + 3);
  for (int64_t i = 0; i < n; ++i) {
    IterationRecord r;
    r.index = i;
    r.start_s = static_cast<double>(i) * 0.5;
    sink.OnIteration(r);
  }
  sink.Finish();
  std::vector<std::thread::id> threads;
  for (const ThreadRecordingSink* target : targets) {
    EXPECT_EQ(static_cast<int64_t>(target->indices.size()), n);
    if (static_cast<int64_t>(target->indices.size()) != n) return {};
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(target->indices[static_cast<size_t>(i)], i);
    for (const std::thread::id id : target->threads) EXPECT_EQ(id, target->threads.front());
    EXPECT_NE(target->threads.front(), std::this_thread::get_id());
    threads.push_back(target->threads.front());
  }
  sink.Finish();  // a second Finish (and the destructor's) delivers nothing more
  for (const ThreadRecordingSink* target : targets) EXPECT_EQ(static_cast<int64_t>(target->indices.size()), n);
  return threads;
}

TEST(BackgroundSink, EveryTargetGetsEveryRecordInOrderOnItsWritersThread) {
  // A thread per target, then one thread writing both; the slow target makes the producer wait
  // on a full ring.
  for (const size_t writer_threads : {size_t{2}, size_t{1}}) {
    ThreadRecordingSink fast;
    SlowSink slow;
    BackgroundSink sink({&fast, &slow}, writer_threads);
    ASSERT_EQ(sink.writer_threads(), writer_threads);
    const std::vector<std::thread::id> threads = HandOverAndCheck(sink, {&fast, &slow.recording});
    ASSERT_EQ(threads.size(), 2u);
    EXPECT_EQ(threads[0] == threads[1], writer_threads == 1) << writer_threads << " threads";
  }
  {  // three targets on two threads: target k on thread k mod 2; never more threads than targets
    ThreadRecordingSink a, b, c;
    BackgroundSink sink({&a, &b, &c}, 2);
    const std::vector<std::thread::id> threads = HandOverAndCheck(sink, {&a, &b, &c});
    ASSERT_EQ(threads.size(), 3u);
    EXPECT_EQ(threads[0], threads[2]);
    EXPECT_NE(threads[0], threads[1]);
    ThreadRecordingSink only;
    EXPECT_EQ(BackgroundSink({&only}, 4).writer_threads(), 1u);
  }
}

// Writer threads are the CPUs this process may use less the simulation's (at least one, at
// most one per target), read from the affinity mask a Slurm job or container sets.
TEST(BackgroundSink, WriterThreadsFitTheCpusBesideTheSimulation) {
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &all)) cpus.push_back(c);
  }
  for (size_t allowed = 1; allowed <= std::min<size_t>(cpus.size(), 4); ++allowed) {
    cpu_set_t some;
    CPU_ZERO(&some);
    for (size_t i = 0; i < allowed; ++i) CPU_SET(cpus[i], &some);
    ASSERT_EQ(sched_setaffinity(0, sizeof(some), &some), 0);
    const size_t beside = allowed > 1 ? allowed - 1 : 1;
    EXPECT_EQ(BackgroundSink::WriterThreadsFor(2), std::min<size_t>(2, beside)) << allowed << " CPUs";
    EXPECT_EQ(BackgroundSink::WriterThreadsFor(1), 1u) << allowed << " CPUs";
    EXPECT_EQ(BackgroundSink::WriterThreadsFor(0), 0u);
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof(all), &all), 0);
}

TEST(BackgroundSink, NothingHandedNothingDelivered) {
  ThreadRecordingSink target;
  { BackgroundSink sink({&target}); }
  EXPECT_TRUE(target.indices.empty());
  { BackgroundSink no_targets({}); }
}

}  // namespace
}  // namespace infergrid
