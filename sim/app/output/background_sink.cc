#include "sim/app/output/background_sink.h"

#include <utility>

namespace infergrid {

BackgroundSink::BackgroundSink(IterationSink* target) : target_(target) {
  filling_.reserve(kBatchRecords);
  writer_ = std::thread([this] { WriterLoop(); });
}

BackgroundSink::~BackgroundSink() { Finish(); }

void BackgroundSink::OnIteration(const IterationRecord& record) {
  filling_.push_back(record);
  if (filling_.size() == kBatchRecords) Hand(std::exchange(filling_, SpareBatch()));
}

BackgroundSink::Batch BackgroundSink::SpareBatch() {
  Batch batch;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!spare_.empty()) {
      batch = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  batch.reserve(kBatchRecords);
  return batch;
}

void BackgroundSink::Hand(Batch batch) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return pending_.size() < kMaxPendingBatches; });
  pending_.push_back(std::move(batch));
  changed_.notify_all();
}

void BackgroundSink::Finish() {
  if (!writer_.joinable()) return;
  if (!filling_.empty()) Hand(std::exchange(filling_, Batch()));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  changed_.notify_all();
  writer_.join();
}

void BackgroundSink::WriterLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return !pending_.empty() || done_; });
    if (pending_.empty()) return;  // done_ and nothing left
    Batch batch = std::move(pending_.front());
    pending_.pop_front();
    changed_.notify_all();  // a slot is free for Hand()
    lock.unlock();
    for (const IterationRecord& record : batch) target_->OnIteration(record);
    batch.clear();
    lock.lock();
    spare_.push_back(std::move(batch));
  }
}

}  // namespace infergrid
