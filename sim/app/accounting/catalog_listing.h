// The compiled-in model and GPU catalogs as listings (ModelListing, GpuListing in
// sim/app/results/catalog_listing.proto) and as terminal tables, for `infergrid models` and
// `infergrid gpus`: which names --model and --gpu take, each model's size and attention, each
// GPU's memory, datasheet peaks and whether its cost model is measured or extrapolated. A listing
// fails only where a catalog entry does not load; rendering is a pure function of the message.
#ifndef INFERGRID_SIM_APP_ACCOUNTING_CATALOG_LISTING_H_
#define INFERGRID_SIM_APP_ACCOUNTING_CATALOG_LISTING_H_

#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/format/json_output.h"
#include "sim/app/results/catalog_listing.pb.h"

namespace infergrid {

// Every catalog model, in ModelCatalogNames() order.
absl::StatusOr<ModelListing> ListModels();
std::string RenderModels(const ModelListing& listing);

// Every catalog GPU, in GpuCatalogNames() order, with its calibration profile's provenance.
absl::StatusOr<GpuListing> ListGpus();
std::string RenderGpus(const GpuListing& listing);

// One listing command: no arguments, --format picks the table or the JSON message.
template <typename Listing>
absl::Status PrintListing(absl::string_view command, const cli::ParsedCommandLine& command_line, std::ostream& out,
                          absl::StatusOr<Listing> (*list)(), std::string (*render)(const Listing&)) {
  if (!command_line.positional.empty()) {
    return cli::UsageError(absl::StrCat(command, " takes no arguments, got '", command_line.positional[0], "'"));
  }
  absl::StatusOr<bool> json = cli::WantJson(command_line.flags);
  if (!json.ok()) return json.status();
  absl::StatusOr<Listing> listing = list();
  if (!listing.ok()) return listing.status();
  out << (*json ? format::ToJson(*listing) : render(*listing));
  return absl::OkStatus();
}

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_ACCOUNTING_CATALOG_LISTING_H_
