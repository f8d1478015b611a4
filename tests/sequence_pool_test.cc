// sim/core/serving/sequence_pool.h: one owner for every sequence of a run: slots reused, addresses
// kept while the pool grows, whatever is still held freed with it.
#include <cstdint>
#include <utility>

#include "gtest/gtest.h"
#include "sim/core/serving/sequence_pool.h"

namespace infergrid {
namespace {

Sequence MakeSequence(int64_t record, int32_t prompt) {
  Sequence seq;
  seq.record = record;
  seq.prompt_tokens = prompt;
  seq.prefix_keys = {1, 2, 3};
  return seq;
}

TEST(SequencePool, ReusesReleasedSlotsAndCountsLiveOnes) {
  SequencePool pool;
  Sequence* a = pool.Acquire(MakeSequence(0, 10));
  Sequence* b = pool.Acquire(MakeSequence(1, 20));
  EXPECT_EQ(pool.live(), 2);
  EXPECT_EQ(a->record, 0);
  EXPECT_EQ(b->prompt_tokens, 20);
  pool.Release(a);
  EXPECT_EQ(pool.live(), 1);
  // The next admission takes the released slot, holding the new value only.
  Sequence fresh;
  fresh.record = 7;
  Sequence* c = pool.Acquire(std::move(fresh));
  EXPECT_EQ(c, a);
  EXPECT_EQ(c->record, 7);
  EXPECT_EQ(c->prompt_tokens, 0);
  EXPECT_TRUE(c->prefix_keys.empty());
  EXPECT_EQ(pool.live(), 2);
  EXPECT_EQ(pool.allocated(), 2);
}

TEST(SequencePool, KeepsAddressesWhileGrowingAndFreesWhatIsStillHeld) {
  // Sequences still held when the pool goes (a run that failed) are freed with it: under
  // AddressSanitizer (CI's sanitizer stage) a leak here fails the test.
  auto pool = std::make_unique<SequencePool>();
  std::vector<Sequence*> held;
  for (int i = 0; i < 1000; ++i) held.push_back(pool->Acquire(MakeSequence(i, i + 1)));
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(held[static_cast<size_t>(i)]->record, i);
  for (int i = 0; i < 1000; i += 2) pool->Release(held[static_cast<size_t>(i)]);
  EXPECT_EQ(pool->live(), 500);
  pool.reset();
}

}  // namespace
}  // namespace infergrid
