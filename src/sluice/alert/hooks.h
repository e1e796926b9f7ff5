// Drift reports for the changes other components make: a registry subject's new version, a
// Delta commit that changes a table's schema, an ingest stream's schema evolution. Each is judged
// by the rules of the component (the subject's compatibility mode, Delta's in-place evolution
// rules) and sent through a Notifier like a `sluice drift check` finding.
#pragma once

#include <string>

#include "sluice/base/result.h"
#include "sluice/evolution/drift.h"
#include "sluice/registry/registry.h"
#include "sluice/schema/schema.h"

namespace sluice::alert {

/// The report for a registry's new version: source `registry://<authority>/<subject>`, verdict
/// under the mode the version was registered in (NONE: each change's severity). A subject's
/// first version is kRecorded (Notifier::Enqueue sends nothing for it).
Result<evolution::DriftReport> ReportForNewVersion(const registry::NewVersionEvent& event,
                                                   const std::string& authority);

/// What a schema-changing write did to a table (or an ingest stream to its table).
struct SchemaChange {
  std::string source;  // the table's path, or the ingest source ("landing/ -> table")
  std::string kind;    // "delta" for tables, "ingest" for streams
  schema::SchemaPtr before;
  schema::SchemaPtr after;
  int64_t version = -1;  // the commit that changed it, when known
  bool type_widening = false;
  bool column_mapping = false;
};

/// The report for a table whose schema changed in a commit, judged by Delta's rules.
Result<evolution::DriftReport> ReportForSchemaChange(const SchemaChange& change);

}  // namespace sluice::alert
