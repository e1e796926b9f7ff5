// The schema an ingest infers from files, by Auto Loader's rules (data/auto_loader.h): JSON and
// CSV leaves are strings unless inferColumnTypes, Parquet and Avro files' own schemas merged,
// hints applied, the rescued-data column added last.
#pragma once

#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/ingest/ingest.h"

namespace sluice::ingest {

/// The schema of `files` by Auto Loader's rules, hints applied, the rescued column last.
Result<schema::SchemaPtr> InferSchemaOf(const IngestOptions& options,
                                        const std::vector<std::string>& files,
                                        data::RecordFormat format);

/// A batch's schema for evolving the current one: `hinted` as InferSchemaOf gives it, and,
/// when there are schema hints, `unhinted`, the same files' schema without them (null
/// otherwise). A hint fixes the types it names; what the data holds beyond a hinted type (a new
/// field in the value struct of a map a hint gave) is only seen in `unhinted`.
struct BatchSchemas {
  schema::SchemaPtr hinted;
  schema::SchemaPtr unhinted;
};
Result<BatchSchemas> InferBatchSchemas(const IngestOptions& options,
                                       const std::vector<std::string>& files,
                                       data::RecordFormat format);

/// A given schema made ready to read with: the rescued-data column appended (a string) unless
/// the mode is `none` without a rescued column named, or the schema has it already.
Result<schema::SchemaPtr> WithRescuedColumn(const schema::Schema& schema,
                                            const IngestOptions& options);

}  // namespace sluice::ingest
