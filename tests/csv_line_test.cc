// base/csv_line.h: the one CSV splitter, with the error positions every CSV reader reports.
#include "base/csv_line.h"

#include <deque>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;

struct Split {
  bool ok = false;
  std::vector<std::string> texts;
  std::vector<int> columns;
  CsvSplitError error;
};

Split SplitLine(const std::string& line, CsvSplitOptions options = {}) {
  std::vector<CsvField> fields;
  std::deque<std::string> storage;
  Split split;
  split.ok = SplitCsvLine(line, &fields, &storage, &split.error, options);
  for (const CsvField& f : fields) {
    split.texts.emplace_back(f.text);
    split.columns.push_back(f.column);
  }
  return split;
}

TEST(CsvLine, PlainFieldsWithTheirColumns) {
  const Split s = SplitLine("ab,,c d,");
  ASSERT_TRUE(s.ok);
  EXPECT_THAT(s.texts, ElementsAre("ab", "", "c d", ""));
  EXPECT_THAT(s.columns, ElementsAre(1, 4, 5, 9));
}

TEST(CsvLine, QuotedFieldsHoldCommasAndDoubledQuotes) {
  const Split s = SplitLine(R"("a,b",x,"say ""hi""","")");
  ASSERT_TRUE(s.ok);
  EXPECT_THAT(s.texts, ElementsAre("a,b", "x", "say \"hi\"", ""));
  EXPECT_THAT(s.columns, ElementsAre(1, 7, 9, 22));
  const Split trailing = SplitLine(R"("a",)");
  ASSERT_TRUE(trailing.ok);
  EXPECT_THAT(trailing.texts, ElementsAre("a", ""));
}

TEST(CsvLine, MalformedQuotesNameTheirColumn) {
  const Split open = SplitLine(R"(a,"bc)");
  EXPECT_FALSE(open.ok);
  EXPECT_EQ(open.error.column, 3);
  EXPECT_EQ(open.error.message, "unterminated quoted field");
  const Split after = SplitLine(R"("a"b,c)");
  EXPECT_FALSE(after.ok);
  EXPECT_EQ(after.error.column, 4);
  EXPECT_EQ(after.error.message, "expected ',' after a closing quote");
  const Split inside = SplitLine(R"(x,a"b)");
  EXPECT_FALSE(inside.ok);
  EXPECT_EQ(inside.error.column, 4);
  EXPECT_EQ(inside.error.message, "a quote inside an unquoted field");
}

TEST(CsvLine, BlanksBelongToFieldsUnlessTrimmed) {
  EXPECT_THAT(SplitLine(" a , b").texts, ElementsAre(" a ", " b"));
  EXPECT_FALSE(SplitLine(R"( "a",b)").ok);  // RFC 4180: the quote is inside the field
  const CsvSplitOptions trim{.trim_blanks = true};
  EXPECT_THAT(SplitLine(" a ,\tb", trim).texts, ElementsAre("a", "b"));
  const Split quoted = SplitLine(R"( " a " , b)", trim);
  ASSERT_TRUE(quoted.ok) << quoted.error.message;
  EXPECT_THAT(quoted.texts, ElementsAre(" a ", "b"));
}

TEST(CsvLine, StringFieldsAndTheOneErrorFormat) {
  absl::StatusOr<std::vector<std::string>> fields = CsvLineFields(R"(x,"y,z")", "t.csv", 3);
  ASSERT_TRUE(fields.ok());
  EXPECT_THAT(*fields, ElementsAre("x", "y,z"));
  EXPECT_EQ(CsvLineFields(R"(x,"y)", "t.csv", 3).status().message(), "t.csv:3:3: unterminated quoted field");
  EXPECT_EQ(CsvLineError("t.csv", 7, "empty id").message(), "t.csv:7: empty id");
}

}  // namespace
}  // namespace infergrid
