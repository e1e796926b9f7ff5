// Auto Loader's schemaLocation: the schema an ingest reads with, kept as numbered versions
// `DIR/_schemas/0`, `1`, `2`, ... Version 0 is the inferred (or given) schema; each evolution
// writes the next. A version file is created only if absent (put-if-absent through the file
// system), so two writers never both take one number, and it is never changed afterwards.
//
// File format (sluice's own; Databricks' is undocumented): the line `v1`, then one JSON object
// {"schema": <Spark StructType JSON>, "createdMs": <ms>, "reason": "<why this version>"}.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/schema/schema.h"

namespace sluice::ingest {

struct SchemaVersion {
  int64_t version = 0;
  schema::SchemaPtr schema;
  int64_t created_ms = 0;
  std::string reason;
};

class SchemaLocation {
 public:
  /// Versions live in `dir`/_schemas.
  SchemaLocation(std::shared_ptr<FileSystem> fs, std::string dir);

  /// Every version, oldest first. kParseError naming the file for one that does not parse;
  /// files whose names are not numbers are ignored.
  Result<std::vector<SchemaVersion>> All();
  /// The newest version, or nullopt when none is stored.
  Result<std::optional<SchemaVersion>> Latest();
  /// Store `schema` as the version after the newest. kConflict when another writer took that
  /// number first.
  Result<SchemaVersion> Write(const schema::Schema& schema, std::string reason);

  const std::string& dir() const { return dir_; }

 private:
  std::shared_ptr<FileSystem> fs_;
  std::string dir_;
};

}  // namespace sluice::ingest
