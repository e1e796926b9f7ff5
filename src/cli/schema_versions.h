// The schema versions `sluice align` reads: a schema file (any format sluice reads), a Delta
// table's folder (its latest schema, or the one at a version: `PATH@vN`, or --version), or a
// registry subject's version (`registry://HOST:PORT/SUBJECT/versions/N`, N or `latest`).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/schema.h"

namespace sluice::cli {

struct SchemaVersionInput {
  schema::SchemaPtr schema;
  /// The version's label (`_schema_version`) and default relation: a file's stem, a table's
  /// folder name with `_vN` for a version, a subject's name with `_vN`, each made a plain
  /// identifier.
  std::string label;
  std::vector<schema::LossyNote> notes;
};

/// `PATH@vN` or `PATH@N`: the path and the version; the whole argument and nullopt otherwise.
std::pair<std::string, std::optional<int64_t>> SplitVersion(const std::string& arg);

/// Whether `arg` is a Delta table's folder given without `@vN`.
bool IsDeltaTable(const std::string& arg);

/// Load `arg`; `table_version` applies to a Delta table given without `@vN`.
Result<SchemaVersionInput> LoadSchemaVersion(const std::string& arg,
                                             std::optional<int64_t> table_version);

}  // namespace sluice::cli
