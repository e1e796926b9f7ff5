// An indented tree view of a schema for terminals (`sluice schema show --as tree`).
#pragma once

#include <string>

#include "sluice/schema/schema.h"

namespace sluice::schema {

struct TreeOptions {
  /// Draw with Unicode box characters; ASCII ("|-", "`-") otherwise.
  bool unicode = true;
  /// Show each field's doc after its type.
  bool show_docs = true;
};

/// Render `schema` as a tree, one field per line, ending in a newline.
std::string RenderTree(const Schema& schema, const TreeOptions& options = {});

}  // namespace sluice::schema
