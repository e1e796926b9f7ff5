// Compatibility: the check behind registrations and the /compatibility endpoints, decided by
// the compatibility engine over the subject's live versions, with Confluent's messages.
#include "sluice/base/json_writer.h"
#include "sluice/registry/service_internal.h"

namespace sluice::registry::internal {
namespace {

using evolution::CompatibilityMode;

// A check against one version is never transitive.
CompatibilityMode OneVersion(CompatibilityMode level) {
  switch (level) {
    case CompatibilityMode::kBackwardTransitive:
      return CompatibilityMode::kBackward;
    case CompatibilityMode::kForwardTransitive:
      return CompatibilityMode::kForward;
    case CompatibilityMode::kFullTransitive:
      return CompatibilityMode::kFull;
    case CompatibilityMode::kNone:
    case CompatibilityMode::kBackward:
    case CompatibilityMode::kForward:
    case CompatibilityMode::kFull:
      break;
  }
  return level;
}

bool IsTransitive(CompatibilityMode mode) { return OneVersion(mode) != mode; }

std::string Verdict(bool compatible, const std::vector<std::string>* messages) {
  JsonWriter w;
  w.BeginObject().Key("is_compatible").Bool(compatible);
  if (messages != nullptr) {
    w.Key("messages").BeginArray();
    for (const std::string& m : *messages) w.String(m);
    w.EndArray();
  }
  w.EndObject();
  return w.Take();
}

}  // namespace

std::vector<std::string> CompatibilityMessages(const evolution::CompatibilityReport& report,
                                               const std::vector<VersionRow>& live,
                                               const std::vector<SchemaRow>& texts) {
  std::vector<std::string> out;
  for (const evolution::Incompatibility& inc : report.incompatibilities) {
    std::string m = "{errorType:'" + inc.kind + "', description:'" + inc.message + "'";
    if (!inc.location.empty()) m += ", additionalInfo:'" + inc.location + "'";
    m += "}";
    out.push_back(std::move(m));
  }
  if (!report.incompatibilities.empty()) {
    const size_t idx = report.incompatibilities.front().version_index;
    if (idx < live.size()) {
      out.push_back("{oldSchemaVersion: " + std::to_string(live[idx].version) + "}");
      out.push_back("{oldSchema: '" + texts[idx].text.substr(0, 10240) + "'}");
    }
  }
  out.push_back("{validateFields: 'false', compatibility: '" +
                std::string(evolution::CompatibilityModeName(report.mode)) + "'}");
  return out;
}

Result<evolution::CompatibilityReport> Service::Check(Catalog& catalog, CompatibilityMode mode,
                                                      const std::vector<VersionRow>& live,
                                                      const Candidate& candidate,
                                                      std::vector<SchemaRow>& texts) {
  // Only the versions the mode checks are read and parsed (the latest, or all of them when
  // transitive), so a long history costs a plain check nothing; the others stay empty, at their
  // places, as the engine never looks at them.
  const size_t first = IsTransitive(mode) || live.empty() ? 0 : live.size() - 1;
  texts.resize(live.size());
  for (size_t i = first; i < live.size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(texts[i], catalog.SchemaOf(live[i]));
  }
  evolution::CompatibilityReport report;
  report.mode = mode;
  report.compatible = true;
  if (mode == CompatibilityMode::kNone || live.empty()) return report;
  // A schema of another type than the versions it is checked against is never compatible.
  for (size_t i = first; i < live.size(); ++i) {
    if (texts[i].type != candidate.type) {
      report.compatible = false;
      report.incompatibilities.push_back({"TYPE_MISMATCH", "",
                                          "Incompatible because of different schema type", "",
                                          evolution::CheckDirection::kBackward, i});
      return report;
    }
  }
  std::vector<evolution::ParsedSchemaPtr> history(texts.size());
  for (size_t i = first; i < texts.size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(history[i], resolver_.Parsed(catalog, texts[i]));
  }
  evolution::CompatibilityOptions opts;
  opts.stop_at_first_failure = true;
  return evolution::CheckCompatibility(mode, history, *candidate.parsed, opts);
}

Result<std::string> Service::CheckAgainstSubject(const Call& call) {
  return Compatibility(call, std::nullopt);
}

Result<std::string> Service::CheckAgainstVersion(const Call& call) {
  SLUICE_ASSIGN_OR_RETURN(VersionId version, ParseVersion(call.path.version));
  return Compatibility(call, version);
}

Result<std::string> Service::Compatibility(const Call& call, std::optional<VersionId> version) {
  Catalog& catalog = call.catalog;
  SLUICE_ASSIGN_OR_RETURN(SchemaRequest request,
                          SchemaRequest::Parse(call.body, call.query.Bool("normalize")));
  const bool verbose = call.query.Bool("verbose");
  Transaction tx(catalog.connection());
  SLUICE_TRY(tx.Begin(false));
  SLUICE_ASSIGN_OR_RETURN(std::vector<VersionRow> versions, catalog.Versions(call.subject()));
  std::vector<VersionRow> live;
  for (const VersionRow& v : versions) {
    if (!v.deleted && (!version || version->latest || v.version == version->number)) {
      live.push_back(v);
    }
  }
  if (version && !version->latest && live.empty()) {
    return Fail(VersionNotFound(version->number));
  }
  std::optional<SchemaRow> latest;
  if (!live.empty()) {
    SLUICE_ASSIGN_OR_RETURN(latest, catalog.SchemaById(live.back().schema_id));
  }
  Result<Candidate> candidate = resolver_.Resolve(catalog, request, latest);
  if (!candidate.has_value()) {
    // With verbose, an invalid schema is an answer: not compatible, and why.
    if (verbose && ConfluentCode(candidate.error()) == 42201) {
      const std::vector<std::string> why = {candidate.error().message()};
      return Verdict(false, &why);
    }
    return Fail(candidate.error());
  }
  SLUICE_ASSIGN_OR_RETURN(
      CompatibilityMode level,
      catalog.EffectiveCompatibility(call.subject(), options_.default_compatibility));
  if (version) {
    // One version: checked in the level's direction(s), never transitively.
    if (version->latest && !live.empty()) live = {live.back()};
    level = OneVersion(level);
  }
  std::vector<SchemaRow> texts;
  SLUICE_ASSIGN_OR_RETURN(evolution::CompatibilityReport report,
                          Check(catalog, level, live, *candidate, texts));
  if (!verbose) return Verdict(report.compatible, nullptr);
  std::vector<std::string> messages;
  if (!report.compatible) messages = CompatibilityMessages(report, live, texts);
  return Verdict(report.compatible, &messages);
}

}  // namespace sluice::registry::internal
