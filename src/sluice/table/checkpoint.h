// Classic checkpoints (PROTOCOL.md "Checkpoints"): the table's state at a version as one
// Parquet file, `_delta_log/<version>.checkpoint.parquet`, with one row per action and one
// nullable struct column per action type (txn, add, remove, metaData, protocol,
// domainMetadata), and `_last_checkpoint` pointing at it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/table/snapshot.h"

namespace sluice::table {

/// The checkpoint's schema as Spark StructType JSON (what `_last_checkpoint` names as
/// checkpointSchema).
const std::string& CheckpointSchemaJson();

/// Write the classic checkpoint of `snapshot` and then `_last_checkpoint`. Both are written
/// atomically (a racing writer's checkpoint of the same version holds the same actions).
/// Tombstones are kept (sluice does not expire them); commitInfo never is.
Status WriteCheckpoint(FileSystem& fs, const Snapshot& snapshot);

/// Write `actions` as one Parquet file of checkpoint rows at `path` (a classic checkpoint, a
/// part of a multi-part one, a V2 checkpoint in Parquet or one of its sidecars).
Status WriteCheckpointFile(FileSystem& fs, const std::string& path,
                           const std::vector<Action>& actions);

/// Load the table at `version` and write its checkpoint.
Status WriteCheckpointAt(FileSystem& fs, std::string_view root, int64_t version);

}  // namespace sluice::table
