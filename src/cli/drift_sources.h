// What `sluice drift check` and `sluice drift watch` compare: the SOURCE's schema now (a schema
// file, data files inferred as Spark or Auto Loader would, a Delta table's latest schema, or a
// registry subject's latest version) and the baseline REF's (a baseline file, a registry
// subject's latest version, or a Delta table at a version), judged under the rules that govern
// it, and the baseline moved when asked.
#pragma once

#include <memory>
#include <string>

#include "sluice/alert/notifier.h"
#include "sluice/base/result.h"
#include "sluice/evolution/drift.h"

namespace sluice::cli {

struct DriftCheckSpec {
  std::string source;
  std::string baseline;
  std::string mode = "spark";  // data files: spark or autoloader
  std::string input_format;    // data files: json, csv, parquet, avro; empty: detected
  std::string from;            // schema files: the format, empty: detected
  bool data = false;           // read SOURCE as data files even when it looks like a schema
  std::string contract;        // a contract file: its rules judge the change
  bool accept = false;         // move the baseline to the new schema
  std::string link;            // a link for people, `{source}` and `{alertId}` expanded
};

/// Run one check: load both sides, judge, record or move the baseline. Returns the report
/// (verdict kRecorded on a first run); errors for unreadable sources or baselines.
Result<evolution::DriftReport> RunDriftCheck(const DriftCheckSpec& spec);

/// The outbox a check of `baseline` uses by default: beside a baseline file, else in the working
/// directory.
std::string DefaultOutboxFor(const std::string& baseline);

/// `source` with any user:password@ in a URL removed: the form reports and alerts carry.
std::string RedactSource(const std::string& source);

}  // namespace sluice::cli
