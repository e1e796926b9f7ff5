// Schema drift: a source's schema now against its baseline, and what the change means under the
// rules that govern the source (a contract's change policy, a registry subject's compatibility
// mode, Delta's in-place evolution rules, or, when none is named, each change's severity).
// `sluice drift check` builds a DriftReport; report/drift_render.h renders it (terminal formats
// and the alert messages: Slack, Teams, webhook, email, log line). Nothing here prints or reads
// files.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/dialects/contract/contract.h"
#include "sluice/evolution/compatibility.h"
#include "sluice/evolution/diff.h"
#include "sluice/schema/schema.h"

namespace sluice::evolution {

enum class DriftVerdict : uint8_t {
  kRecorded,    // no baseline existed: this schema became the baseline
  kUnchanged,   // the fingerprints are equal
  kCompatible,  // changed, and the rules allow the change
  kBreaking,    // changed, and the rules refuse at least one change
  kUnknown,     // changed, but the baseline holds only a hash: nothing to compare with
};

/// "recorded", "unchanged", "compatible", "breaking", "unknown": the names in JSON and messages.
std::string_view DriftVerdictName(DriftVerdict verdict);

/// Which rules judged a change.
enum class DriftRules : uint8_t {
  kSeverity,  // each change's severity (ChangeSeverity): any breaking change breaks
  kContract,  // a contract's change policy and columns (CheckContract with the previous schema)
  kRegistry,  // a registry subject's compatibility mode (CheckCompatibility)
  kDelta,     // Delta's in-place evolution rules (CheckTableEvolution)
};

/// "severity", "contract", "registry", "delta".
std::string_view DriftRulesName(DriftRules rules);

/// One reason a change breaks (or, for kUnknown, why nothing could be judged).
struct DriftReason {
  std::string path;  // the field path, or a location in the checker's terms; may be empty
  std::string
      rule;  // the checker's id: "field_removed", "TYPE_MISMATCH", "type_change_not_allowed"
  std::string message;  // in words, naming old and new
};

/// One field of the new schema, as the seed's alert lists them ("amount: bigint").
struct DriftField {
  std::string name;
  std::string type;  // Spark's simple string
  bool nullable = true;
};

/// Both sides' identities. `sha256` is sluice's canonical fingerprint (schema/canonical.h);
/// `spark_md5` is the MD5 of PySpark's `schema.json()` (what the seed's baseline file holds).
struct DriftFingerprints {
  std::string sha256;
  std::string spark_md5;
};

struct DriftReport {
  std::string source;         // the source as the user named it (secrets never included)
  std::string source_kind;    // "schema", "data", "delta", "registry"
  std::string baseline;       // the baseline reference as the user named it
  std::string baseline_kind;  // "file", "md5", "registry", "delta", "none"
  /// Empty strings when there is no baseline (kRecorded) or only an MD5 (sha256 empty).
  DriftFingerprints before;
  DriftFingerprints after;
  DriftVerdict verdict = DriftVerdict::kUnchanged;
  DriftRules rules = DriftRules::kSeverity;
  /// The rules in words: "contract orders_contract.yaml", "subject payments-value, BACKWARD",
  /// "Delta (mergeSchema, no type widening)", "change severity".
  std::string rules_detail;
  /// Why the verdict is breaking (empty for the other verdicts).
  std::vector<DriftReason> reasons;
  /// The changes from the baseline's schema to the source's (empty without an old schema).
  SchemaDiff diff;
  /// The new schema's top-level fields, in order.
  std::vector<DriftField> fields;
  /// When the check ran, milliseconds since the epoch (UTC).
  int64_t checked_ms = 0;
  /// Set when the check moved the baseline (--accept, or the first run).
  bool baseline_moved = false;
  std::string accepted_by;  // who moved it (the user name), when --accept did
  /// A link for people (a dashboard, a runbook), expanded from the user's template; may be empty.
  std::string link;
  /// Stable id of this change: the same source, old and new fingerprints give the same id, so
  /// receivers can drop a repeated delivery (DriftAlertId).
  std::string alert_id;

  bool changed() const {
    return verdict == DriftVerdict::kCompatible || verdict == DriftVerdict::kBreaking ||
           verdict == DriftVerdict::kUnknown;
  }
};

/// The identity of a change: lower-case hex (32 digits) of the SHA-256 of source, old and new
/// fingerprint (sha256 when known, else spark-md5), NUL-separated.
std::string DriftAlertId(std::string_view source, std::string_view old_fingerprint,
                         std::string_view new_fingerprint);

/// Both fingerprints of a schema.
DriftFingerprints FingerprintsOf(const schema::Schema& schema);

/// The top-level fields of a schema as DriftFields.
std::vector<DriftField> DriftFieldsOf(const schema::Schema& schema);

/// How to judge a change. Exactly one of the rule sources may be set; none means kSeverity.
struct DriftJudge {
  /// A contract: its change policy (allowed_new_columns, allowed_type_changes,
  /// allowed_column_removal) and its columns, checked on the new schema with the old as previous.
  std::shared_ptr<const dialects::contract::Contract> contract;
  std::string contract_name;  // for rules_detail
  /// A registry subject: its compatibility mode and type; the new schema is checked against
  /// `history` (oldest first, the subject's versions; the baseline is the last).
  std::optional<CompatibilityMode> mode;
  std::vector<ParsedSchemaPtr> history;
  ParsedSchemaPtr candidate;  // the new schema in the subject's type
  std::string subject;        // for rules_detail
  /// A Delta table: its evolution rules with these properties.
  bool delta = false;
  bool delta_type_widening = false;
  bool delta_column_mapping = false;
};

/// Fill `report.diff`, `verdict`, `rules`, `rules_detail` and `reasons` for a change from
/// `before` to `after` (their fingerprints differ). Errors only for a contract that cannot be
/// applied (no such object) or a judge with more than one rule source.
Status JudgeDrift(const schema::Schema& before, const schema::Schema& after,
                  const DriftJudge& judge, DriftReport& report);

}  // namespace sluice::evolution
