#include "sluice/evolution/drift.h"

#include <string>

#include "sluice/base/hash.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/evolution/contract_check.h"
#include "sluice/evolution/table_merge.h"
#include "sluice/schema/canonical.h"

namespace sluice::evolution {

std::string_view DriftVerdictName(DriftVerdict verdict) {
  switch (verdict) {
    case DriftVerdict::kRecorded:
      return "recorded";
    case DriftVerdict::kUnchanged:
      return "unchanged";
    case DriftVerdict::kCompatible:
      return "compatible";
    case DriftVerdict::kBreaking:
      return "breaking";
    case DriftVerdict::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::string_view DriftRulesName(DriftRules rules) {
  switch (rules) {
    case DriftRules::kSeverity:
      return "severity";
    case DriftRules::kContract:
      return "contract";
    case DriftRules::kRegistry:
      return "registry";
    case DriftRules::kDelta:
      return "delta";
  }
  return "severity";
}

std::string DriftAlertId(std::string_view source, std::string_view old_fingerprint,
                         std::string_view new_fingerprint) {
  std::string key;
  key.reserve(source.size() + old_fingerprint.size() + new_fingerprint.size() + 2);
  key.append(source).push_back('\0');
  key.append(old_fingerprint).push_back('\0');
  key.append(new_fingerprint);
  return Sha256Hex(key).substr(0, 32);
}

DriftFingerprints FingerprintsOf(const schema::Schema& schema) {
  return {schema::Fingerprint(schema), dialects::spark::SparkMd5(schema)};
}

std::vector<DriftField> DriftFieldsOf(const schema::Schema& schema) {
  std::vector<DriftField> out;
  out.reserve(schema.fields().size());
  for (const auto& f : schema.fields()) {
    out.push_back({f.name(), dialects::spark::DataTypeName(*f.type()), f.nullable()});
  }
  return out;
}

namespace {

void JudgeBySeverity(DriftReport& report) {
  for (const Change& c : report.diff.changes) {
    if (c.severity() != ChangeSeverity::kBreaking) continue;
    // The rule names the kind; the message says what it was and became.
    std::string message;
    if (c.kind == ChangeKind::kFieldRemoved) {
      message = "removed (was " + c.from.value_or("?") + ")";
    } else if (c.kind == ChangeKind::kFieldAdded) {
      message = "added as " + c.to.value_or("?") + " (a new NOT NULL field)";
    } else {
      message = c.from.value_or("(none)") + " -> " + c.to.value_or("(none)");
    }
    report.reasons.push_back({c.path.ToString(), std::string(ChangeKindName(c.kind)), message});
  }
}

Status JudgeByContract(const schema::Schema& before, const schema::Schema& after,
                       const DriftJudge& judge, DriftReport& report) {
  SLUICE_ASSIGN_OR_RETURN(ContractCheckReport checked,
                          CheckContract(after, *judge.contract, &before));
  for (const ContractViolation& v : checked.violations) {
    report.reasons.push_back(
        {v.path.ToString(), std::string(ViolationRuleName(v.rule)), v.message});
  }
  report.rules_detail = "contract " + judge.contract_name;
  return Ok();
}

void JudgeByRegistry(const DriftJudge& judge, DriftReport& report) {
  const CompatibilityMode mode = *judge.mode;
  if (mode == CompatibilityMode::kNone) {
    // NONE accepts every version; what a reader needs to know is still whether it breaks them.
    JudgeBySeverity(report);
    report.rules_detail = "subject " + judge.subject + ", NONE (judged by each change's severity)";
    return;
  }
  CompatibilityReport checked = CheckCompatibility(mode, judge.history, *judge.candidate);
  for (const Incompatibility& i : checked.incompatibilities) {
    std::string message = i.message;
    if (!i.hint.empty()) message += " (" + i.hint + ")";
    report.reasons.push_back({i.location, i.kind, message});
  }
  report.rules_detail =
      "subject " + judge.subject + ", " + std::string(CompatibilityModeName(mode));
}

Status JudgeByDelta(const schema::Schema& before, const schema::Schema& after,
                    const DriftJudge& judge, DriftReport& report) {
  TableEvolutionOptions options;
  options.format = TableFormat::kDelta;
  options.type_widening = judge.delta_type_widening;
  options.column_mapping = judge.delta_column_mapping;
  SLUICE_ASSIGN_OR_RETURN(TableEvolutionReport checked,
                          CheckTableEvolution(before, after, options));
  for (const TableViolation& v : checked.violations) {
    report.reasons.push_back({v.path.ToString(), v.error_class, v.message});
  }
  report.rules_detail = "Delta in-place evolution";
  if (judge.delta_type_widening) report.rules_detail += ", type widening";
  if (judge.delta_column_mapping) report.rules_detail += ", column mapping";
  return Ok();
}

}  // namespace

Status JudgeDrift(const schema::Schema& before, const schema::Schema& after,
                  const DriftJudge& judge, DriftReport& report) {
  const int sources = (judge.contract != nullptr) + judge.mode.has_value() + judge.delta;
  if (sources > 1) {
    return InvalidArgument(
        "a drift check takes one set of rules: a contract, a registry "
        "subject's compatibility mode, or Delta's");
  }
  report.diff = Diff(before, after);
  report.reasons.clear();
  if (judge.contract != nullptr) {
    report.rules = DriftRules::kContract;
    SLUICE_TRY(JudgeByContract(before, after, judge, report));
  } else if (judge.mode.has_value()) {
    if (judge.candidate == nullptr) {
      return InvalidArgument("a registry judgement needs the new schema in the subject's type");
    }
    report.rules = DriftRules::kRegistry;
    JudgeByRegistry(judge, report);
  } else if (judge.delta) {
    report.rules = DriftRules::kDelta;
    SLUICE_TRY(JudgeByDelta(before, after, judge, report));
  } else {
    report.rules = DriftRules::kSeverity;
    report.rules_detail = "change severity";
    JudgeBySeverity(report);
  }
  report.verdict = report.reasons.empty() ? DriftVerdict::kCompatible : DriftVerdict::kBreaking;
  return Ok();
}

}  // namespace sluice::evolution
