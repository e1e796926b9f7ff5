#include "sluice/alert/hooks.h"

#include "sluice/alert/notifier.h"
#include "sluice/dialects/format.h"

namespace sluice::alert {

namespace {

Result<schema::SchemaPtr> ReadRegistered(const std::string& type, const std::string& text) {
  SLUICE_ASSIGN_OR_RETURN(dialects::Format format,
                          dialects::ParseFormatName(type == "JSON" ? "json-schema" : "avro"));
  SLUICE_ASSIGN_OR_RETURN(auto read, dialects::ReadSchema(text, format));
  return read.value;
}

void Identify(evolution::DriftReport& report) {
  report.alert_id =
      evolution::DriftAlertId(report.source, report.before.sha256, report.after.sha256);
}

}  // namespace

Result<evolution::DriftReport> ReportForNewVersion(const registry::NewVersionEvent& event,
                                                   const std::string& authority) {
  evolution::DriftReport report;
  report.source = "registry://" + authority + "/" + event.subject;
  report.source_kind = "registry";
  report.baseline = report.source + "/versions/" + std::to_string(event.version - 1);
  report.baseline_kind = "registry";
  report.checked_ms = NowMs();
  SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr after, ReadRegistered(event.schema_type, event.schema));
  report.after = evolution::FingerprintsOf(*after);
  report.fields = evolution::DriftFieldsOf(*after);
  if (event.previous_schema.empty()) {
    report.verdict = evolution::DriftVerdict::kRecorded;
    report.baseline_kind = "none";
    Identify(report);
    return report;
  }
  SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr before,
                          ReadRegistered(event.schema_type, event.previous_schema));
  report.before = evolution::FingerprintsOf(*before);
  const auto type = event.schema_type == "JSON" ? evolution::SchemaType::kJsonSchema
                                                : evolution::SchemaType::kAvro;
  evolution::DriftJudge judge;
  judge.mode = event.mode;
  judge.subject = event.subject;
  SLUICE_ASSIGN_OR_RETURN(auto previous,
                          evolution::ParsedSchema::Parse(type, event.previous_schema));
  judge.history.push_back(std::move(previous));
  SLUICE_ASSIGN_OR_RETURN(judge.candidate, evolution::ParsedSchema::Parse(type, event.schema));
  if (report.before.sha256 == report.after.sha256) {
    // A new version whose fields are the same (a new doc-free spelling, a new name): nothing a
    // reader of the fields would notice, and nothing to send.
    report.verdict = evolution::DriftVerdict::kUnchanged;
  } else {
    SLUICE_TRY(evolution::JudgeDrift(*before, *after, judge, report));
  }
  Identify(report);
  return report;
}

Result<evolution::DriftReport> ReportForSchemaChange(const SchemaChange& change) {
  evolution::DriftReport report;
  report.source = change.source;
  report.source_kind = change.kind;
  report.baseline = change.version > 0 ? change.source + "@v" + std::to_string(change.version - 1)
                                       : change.source;
  report.baseline_kind = "delta";
  report.checked_ms = NowMs();
  report.before = evolution::FingerprintsOf(*change.before);
  report.after = evolution::FingerprintsOf(*change.after);
  report.fields = evolution::DriftFieldsOf(*change.after);
  if (report.before.sha256 == report.after.sha256) {
    report.verdict = evolution::DriftVerdict::kUnchanged;
  } else {
    evolution::DriftJudge judge;
    judge.delta = true;
    judge.delta_type_widening = change.type_widening;
    judge.delta_column_mapping = change.column_mapping;
    SLUICE_TRY(evolution::JudgeDrift(*change.before, *change.after, judge, report));
  }
  Identify(report);
  return report;
}

}  // namespace sluice::alert
