// Auto Loader's cloudFiles.schemaEvolutionMode: what a batch does when its records carry columns
// the current schema lacks, or types it cannot hold.
#pragma once

#include <cstdint>
#include <string_view>

#include "sluice/base/result.h"

namespace sluice::ingest {

enum class EvolutionMode : uint8_t {
  /// New columns join the schema (a new schema version) and the table (mergeSchema); the batch
  /// goes on. Existing columns keep their types; values that do not fit are rescued.
  kAddNewColumns,
  /// As kAddNewColumns, and types widen along Auto Loader's widening table.
  kAddNewColumnsWithTypeWidening,
  /// The schema never changes; new columns are kept in the rescued-data column.
  kRescue,
  /// A batch with new columns stops the run (exit 1, the diff); nothing of it is written.
  kFailOnNewColumns,
  /// New columns are dropped; values are rescued only when a rescued-data column is set.
  kNone,
};

/// Auto Loader's names: "addNewColumns", "addNewColumnsWithTypeWidening", "rescue",
/// "failOnNewColumns", "none" (ASCII case ignored, as Spark's options are). kInvalidArgument
/// listing the names otherwise.
Result<EvolutionMode> ParseEvolutionMode(std::string_view name);
std::string_view EvolutionModeName(EvolutionMode mode);

}  // namespace sluice::ingest
