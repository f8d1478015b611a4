// A file compiled into the binary (catalogs), named by its path in the repository.
#ifndef INFERGRID_BASE_EMBEDDED_FILE_H_
#define INFERGRID_BASE_EMBEDDED_FILE_H_

#include "absl/strings/string_view.h"

#include "absl/types/span.h"

namespace infergrid {

struct EmbeddedFile {
  const char* path;  // e.g. "models/catalog/llama-3-8b.textproto"
  absl::string_view text;
};

}  // namespace infergrid

#endif  // INFERGRID_BASE_EMBEDDED_FILE_H_
