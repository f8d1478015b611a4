// The report as one self-contained HTML page: headings, text, tables and charts, with the
// charting libraries, the page's own script and style and the third-party licenses inlined, so
// it opens from disk in any browser with no network. Charts are Vega-Lite specs, drawn by
// vega-embed with the SVG renderer. The page records in its DOM what happened when it drew
// (web/render_charts.js): <body data-charts-expected, data-charts-rendered> and any script error
// or library warning in #report-errors, which is what the browser test reads.
#ifndef INFERGRID_SIM_APP_REPORT_HTML_PAGE_H_
#define INFERGRID_SIM_APP_REPORT_HTML_PAGE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "sim/app/report/chart.h"

namespace infergrid::report {

// `text` with &, <, >, " and ' escaped for HTML.
std::string EscapeHtml(absl::string_view text);

class HtmlPage {
 public:
  explicit HtmlPage(std::string title) : title_(std::move(title)) {}

  // A heading (level 2 or 3) with an anchor made from its text; level-2 headings make the table
  // of contents.
  void AddHeading(int level, const std::string& text);
  // A paragraph of plain text; a note is set apart (a caveat, a left-out chart).
  void AddText(const std::string& text);
  void AddNote(const std::string& text);
  // Raw HTML built by the caller (escape its text with EscapeHtml).
  void AddHtml(const std::string& html);
  // A table of plain-text cells; the first column is a row header, the others right-aligned.
  void AddTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                const std::string& caption = "");
  void AddChart(const Chart& chart);

  int charts() const { return static_cast<int>(specs_.size()); }
  // The whole page.
  std::string Render() const;

 private:
  std::string title_;
  std::string body_;
  std::vector<std::pair<std::string, std::string>> contents_;  // (anchor, text) of level-2 headings
  std::vector<std::string> anchors_;
  nlohmann::json specs_ = nlohmann::json::array();
};

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_HTML_PAGE_H_
