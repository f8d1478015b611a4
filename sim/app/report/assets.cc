#include "sim/app/report/assets.h"

#include <cstdlib>
#include <iostream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/types/span.h"
#include "base/embedded_file.h"

namespace infergrid {
namespace report_assets {
absl::Span<const EmbeddedFile> EmbeddedFiles();
}  // namespace report_assets

namespace report {
namespace {

// The embedded file whose path ends with `suffix` (build-tree files carry the build folder's
// path). Missing is a build error, so it aborts.
absl::string_view Find(absl::string_view suffix) {
  for (const EmbeddedFile& file : report_assets::EmbeddedFiles()) {
    if (absl::EndsWith(file.path, suffix)) return file.text;
  }
  std::cerr << "infergrid: internal error: report asset " << suffix << " was not compiled in\n";
  std::abort();
}

}  // namespace

const PageAssets& Assets() {
  static const PageAssets* assets = new PageAssets{
      Find("/node_modules/vega/build/vega.min.js"),
      Find("/node_modules/vega-lite/build/vega-lite.min.js"),
      Find("/node_modules/vega-embed/build/vega-embed.min.js"),
      Find("/THIRD_PARTY_LICENSES.txt"),
      Find("sim/app/report/web/report.css"),
      Find("sim/app/report/web/error_hook.js"),
      Find("sim/app/report/web/render_charts.js"),
  };
  return *assets;
}

std::string ChartLibraryVersions() {
  std::string versions;
  for (absl::string_view line : absl::StrSplit(Assets().licenses, '\n')) {
    for (absl::string_view name : {"vega ", "vega-lite ", "vega-embed "}) {
      if (absl::StartsWith(line, name)) {
        const std::vector<absl::string_view> words = absl::StrSplit(line, ' ');
        absl::StrAppend(&versions, versions.empty() ? "" : ", ", words[0], " ", words[1]);
      }
    }
  }
  return versions;
}

}  // namespace report
}  // namespace infergrid
