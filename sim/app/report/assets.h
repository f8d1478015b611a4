// The files the report page inlines, compiled into the binary at build time (CMakeLists.txt):
// the browser bundles of Vega, Vega-Lite and vega-embed as `npm ci` installed them from
// web/package-lock.json, the notice file of those packages, and the page's own stylesheet and
// scripts from web/.
#ifndef INFERGRID_SIM_APP_REPORT_ASSETS_H_
#define INFERGRID_SIM_APP_REPORT_ASSETS_H_

#include <string>

#include "absl/strings/string_view.h"

namespace infergrid::report {

struct PageAssets {
  absl::string_view vega;  // vega/build/vega.min.js
  absl::string_view vega_lite;  // vega-lite/build/vega-lite.min.js
  absl::string_view vega_embed;  // vega-embed/build/vega-embed.min.js
  absl::string_view licenses;  // THIRD_PARTY_LICENSES.txt
  absl::string_view style;  // web/report.css
  absl::string_view error_hook;  // web/error_hook.js: first in the page, records errors
  absl::string_view render_charts;  // web/render_charts.js: last in the page, draws the charts
};

const PageAssets& Assets();

// "vega 5.33.1, vega-lite 5.23.0, vega-embed 6.29.0", from the notice file.
std::string ChartLibraryVersions();

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_ASSETS_H_
