// Delta's protocol versions and table features (PROTOCOL.md "Protocol Evolution", "Table
// Features"): which features a protocol turns on, whether sluice may read or write a table under
// it, and the lowest protocol a table's features need.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/schema/schema.h"
#include "sluice/table/actions.h"

namespace sluice::table {

using FeatureSet = std::set<std::string, std::less<>>;

/// The reader features a protocol turns on: the listed ones at reader version 3, the legacy
/// ones a lower version implies (2: columnMapping).
FeatureSet ReaderFeatures(const Protocol& protocol);
/// The writer features a protocol turns on: the listed ones at writer version 7, the legacy
/// ones a lower version implies (2: appendOnly, invariants; 3: + checkConstraints;
/// 4: + changeDataFeed, generatedColumns; 5: + columnMapping; 6: + identityColumns).
FeatureSet WriterFeatures(const Protocol& protocol);

/// kUnimplemented naming the feature when the table needs a reader feature sluice does not
/// implement, or a reader version above 3. Reading follows reader features only: writer
/// features never stop a read.
Status CheckReadable(const Protocol& protocol);

/// kUnimplemented naming the feature when a write would have to honour a writer feature sluice
/// does not implement, or a writer version above 7. Features whose duties start only when a
/// property or the schema turns them on (changeDataFeed, generatedColumns, identityColumns,
/// allowColumnDefaults) are refused only then, and then whether or not the protocol lists them:
/// check a new table's or a changed table's protocol and metadata with it before committing.
Status CheckWritable(const Protocol& protocol, const Metadata& metadata,
                     const schema::Schema& schema);

/// What a table's metadata and schema need of the protocol.
struct FeatureNeeds {
  bool check_constraints = false;  // delta.constraints.* properties
  bool column_mapping = false;     // delta.columnMapping.mode name or id
  bool timestamp_ntz = false;      // a timestamp_ntz column anywhere
  bool type_widening = false;      // delta.enableTypeWidening=true
  bool deletion_vectors = false;   // delta.enableDeletionVectors=true
  bool append_only = false;        // delta.appendOnly=true
  bool invariants = false;         // delta.invariants column metadata
};
FeatureNeeds NeedsOf(const Metadata& metadata, const schema::Schema& schema);

/// The lowest protocol at least as high as `current` (default: none) that supports `needs`:
/// (1,2) for a plain table, (1,3) with CHECK constraints, (2,5) with column mapping, (3,7) with
/// timestamp_ntz, type widening or deletion vectors. Moving to (3,7) lists every feature the
/// old legacy versions implied, as Delta does, so nothing the table had is dropped.
Protocol RequiredProtocol(const FeatureNeeds& needs, const Protocol* current = nullptr);

/// `current` raised to the versions asked for (delta.minReaderVersion/minWriterVersion), never
/// lowered. Reader version 3 brings writer version 7; moving to 7 (or 3) lists the features the
/// legacy versions implied, as Delta does.
Protocol RaiseProtocol(const Protocol& current, int min_reader_version, int min_writer_version);

/// Whether a table property is "true" (in any case), without adding the key.
bool PropertyTrue(const Metadata& metadata, std::string_view key);

/// Whether a protocol supports the feature (listed or implied by a legacy version).
bool Supports(const Protocol& protocol, std::string_view feature);

}  // namespace sluice::table
