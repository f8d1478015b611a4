// traces/trace_writer.h: InfergridFormat written and read back, every field bit-exact.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_files.h"
#include "tests/trace_reader_helpers.h"
#include "traces/trace_writer.h"

namespace infergrid {
namespace {

using testing::TestDir;

TEST(InfergridFormat, RoundTripsEveryField) {
  std::vector<Request> requests(3);
  requests[0] = {0, 0.0, 100, 10, {1, 2, 18446744073709551615u}, 0, "s1", "ChatGPT", "API log"};
  requests[1] = {1, 0.1 + 0.2, 7, 1, {}, -3, "a,b%c\"d\n\xC3\xA9", "", ""};
  requests[2] = {2, 1234.000000123456789, 2147483647, 5, {42}, 7, "", "GPT-4", "Conversation log"};
  const std::string path = (TestDir() / "rt.csv").string();
  absl::StatusOr<std::unique_ptr<TraceWriter>> writer = TraceWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  for (const Request& r : requests) ASSERT_TRUE((*writer)->Write(r).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  absl::StatusOr<ReadResult> back = ReadAllRequests(path);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->requests.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const Request& a = requests[i];
    const Request& b = back->requests[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.arrival_s, b.arrival_s);  // bit-exact
    EXPECT_EQ(a.input_tokens, b.input_tokens);
    EXPECT_EQ(a.output_tokens, b.output_tokens);
    EXPECT_EQ(a.prefix_block_hashes, b.prefix_block_hashes);
    EXPECT_EQ(a.priority, b.priority);
    EXPECT_EQ(a.session, b.session);
    EXPECT_EQ(a.model, b.model);
    EXPECT_EQ(a.log_type, b.log_type);
  }
  EXPECT_TRUE(back->stats.warnings.empty());
}

}  // namespace
}  // namespace infergrid
