#include "sim/app/report/vega_lite.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace infergrid::report::vl {

Json LayeredChart(int width, int height) {
  return Json{{"width", width}, {"height", height}, {"layer", Json::array()}};
}

Json Layer(const Json& rows, const Json& mark, const Json& encoding) {
  return Json{{"data", {{"values", rows}}}, {"mark", mark}, {"encoding", encoding}};
}

Json Number(const std::string& field, const std::string& title) {
  return Json{{"field", field}, {"type", "quantitative"}, {"title", title}};
}

Json Log(Json encoding) {
  encoding["scale"] = {{"type", "log"}, {"nice", false}};
  return encoding;
}

Json Percent(const std::string& field, const std::string& title) {
  Json encoding = Number(field, title);
  encoding["axis"] = {{"format", ".0%"}};
  return encoding;
}

Json Category(const std::string& field, const std::string& title, const Json& domain) {
  return Json{{"field", field},
              {"type", "nominal"},
              {"title", title.empty() ? Json() : Json(title)},
              {"scale", {{"domain", domain}}},
              {"sort", domain}};
}

Json WithLegend(Json encoding) {
  encoding["legend"] = {{"symbolOpacity", 1}, {"labelLimit", 360}};
  return encoding;
}

Json Tooltip(std::initializer_list<std::pair<const char*, const char*>> field_titles) {
  Json tooltip = Json::array();
  for (const auto& [field, title] : field_titles) tooltip.push_back({{"field", field}, {"title", title}});
  return tooltip;
}

double Round(double value) {
  if (value == 0 || !std::isfinite(value)) return value;
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return std::strtod(text, nullptr);
}

}  // namespace infergrid::report::vl
