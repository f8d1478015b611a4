#include "sim/app/output/background_sink.h"

#include <algorithm>
#include <utility>

namespace infergrid {

BackgroundSink::BackgroundSink(std::vector<IterationSink*> targets)
    : targets_(std::move(targets)), ring_(kRingRecords), read_(targets_.size(), 0) {
  writers_.reserve(targets_.size());
  for (size_t i = 0; i < targets_.size(); ++i) writers_.emplace_back([this, i] { WriterLoop(i); });
}

BackgroundSink::~BackgroundSink() { Finish(); }

uint64_t BackgroundSink::SlowestRead() const {
  return read_.empty() ? published_ : *std::min_element(read_.begin(), read_.end());
}

void BackgroundSink::Publish() {
#if defined(__SSE2__)
  _mm_sfence();  // the streamed copies are visible before the records are published
#endif
  next_publish_ = written_ + kPublishRecords;
  std::unique_lock<std::mutex> lock(mutex_);
  published_ = written_;
  published_changed_.notify_all();
  // The next chunk reuses the slots of records written kRingRecords earlier.
  const uint64_t must_be_read = next_publish_ > kRingRecords ? next_publish_ - kRingRecords : 0;
  if (SlowestRead() >= must_be_read) return;
  producer_waiting_ = true;
  read_changed_.wait(lock, [&] { return SlowestRead() >= must_be_read; });
  producer_waiting_ = false;
}

void BackgroundSink::Finish() {
  if (writers_.empty()) return;
#if defined(__SSE2__)
  _mm_sfence();
#endif
  {
    std::lock_guard<std::mutex> lock(mutex_);
    published_ = written_;
    done_ = true;
  }
  published_changed_.notify_all();
  for (std::thread& writer : writers_) writer.join();
  writers_.clear();
}

void BackgroundSink::WriterLoop(size_t target) {
  IterationSink* sink = targets_[target];
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    published_changed_.wait(lock, [&] { return published_ > read_[target] || done_; });
    const uint64_t from = read_[target];
    const uint64_t to = published_;
    if (from == to) return;  // done_ and everything read
    lock.unlock();
    for (uint64_t i = from; i < to; ++i) sink->OnIteration(ring_[i & (kRingRecords - 1)].record);
    lock.lock();
    read_[target] = to;
    if (producer_waiting_) read_changed_.notify_one();
  }
}

}  // namespace infergrid
