// The one loader of the catalogs compiled into the binary (models, GPUs, engine
// personalities, workload presets, calibration and host profiles): each embedded file is
// parsed as a `Message` (base/textproto.h, errors at file:line) and checked by the catalog's
// validator. A broken entry is a build defect, not a user error (the files are compiled in and
// tested): the loader prints "infergrid: internal <what> error: <message>" and aborts.
// Entries come back in file order, with the path each came from; a catalog sorts or indexes
// them as it needs.
#ifndef INFERGRID_BASE_EMBEDDED_CATALOG_H_
#define INFERGRID_BASE_EMBEDDED_CATALOG_H_

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "base/embedded_file.h"
#include "base/textproto.h"

namespace infergrid {

template <typename Message>
struct CatalogEntry {
  std::string path;  // the file's path in the repository
  Message message;
};

// `validate(message, path)` returns an error naming the path, or OK; pass NoCatalogCheck<Message>
// for catalogs whose parse is their check.
template <typename Message>
absl::Status NoCatalogCheck(const Message&, const std::string&) {
  return absl::OkStatus();
}

template <typename Message, typename Validate>
std::vector<CatalogEntry<Message>> LoadEmbeddedCatalog(absl::Span<const EmbeddedFile> files, absl::string_view what,
                                                       Validate validate) {
  std::vector<CatalogEntry<Message>> entries;
  entries.reserve(files.size());
  for (const EmbeddedFile& file : files) {
    CatalogEntry<Message> entry;
    entry.path = file.path;
    absl::Status status = ParseTextProto(file.text, file.path, &entry.message);
    if (status.ok()) status = validate(entry.message, entry.path);
    if (!status.ok()) {
      std::fprintf(stderr, "infergrid: internal %s error: %s\n", std::string(what).c_str(),
                   std::string(status.message()).c_str());
      std::abort();
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace infergrid

#endif  // INFERGRID_BASE_EMBEDDED_CATALOG_H_
