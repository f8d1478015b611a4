// The pieces the report's Vega-Lite specs are made of: a layered chart of the page's size,
// field encodings whose titles name the quantity and its unit, a log scale, and numbers rounded
// to the precision a chart can show, so the data inlined into the page stays small. Chart files
// say what they plot; how a spec is spelled lives here.
#ifndef INFERGRID_SIM_APP_REPORT_VEGA_LITE_H_
#define INFERGRID_SIM_APP_REPORT_VEGA_LITE_H_

#include <string>

#include "nlohmann/json.hpp"

namespace infergrid::report::vl {

using Json = nlohmann::json;

inline constexpr int kWidth = 640;
inline constexpr int kHeight = 240;
// Colors of marks that are not a data series (preemption ticks, limits).
inline constexpr char kAlertColor[] = "#d62728";
inline constexpr char kLimitColor[] = "#555555";

// {"width", "height", "layer": []}: add layers with Layer().
Json LayeredChart(int width = kWidth, int height = kHeight);
// A layer drawing `mark` (a mark type or a mark object) from inline `rows`.
Json Layer(const Json& rows, const Json& mark, const Json& encoding);
// {"field", "type": "quantitative", "title"}; Log() adds a log scale fitted to the data (not
// widened to powers of ten).
Json Number(const std::string& field, const std::string& title);
Json Log(Json encoding);
// A percentage axis for a field holding fractions in [0, 1].
Json Percent(const std::string& field, const std::string& title);
// {"field", "type": "nominal", "title"} (an empty title: none), with the domain order given.
Json Category(const std::string& field, const std::string& title, const Json& domain);
// A color legend for `encoding` (a Category()): opaque swatches, whole labels.
Json WithLegend(Json encoding);
// The fields shown on hover.
Json Tooltip(std::initializer_list<std::pair<const char*, const char*>> field_titles);

// `value` to 4 significant digits: what a 640-pixel chart can show, and short in the page.
double Round(double value);

}  // namespace infergrid::report::vl

#endif  // INFERGRID_SIM_APP_REPORT_VEGA_LITE_H_
