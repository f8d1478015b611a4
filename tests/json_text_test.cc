// base/json_text.h: the one JSON reader contract. Numbers out of a double's range and nesting
// past kMaxJsonDepth are one-line errors at file:line:column; nothing throws, aborts or
// overflows the stack, whatever the bytes.
#include "base/json_text.h"

#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/model_spec.pb.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

std::string Nested(int depth, char open = '[', char close = ']') {
  return std::string(static_cast<size_t>(depth), open) + std::string(static_cast<size_t>(depth), close);
}

void ExpectOneLine(const absl::Status& status) {
  EXPECT_EQ(status.message().find('\n'), absl::string_view::npos) << status.message();
}

TEST(JsonText, NumbersOutOfADoublesRangeAreErrorsAtTheirColumn) {
  for (const char* number : {"1e400", "-1e400", "1.5e99999", "123456789e308"}) {
    const std::string text = absl::StrCat("{\n  \"a\": [1, ", number, "]\n}");
    const absl::StatusOr<nlohmann::json> parsed = ParseJson(text, "f.json");
    ASSERT_FALSE(parsed.ok()) << number;
    EXPECT_THAT(parsed.status().message(), HasSubstr(absl::StrCat("f.json:2:12: number ", number, " is out of range")));
    ExpectOneLine(parsed.status());
  }
  // Within range, the extremes and an integer too long for 64 bits (read as a double) parse.
  const absl::StatusOr<nlohmann::json> fine =
      ParseJson("[1.7976931348623157e308, 4.9e-324, 1e-400, 123456789012345678901234567890]", "f.json");
  ASSERT_TRUE(fine.ok()) << fine.status();
  EXPECT_EQ((*fine)[0].get<double>(), 1.7976931348623157e308);
}

TEST(JsonText, NestingPastTheDepthIsAnErrorWhereItPasses) {
  EXPECT_TRUE(ParseJson(Nested(kMaxJsonDepth), "f.json").ok());
  for (const auto& [open, close] : {std::pair{'[', ']'}, std::pair{'{', '}'}}) {
    std::string text = open == '[' ? Nested(100000) : "";
    if (open == '{') {
      for (int i = 0; i < 100000; ++i) text += "{\"k\":";
      text += "1" + std::string(100000, '}');
    }
    const absl::StatusOr<nlohmann::json> parsed = ParseJson(text, "f.json");
    ASSERT_FALSE(parsed.ok());
    const size_t column = open == '[' ? kMaxJsonDepth + 1 : 5 * kMaxJsonDepth + 1;
    EXPECT_THAT(parsed.status().message(),
                HasSubstr(absl::StrCat("f.json:1:", column, ": JSON nested deeper than ", kMaxJsonDepth)));
    ExpectOneLine(parsed.status());
  }
  // Brackets inside strings are text, not nesting.
  EXPECT_TRUE(ParseJson(absl::StrCat("[\"", std::string(1000, '['), "\\\"[\"]"), "f.json").ok());
}

TEST(JsonText, JsonLinesNameTheFilesLineOnce) {
  const absl::StatusOr<nlohmann::json> parsed = ParseJson("{\"a\": 1e999}", JsonSource{"d.jsonl", 7, true});
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("d.jsonl:7:7: number 1e999"));
  const absl::StatusOr<nlohmann::json> syntax = ParseJson("{\"a\": }", JsonSource{"d.jsonl", 7, true});
  ASSERT_FALSE(syntax.ok());
  EXPECT_THAT(syntax.status().message(), HasSubstr("d.jsonl:7:7: invalid JSON: "));
  ModelSpec spec;
  const absl::Status message =
      ParseJsonMessage("{\"num_layers\": \"x\"}", JsonSource{"d.jsonl", 7, true}, "model", &spec);
  EXPECT_THAT(message.message(), HasSubstr("d.jsonl:7: not a model: "));
}

TEST(JsonText, MessagesGetTheSameContractAsDocuments) {
  ModelSpec spec;
  EXPECT_TRUE(ParseJsonMessage("{\"num_layers\": 32, \"unknown\": [[1]]}", JsonSource{"m.json"}, "model", &spec).ok());
  EXPECT_EQ(spec.num_layers(), 32);
  EXPECT_THAT(ParseJsonMessage("{\"nominal_parameters\": 1e400}", JsonSource{"m.json"}, "model", &spec).message(),
              HasSubstr("m.json:1:24: number 1e400 is out of range"));
  EXPECT_THAT(
      ParseJsonMessage(absl::StrCat("{\"x\": ", Nested(100000), "}"), JsonSource{"m.json"}, "model", &spec).message(),
      HasSubstr("m.json:1:70: JSON nested deeper than"));
}

// A reader that stops on its own gets CancelledError (its reason is its own); a parse error is
// reported by the guard, not the handler.
class StopAtSecondKey : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool key(string_t&) override { return ++keys < 2; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
  int keys = 0;
};

TEST(JsonText, SaxReadersKeepTheirOwnStops) {
  StopAtSecondKey reader;
  EXPECT_TRUE(absl::IsCancelled(SaxParseJson("{\"a\": 1, \"b\": 2}", JsonSource{"s.json"}, &reader)));
  StopAtSecondKey deep;
  EXPECT_THAT(SaxParseJson(Nested(1000), JsonSource{"s.json"}, &deep).message(), HasSubstr("s.json:1:65: JSON nested"));
}

// Property: random bytes and mutations of valid documents never crash the reader, and every
// refusal is one line naming the file.
TEST(JsonText, AnyBytesGiveAValueOrOneLineError) {
  std::mt19937 random(49);
  const std::string alphabet = "[]{}\":,0123456789eE+-.truefalsnl \n\\x";
  const std::string seed = "{\"a\": [1, 2.5e3, {\"b\": null}], \"c\": \"x\\n\"}";
  for (int i = 0; i < 3000; ++i) {
    std::string text = seed;
    const int edits = 1 + static_cast<int>(random() % 8);
    for (int e = 0; e < edits; ++e) {
      const size_t at = random() % (text.size() + 1);
      const char c = alphabet[random() % alphabet.size()];
      if (random() % 2 == 0 && at < text.size()) {
        text[at] = c;
      } else {
        text.insert(at, std::string(1 + random() % (random() % 10 == 0 ? 200 : 3), c));
      }
    }
    const absl::StatusOr<nlohmann::json> parsed = ParseJson(text, "r.json");
    if (!parsed.ok()) {
      EXPECT_THAT(parsed.status().message(), HasSubstr("r.json:")) << text;
      ExpectOneLine(parsed.status());
    }
  }
}

}  // namespace
}  // namespace infergrid
