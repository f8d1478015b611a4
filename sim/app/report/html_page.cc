#include "sim/app/report/html_page.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "sim/app/report/assets.h"

namespace infergrid::report {
namespace {

// Text inlined into a <script> element would end it at "</script": the bundles hold none
// (tests/report_test.cc checks), the specs' JSON writes every '<' as \u003c, and this escape
// (valid inside a JavaScript string, where such text would be) guards a future bundle.
std::string ScriptElement(absl::string_view code, absl::string_view attributes = "") {
  return absl::StrCat("<script", attributes, ">", absl::StrReplaceAll(code, {{"</script", "<\\/script"}}),
                      "</script>\n");
}

}  // namespace

std::string EscapeHtml(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}, {"'", "&#39;"}});
}

void HtmlPage::AddHeading(int level, const std::string& text) {
  // Lower-case letters, digits and dashes; numbered when two headings read the same.
  std::string anchor;
  for (char c : text) {
    if (absl::ascii_isalnum(static_cast<unsigned char>(c))) {
      anchor += absl::ascii_tolower(static_cast<unsigned char>(c));
    } else if (!anchor.empty() && anchor.back() != '-') {
      anchor += '-';
    }
  }
  while (!anchor.empty() && anchor.back() == '-') anchor.pop_back();
  const std::string base = anchor.empty() ? "section" : anchor;
  anchor = base;
  for (int n = 2; std::find(anchors_.begin(), anchors_.end(), anchor) != anchors_.end(); ++n) {
    anchor = absl::StrCat(base, "-", n);
  }
  anchors_.push_back(anchor);
  absl::StrAppend(&body_, "<h", level, " id=\"", EscapeHtml(anchor), "\">", EscapeHtml(text), "</h", level, ">\n");
  if (level == 2) contents_.emplace_back(anchor, text);
}

void HtmlPage::AddText(const std::string& text) { absl::StrAppend(&body_, "<p>", EscapeHtml(text), "</p>\n"); }

void HtmlPage::AddNote(const std::string& text) {
  absl::StrAppend(&body_, "<p class=\"note\">", EscapeHtml(text), "</p>\n");
}

void HtmlPage::AddHtml(const std::string& html) { absl::StrAppend(&body_, html, "\n"); }

void HtmlPage::AddTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                        const std::string& caption) {
  absl::StrAppend(&body_, "<table>\n");
  if (!caption.empty()) absl::StrAppend(&body_, "<caption>", EscapeHtml(caption), "</caption>\n");
  absl::StrAppend(&body_, "<thead><tr>");
  for (const std::string& cell : header) absl::StrAppend(&body_, "<th>", EscapeHtml(cell), "</th>");
  absl::StrAppend(&body_, "</tr></thead>\n<tbody>\n");
  for (const std::vector<std::string>& row : rows) {
    absl::StrAppend(&body_, "<tr>");
    for (size_t i = 0; i < row.size(); ++i) {
      const char* tag = i == 0 ? "th scope=\"row\"" : "td";
      absl::StrAppend(&body_, "<", tag, ">", EscapeHtml(row[i]), "</", i == 0 ? "th" : "td", ">");
    }
    absl::StrAppend(&body_, "</tr>\n");
  }
  absl::StrAppend(&body_, "</tbody></table>\n");
}

void HtmlPage::AddChart(const Chart& chart) {
  const size_t index = specs_.size();
  specs_.push_back(chart.spec);
  absl::StrAppend(&body_, "<figure class=\"chart\" id=\"chart-", index, "\" data-spec=\"", index, "\">\n",
                  "<div class=\"chart-title\"><strong>", EscapeHtml(chart.title), "</strong></div>\n",
                  "<div class=\"view\"></div>\n<figcaption>", EscapeHtml(chart.caption), "</figcaption>\n</figure>\n");
}

std::string HtmlPage::Render() const {
  const PageAssets& assets = Assets();
  std::string page = absl::StrCat("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
                                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
                                  "<meta name=\"generator\" content=\"infergrid report\">\n<title>", EscapeHtml(title_),
                                  "</title>\n<style>\n", assets.style, "</style>\n");
  absl::StrAppend(&page, ScriptElement(assets.error_hook), ScriptElement(assets.vega), ScriptElement(assets.vega_lite),
                  ScriptElement(assets.vega_embed));
  absl::StrAppend(&page, "</head>\n<body data-charts-expected=\"", specs_.size(), "\">\n<h1>", EscapeHtml(title_),
                  "</h1>\n<pre id=\"report-errors\" hidden></pre>\n");
  if (!contents_.empty()) {
    absl::StrAppend(&page, "<nav class=\"contents\"><ul>\n");
    for (const auto& [anchor, text] : contents_) {
      absl::StrAppend(&page, "<li><a href=\"#", EscapeHtml(anchor), "\">", EscapeHtml(text), "</a></li>\n");
    }
    absl::StrAppend(&page, "</ul></nav>\n");
  }
  absl::StrAppend(&page, body_);
  absl::StrAppend(&page,
                  "<footer>\n<p>Written by <code>infergrid report</code>. Charts drawn with Vega-Lite through "
                  "vega-embed (",
                  EscapeHtml(ChartLibraryVersions()),
                  "), inlined into this page: it needs no network.</p>\n<details class=\"licenses\"><summary>"
                  "Third-party licenses</summary>\n<pre>",
                  EscapeHtml(assets.licenses), "</pre>\n</details>\n</footer>\n");
  // '<' as \u003c: the JSON cannot end its script element or open a comment in it.
  absl::StrAppend(
      &page,
      ScriptElement(absl::StrReplaceAll(specs_.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                                        {{"<", "\\u003c"}}),
                    " type=\"application/json\" id=\"chart-specs\""),
      ScriptElement(assets.render_charts), "</body>\n</html>\n");
  return page;
}

}  // namespace infergrid::report
