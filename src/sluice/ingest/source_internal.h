// What the folder and Kafka sources share before their first batch: the checkpoint, checked
// against the table (a checkpoint that is gone would write its batches again), and the schema
// to read with.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "sluice/base/result.h"
#include "sluice/ingest/checkpoint.h"
#include "sluice/ingest/ingest.h"
#include "sluice/ingest/schema_location.h"

namespace sluice::ingest {

/// `options` with the folder source, table, checkpoint, schema location, quarantine and report
/// in their NormalPath form: the sources compare these paths (what the ingest writes inside its
/// folder is left out of the listing; a checkpoint belongs to one table), so each is normalised
/// once, on the way in.
IngestOptions WithNormalPaths(const IngestOptions& options);

/// Open the checkpoint for `kind` ("folder", "kafka"). A folder checkpoint that has written no
/// batch yet, for a table that holds batches of the same source from another checkpoint, is
/// kInvalidArgument (those files would be written again) unless options.allow_new_checkpoint.
Result<std::unique_ptr<Checkpoint>> OpenCheckpoint(const IngestOptions& options,
                                                   const std::string& kind);

/// The schema version to read with: the newest stored one; a given schema stored as a new
/// version when it differs from the newest (the rescued column added as the mode needs); or,
/// when nothing is stored or given, `infer()`'s schema as version 0.
Result<SchemaVersion> EnsureSchema(const IngestOptions& options, SchemaLocation& location,
                                   const std::function<Result<schema::SchemaPtr>()>& infer);

}  // namespace sluice::ingest
