#include "sluice/evolution/drift.h"

#include <string>

#include "sluice/base/hash.h"
#include "sluice/dialects/spark/spark.h"
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

}  // namespace sluice::evolution
