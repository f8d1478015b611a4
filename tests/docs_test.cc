// docs/outputs.md documents every output: each field of the result protos, walked through their
// descriptors (recursively into sub-messages), and each column of requests.csv, fleet.csv and
// iterations.csv as `infergrid simulate --out` writes them. A field or column is documented when
// the section under a heading that names it (`SimulationSummary`, `requests.csv`, ...) has a
// table row starting with it in backticks: "| `p99_9` | ...". Run by ctest as docs.*.
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "sim/app/plan/plan_result.pb.h"
#include "sim/app/results/accounting_results.pb.h"
#include "sim/app/results/catalog_listing.pb.h"
#include "sim/app/results/simulation.pb.h"
#include "sim/app/results/sweep.pb.h"
#include "sim/app/results/train_result.pb.h"
#include "sim/app/results/validation_result.pb.h"
#include "sim/app/results/vector_index_result.pb.h"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

constexpr char kOutputsDoc[] = "docs/outputs.md";

std::string Join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string joined;
  for (size_t i = 0; i < parts.size(); ++i) joined += (i == 0 ? "" : separator) + parts[i];
  return joined;
}

// The Markdown page as sections: a heading's text -> the first cells ("`name`") of the table
// rows between it and the next heading (a sub-message's table sits under its own heading).
class OutputsDoc {
 public:
  explicit OutputsDoc(const std::string& text) {
    std::string heading;  // the heading the current line is under
    bool in_fence = false;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.rfind("```", 0) == 0) in_fence = !in_fence;
      if (in_fence) continue;
      if (line.rfind("#", 0) == 0) {
        const size_t level = line.find_first_not_of('#');
        if (level != std::string::npos && line[level] == ' ') {
          heading = line.substr(level + 1);
          sections_[heading];  // a heading with no rows is still a section
          continue;
        }
      }
      if (line.rfind("| `", 0) != 0) continue;
      const size_t end = line.find('`', 3);
      if (end == std::string::npos) continue;
      sections_[heading].insert(line.substr(3, end - 3));
    }
  }

  // The rows under a heading that contains `title` (e.g. "`KvSummary`"; headings name one
  // message or file each); nullptr if no heading does.
  const std::set<std::string>* Section(const std::string& title) const {
    for (const auto& [heading, rows] : sections_) {
      if (heading.find(title) != std::string::npos) return &rows;
    }
    return nullptr;
  }

 private:
  std::map<std::string, std::set<std::string>> sections_;
};

std::string ReadOutputsDoc() {
  const std::string text = testing::ReadAll(testing::SourcePath(kOutputsDoc));
  EXPECT_FALSE(text.empty()) << testing::SourcePath(kOutputsDoc) << " is missing or empty";
  return text;
}

// Every field of `message` and of the messages it holds, as "Message.field" for each one that
// has no row under a heading naming `Message` in backticks.
void CollectUndocumented(const OutputsDoc& doc, const Descriptor* message, std::set<std::string>* visited,
                         std::vector<std::string>* missing) {
  if (!visited->insert(message->full_name()).second) return;
  const std::string name(message->name());
  const std::set<std::string>* rows = doc.Section("`" + name + "`");
  if (rows == nullptr) missing->push_back(name + " (no heading naming `" + name + "`)");
  for (int i = 0; i < message->field_count(); ++i) {
    const FieldDescriptor* field = message->field(i);
    if (rows != nullptr && rows->count(std::string(field->name())) == 0) {
      missing->push_back(name + "." + std::string(field->name()));
    }
    if (field->type() == FieldDescriptor::TYPE_MESSAGE && !field->is_map()) {
      CollectUndocumented(doc, field->message_type(), visited, missing);
    }
  }
}

void ExpectAllFieldsDocumented(const Descriptor* top) {
  const OutputsDoc doc(ReadOutputsDoc());
  std::set<std::string> visited;
  std::vector<std::string> missing;
  CollectUndocumented(doc, top, &visited, &missing);
  EXPECT_TRUE(missing.empty()) << "missing from " << kOutputsDoc << " (a table row \"| `field` |\" "
                               << "under the message's heading):\n  " << Join(missing, "\n  ");
}

TEST(docs, SummaryJsonFieldsAreDocumented) { ExpectAllFieldsDocumented(SimulationSummary::descriptor()); }

TEST(docs, CompareJsonFieldsAreDocumented) { ExpectAllFieldsDocumented(Comparison::descriptor()); }

TEST(docs, PlanJsonFieldsAreDocumented) { ExpectAllFieldsDocumented(PlanResult::descriptor()); }

TEST(docs, MemoryJsonFieldsAreDocumented) { ExpectAllFieldsDocumented(MemoryResult::descriptor()); }

TEST(docs, RooflineJsonFieldsAreDocumented) { ExpectAllFieldsDocumented(RooflineResult::descriptor()); }

TEST(docs, EngineMemoryJsonFieldsAreDocumented) { ExpectAllFieldsDocumented(EngineMemoryResult::descriptor()); }

TEST(docs, TrainVectorIndexValidateJsonFieldsAreDocumented) {
  ExpectAllFieldsDocumented(TrainingResult::descriptor());
  ExpectAllFieldsDocumented(VectorIndexResult::descriptor());
  ExpectAllFieldsDocumented(ValidationResult::descriptor());
}

TEST(docs, CatalogListingJsonFieldsAreDocumented) {
  ExpectAllFieldsDocumented(ModelListing::descriptor());
  ExpectAllFieldsDocumented(GpuListing::descriptor());
}

TEST(docs, SweepJsonFieldsAreDocumented) {
  ExpectAllFieldsDocumented(SweepManifest::descriptor());
  ExpectAllFieldsDocumented(SweepResult::descriptor());
}

// The check itself: a field with no row is reported by name.
TEST(docs, AnUndocumentedFieldIsNamed) {
  const OutputsDoc doc("## `LatencySummary`\n\n| field |\n|---|\n| `count` | int32 |\n| `mean` |\n");
  std::set<std::string> visited;
  std::vector<std::string> missing;
  CollectUndocumented(doc, LatencySummary::descriptor(), &visited, &missing);
  EXPECT_EQ(Join(missing, ","),
            "LatencySummary.p50,LatencySummary.p90,LatencySummary.p95,LatencySummary.p99,"
            "LatencySummary.p99_9,LatencySummary.max");
}

// The header line of a CSV file the command wrote, split at commas.
std::vector<std::string> CsvColumns(const fs::path& path) {
  std::istringstream text(testing::ReadAll(path));
  std::string header;
  std::getline(text, header);
  std::istringstream fields(header);
  std::vector<std::string> columns;
  for (std::string column; std::getline(fields, column, ',');) columns.push_back(column);
  return columns;
}

// Plain and disaggregated runs (--pd adds requests.csv columns), with fleet.csv.
TEST(docs, CsvColumnsAreDocumented) {
  const OutputsDoc doc(ReadOutputsDoc());
  for (const std::string flags : {"", "--pd=1P1D"}) {
    SCOPED_TRACE(flags);
    const fs::path dir = testing::TestDir() / (flags.empty() ? "out" : "out-pd");
    const testing::CommandResult r = testing::RunInfergrid(
        "simulate --max-requests=20 --quiet --outputs=summary,requests,iterations,fleet --out=" + dir.string() + " " +
        flags);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const std::string file : {"requests.csv", "iterations.csv", "fleet.csv"}) {
      const std::vector<std::string> columns = CsvColumns(dir / file);
      ASSERT_FALSE(columns.empty()) << file;
      const std::set<std::string>* rows = doc.Section("`" + file + "`");
      ASSERT_NE(rows, nullptr) << kOutputsDoc << " has no heading naming `" << file << "`";
      std::vector<std::string> missing;
      for (const std::string& column : columns) {
        if (rows->count(column) == 0) missing.push_back(column);
      }
      EXPECT_TRUE(missing.empty()) << file << " columns missing from " << kOutputsDoc << ": " << Join(missing, ", ");
    }
  }
}

// A sweep with no axes: results.csv has only its fixed columns.
TEST(docs, SweepResultsCsvColumnsAreDocumented) {
  const fs::path dir = testing::TestDir();
  const std::string spec = testing::WriteFile(dir / "sweep.textproto", "base: \"--max-requests=5\"\n");
  const testing::CommandResult r =
      testing::RunInfergrid("sweep --quiet --spec=" + spec + " --out=" + (dir / "out").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const OutputsDoc doc(ReadOutputsDoc());
  const std::set<std::string>* rows = doc.Section("`results.csv`");
  ASSERT_NE(rows, nullptr) << kOutputsDoc << " has no heading naming `results.csv`";
  std::vector<std::string> missing;
  for (const std::string& column : CsvColumns(dir / "out" / "results.csv")) {
    if (rows->count(column) == 0) missing.push_back(column);
  }
  EXPECT_TRUE(missing.empty()) << "results.csv columns missing from " << kOutputsDoc << ": " << Join(missing, ", ");
}

}  // namespace
}  // namespace infergrid
