#include "sim/core/metrics/log_histogram.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>

namespace infergrid {
namespace {

constexpr int kSubBuckets = 1024;  // per octave
constexpr int kMinExponent = -64;  // frexp exponent of the smallest octave (2^-65 s)
constexpr int kOctaves = 128;

// With value = mantissa * 2^exponent, mantissa in [0.5, 1) (frexp's terms): the octave is the
// exponent and the sub-bucket floor((mantissa - 0.5) * 2 * kSubBuckets), which for a normal
// double is exactly the top 10 bits of its stored fraction (the product is a power-of-two
// scaling). Read from the bits: this runs once per token (inter-token latencies).
int BucketOf(double value) {
  if (!(value > 0)) return 0;
  static_assert(kSubBuckets == 1 << 10);
  const uint64_t bits = std::bit_cast<uint64_t>(value);
  const int biased = static_cast<int>(bits >> 52);  // sign is 0: value > 0
  if (biased == 0x7FF) return kOctaves * kSubBuckets - 1;  // +inf
  const int exponent = biased - 1022;  // frexp's exponent (subnormals: far below)
  if (exponent < kMinExponent) return 0;
  if (exponent >= kMinExponent + kOctaves) return kOctaves * kSubBuckets - 1;
  const int sub = static_cast<int>((bits >> 42) & (kSubBuckets - 1));
  return (exponent - kMinExponent) * kSubBuckets + sub;
}

double CentreOf(int bucket) {
  const int exponent = bucket / kSubBuckets + kMinExponent;
  const int sub = bucket % kSubBuckets;
  return std::ldexp(0.5 + (sub + 0.5) / (2.0 * kSubBuckets), exponent);
}

}  // namespace

LogHistogram::LogHistogram() : buckets_(static_cast<size_t>(kOctaves) * kSubBuckets, 0) {}

void LogHistogram::Add(double value, int64_t count) {
  buckets_[static_cast<size_t>(BucketOf(value))] += count;
  count_ += count;
  sum_ += value * static_cast<double>(count);
  max_ = std::max(max_, value);
  min_ = count_ == count ? value : std::min(min_, value);
}

void LogHistogram::AddRepeated(double value, int64_t count) {
  if (count <= 0) return;
  buckets_[static_cast<size_t>(BucketOf(value))] += count;
  count_ += count;
  for (int64_t i = 0; i < count; ++i) sum_ += value;  // as `count` separate Adds round it
  max_ = std::max(max_, value);
  min_ = count_ == count ? value : std::min(min_, value);
}

double LogHistogram::ValueAt(int64_t rank) const {
  if (rank >= count_ - 1) return max_;
  if (rank <= 0) return min_;
  int64_t seen = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen > rank) {
      if (i == 0) return min_;  // zero and the tiny values share the first bucket
      // A bucket's centre can lie past the largest (or below the smallest) sample in it: a
      // percentile never reads above the maximum or below the minimum.
      return std::clamp(CentreOf(static_cast<int>(i)), min_, max_);
    }
  }
  return max_;
}

double LogHistogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(count_ - 1);
  const int64_t below = static_cast<int64_t>(std::floor(position));
  const double low = ValueAt(below);
  const double fraction = position - static_cast<double>(below);
  if (fraction == 0) return low;
  return low + fraction * (ValueAt(below + 1) - low);
}

}  // namespace infergrid
