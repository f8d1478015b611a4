// One chart of the report: a Vega-Lite spec with its data inlined, a title, and a caption that
// says what is drawn (with units and any reduction of the data) and what to look for.
#ifndef INFERGRID_SIM_APP_REPORT_CHART_H_
#define INFERGRID_SIM_APP_REPORT_CHART_H_

#include <string>

#include "nlohmann/json.hpp"

namespace infergrid::report {

struct Chart {
  std::string title;
  std::string caption;  // plain text
  nlohmann::json spec;  // Vega-Lite, data inlined
};

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_CHART_H_
