#include "cli/drift_sources.h"

#include <fmt/format.h>

#include <optional>

#include "cli/cli_common.h"
#include "cli/data_flags.h"
#include "cli/schema_versions.h"
#include "sluice/alert/baseline.h"
#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/base/strings.h"
#include "sluice/data/file_runs.h"
#include "sluice/dialects/format.h"
#include "sluice/registry/client.h"
#include "sluice/table/column_mapping.h"
#include "sluice/table/snapshot.h"

namespace sluice::cli {

namespace {

using evolution::DriftReport;
using evolution::DriftVerdict;

// A registry subject and what judging against it needs.
struct SubjectState {
  std::string subject;
  std::string type = "AVRO";  // AVRO or JSON
  std::string latest_text;
  schema::SchemaPtr latest;
  evolution::CompatibilityMode mode = evolution::CompatibilityMode::kBackward;
  std::vector<std::string> history_texts;  // oldest first; the latest is last
};

struct LoadedSide {
  schema::SchemaPtr schema;
  std::string kind;  // schema, data, delta, registry
  std::optional<SubjectState> subject;
  bool delta_type_widening = false;
  bool delta_column_mapping = false;
};

struct RegistryRef {
  std::string host;
  std::string subject;
};

Result<RegistryRef> ParseRegistryRef(const std::string& arg) {
  std::string_view rest = std::string_view(arg).substr(std::string_view("registry://").size());
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash + 1 >= rest.size()) {
    return InvalidArgument("a registry subject is registry://HOST:PORT/SUBJECT, not '" +
                           RedactSource(arg) + "'");
  }
  RegistryRef ref{std::string(rest.substr(0, slash)), std::string(rest.substr(slash + 1))};
  if (size_t v = ref.subject.find("/versions/"); v != std::string::npos) ref.subject.resize(v);
  return ref;
}

Result<JsonValue> RegistryGet(registry::Client& client, const std::string& path,
                              const std::string& what) {
  SLUICE_ASSIGN_OR_RETURN(registry::HttpReply reply, client.Call("GET", path));
  if (reply.status != 200) {
    return Fail(reply.status == 404 ? ErrorCode::kNotFound : ErrorCode::kIoError,
                fmt::format("{}: the registry answered {}: {}", what, reply.status,
                            registry::Client::ErrorMessage(reply)));
  }
  return ParseJson(reply.body);
}

Result<schema::SchemaPtr> ReadSubjectSchema(const std::string& type, const std::string& text) {
  SLUICE_ASSIGN_OR_RETURN(dialects::Format format,
                          dialects::ParseFormatName(type == "JSON" ? "json-schema" : "avro"));
  SLUICE_ASSIGN_OR_RETURN(auto read, dialects::ReadSchema(text, format));
  return read.value;
}

// The subject's latest version, its compatibility mode and, for transitive modes, every version.
Result<SubjectState> LoadSubject(const std::string& arg) {
  SLUICE_ASSIGN_OR_RETURN(RegistryRef ref, ParseRegistryRef(arg));
  registry::ClientOptions co;
  co.url = "http://" + ref.host;
  SLUICE_ASSIGN_OR_RETURN(auto client, registry::Client::Create(co));
  const std::string base = "/subjects/" + registry::EncodeSegment(ref.subject);
  SubjectState s;
  s.subject = ref.subject;
  SLUICE_ASSIGN_OR_RETURN(JsonValue latest,
                          RegistryGet(*client, base + "/versions/latest", RedactSource(arg)));
  const JsonValue* text = latest.Find("schema");
  if (text == nullptr || !text->is_string()) {
    return ParseError(RedactSource(arg) + ": the registry's reply has no schema");
  }
  if (const JsonValue* t = latest.Find("schemaType"); t != nullptr && t->is_string()) {
    s.type = t->as_string();
  }
  if (s.type != "AVRO" && s.type != "JSON") {
    return Unimplemented(RedactSource(arg) + ": " + s.type +
                         " subjects are not compared (Avro and JSON Schema are)");
  }
  s.latest_text = text->as_string();
  SLUICE_ASSIGN_OR_RETURN(s.latest, ReadSubjectSchema(s.type, s.latest_text));
  auto config = RegistryGet(
      *client, "/config/" + registry::EncodeSegment(ref.subject) + "?defaultToGlobal=true",
      RedactSource(arg));
  if (config.has_value()) {
    if (const JsonValue* level = config->Find("compatibilityLevel");
        level != nullptr && level->is_string()) {
      SLUICE_ASSIGN_OR_RETURN(s.mode, evolution::ParseCompatibilityMode(level->as_string()));
    }
  }
  const std::string_view mode_name = evolution::CompatibilityModeName(s.mode);
  if (mode_name.ends_with("_TRANSITIVE")) {
    SLUICE_ASSIGN_OR_RETURN(JsonValue versions,
                            RegistryGet(*client, base + "/versions", RedactSource(arg)));
    for (const JsonValue& v : versions.items()) {
      if (!v.as_int64().has_value()) continue;
      SLUICE_ASSIGN_OR_RETURN(
          JsonValue one, RegistryGet(*client, base + "/versions/" + std::to_string(*v.as_int64()),
                                     RedactSource(arg)));
      const JsonValue* t = one.Find("schema");
      if (t != nullptr && t->is_string()) s.history_texts.push_back(t->as_string());
    }
  } else {
    s.history_texts.push_back(s.latest_text);
  }
  return s;
}

bool LooksLikeData(const std::string& path) {
  const std::string lower = AsciiLower(path);
  for (std::string_view ext : {".jsonl", ".ndjson", ".csv", ".tsv", ".avro", ".gz"}) {
    if (lower.ends_with(ext)) return true;
  }
  return false;
}

Result<schema::SchemaPtr> InferData(const DriftCheckSpec& spec) {
  SLUICE_TRY(CheckCpu());
  SLUICE_ASSIGN_OR_RETURN(std::vector<std::string> files, InputFiles({spec.source}, ""));
  if (files.empty()) return NotFound(spec.source + ": no data files to infer a schema from");
  SLUICE_ASSIGN_OR_RETURN(
      data::RecordFormat format,
      ResolveFormat(spec.input_format.empty() ? "auto" : spec.input_format, files));
  data::InferRunOptions ro;
  ro.format = format;
  std::optional<data::AutoLoaderOptions> al;
  if (spec.mode == "autoloader") al.emplace();
  ro.json.auto_loader = al;
  ro.csv_infer.infer_schema = true;
  ro.csv_infer.auto_loader = al;
  SLUICE_ASSIGN_OR_RETURN(data::InferResult inferred, data::InferFiles(files, ro));
  return inferred.schema;
}

Result<LoadedSide> LoadTable(const std::string& path, std::optional<int64_t> version) {
  table::SnapshotOptions at;
  at.version = version;
  SLUICE_ASSIGN_OR_RETURN(table::Snapshot snapshot,
                          table::LoadSnapshot(*LocalFileSystem(), path, at));
  LoadedSide side;
  side.kind = "delta";
  SLUICE_ASSIGN_OR_RETURN(side.schema, table::WithoutStorageMetadata(*snapshot.schema));
  side.delta_type_widening = snapshot.Property("delta.enableTypeWidening") == "true";
  auto mapping = snapshot.Property("delta.columnMapping.mode");
  side.delta_column_mapping = mapping.has_value() && *mapping != "none";
  return side;
}

// `PATH@vN` / `PATH@N` of a Delta table.
std::optional<std::pair<std::string, int64_t>> TableAtVersion(const std::string& arg) {
  auto [path, version] = SplitVersion(arg);
  if (!version.has_value() || !IsDeltaTable(path)) return std::nullopt;
  return std::make_pair(path, *version);
}

Result<LoadedSide> LoadSource(const DriftCheckSpec& spec) {
  const std::string& arg = spec.source;
  if (arg.starts_with("registry://")) {
    SLUICE_ASSIGN_OR_RETURN(SubjectState s, LoadSubject(arg));
    LoadedSide side;
    side.kind = "registry";
    side.schema = s.latest;
    side.subject = std::move(s);
    return side;
  }
  if (auto at = TableAtVersion(arg)) return LoadTable(at->first, at->second);
  if (IsDeltaTable(arg)) return LoadTable(arg, std::nullopt);
  auto info = LocalFileSystem()->Stat(arg);
  if (!info.has_value()) return Fail(info.error().WithContext(arg));
  LoadedSide side;
  if (spec.data || info->kind == FileKind::kDirectory || LooksLikeData(arg)) {
    side.kind = "data";
    SLUICE_ASSIGN_OR_RETURN(side.schema, InferData(spec));
    return side;
  }
  auto loaded = LoadSchema(arg, spec.from);
  if (!loaded.has_value()) {
    // A `.json` file holding records rather than a schema is data.
    if (spec.from.empty() && AsciiLower(arg).ends_with(".json")) {
      side.kind = "data";
      SLUICE_ASSIGN_OR_RETURN(side.schema, InferData(spec));
      return side;
    }
    return Fail(loaded.error());
  }
  side.kind = "schema";
  side.schema = loaded->schema;
  return side;
}

Result<std::shared_ptr<const dialects::contract::Contract>> ReadContract(const std::string& path) {
  SLUICE_ASSIGN_OR_RETURN(dialects::contract::Contract c, LoadContract(path));
  return std::make_shared<const dialects::contract::Contract>(std::move(c));
}

// The new schema as the subject's type reads it, for the subject's compatibility check.
Result<evolution::ParsedSchemaPtr> CandidateFor(const SubjectState& subject,
                                                const LoadedSide& source) {
  if (source.subject.has_value() && source.subject->type == subject.type) {
    return evolution::ParsedSchema::Parse(
        subject.type == "JSON" ? evolution::SchemaType::kJsonSchema : evolution::SchemaType::kAvro,
        source.subject->latest_text);
  }
  SLUICE_ASSIGN_OR_RETURN(
      dialects::Format format,
      dialects::ParseFormatName(subject.type == "JSON" ? "json-schema" : "avro"));
  SLUICE_ASSIGN_OR_RETURN(auto text, dialects::WriteSchema(*source.schema, format));
  return evolution::ParsedSchema::Parse(
      subject.type == "JSON" ? evolution::SchemaType::kJsonSchema : evolution::SchemaType::kAvro,
      text.value);
}

Status JudgeAgainstSubject(const SubjectState& subject, const LoadedSide& source,
                           evolution::DriftJudge& judge) {
  const auto type =
      subject.type == "JSON" ? evolution::SchemaType::kJsonSchema : evolution::SchemaType::kAvro;
  judge.mode = subject.mode;
  judge.subject = subject.subject;
  for (const std::string& text : subject.history_texts) {
    SLUICE_ASSIGN_OR_RETURN(auto parsed, evolution::ParsedSchema::Parse(type, text));
    judge.history.push_back(std::move(parsed));
  }
  SLUICE_ASSIGN_OR_RETURN(judge.candidate, CandidateFor(subject, source));
  return Ok();
}

std::string ExpandLink(std::string link, const DriftReport& report) {
  auto replace = [&link](std::string_view key, const std::string& value) {
    for (size_t at = link.find(key); at != std::string::npos;
         at = link.find(key, at + value.size())) {
      link.replace(at, key.size(), value);
    }
  };
  replace("{source}", report.source);
  replace("{alertId}", report.alert_id);
  replace("{verdict}", std::string(evolution::DriftVerdictName(report.verdict)));
  return link;
}

alert::Baseline NewBaseline(const DriftCheckSpec& spec, const LoadedSide& source,
                            const DriftReport& report, std::string reason) {
  alert::Baseline b;
  b.schema = source.schema;
  b.fingerprints = report.after;
  b.source = report.source;
  b.recorded_ms = report.checked_ms;
  b.recorded_by = alert::CurrentUser();
  b.reason = std::move(reason);
  (void)spec;
  return b;
}

}  // namespace

std::string RedactSource(const std::string& source) {
  size_t scheme = source.find("://");
  if (scheme == std::string::npos) return source;
  size_t start = scheme + 3;
  size_t end = source.find('/', start);
  size_t at = source.rfind('@', end == std::string::npos ? source.size() : end);
  if (at == std::string::npos || at < start) return source;
  return source.substr(0, start) + source.substr(at + 1);
}

std::string DefaultOutboxFor(const std::string& baseline) {
  if (baseline.starts_with("registry://") || IsDeltaTable(baseline) ||
      TableAtVersion(baseline).has_value()) {
    return alert::kOutboxFileName;
  }
  size_t slash = baseline.rfind('/');
  if (slash == std::string::npos) return alert::kOutboxFileName;
  return baseline.substr(0, slash + 1) + alert::kOutboxFileName;
}

Result<DriftReport> RunDriftCheck(const DriftCheckSpec& spec) {
  SLUICE_ASSIGN_OR_RETURN(LoadedSide source, LoadSource(spec));
  DriftReport report;
  report.source = RedactSource(spec.source);
  report.source_kind = source.kind;
  report.baseline = RedactSource(spec.baseline);
  report.after = evolution::FingerprintsOf(*source.schema);
  report.fields = evolution::DriftFieldsOf(*source.schema);
  report.checked_ms = alert::NowMs();

  evolution::DriftJudge judge;
  if (!spec.contract.empty()) {
    SLUICE_ASSIGN_OR_RETURN(judge.contract, ReadContract(spec.contract));
    judge.contract_name = spec.contract;
  }
  schema::SchemaPtr before;
  std::optional<alert::Baseline> file_baseline;
  const std::string& ref = spec.baseline;
  if (ref.starts_with("registry://")) {
    if (spec.accept) {
      return InvalidArgument(
          "--accept moves baseline files; a registry subject's baseline "
          "moves when a new version is registered");
    }
    SLUICE_ASSIGN_OR_RETURN(SubjectState subject, LoadSubject(ref));
    report.baseline_kind = "registry";
    before = subject.latest;
    if (judge.contract == nullptr) SLUICE_TRY(JudgeAgainstSubject(subject, source, judge));
  } else if (auto at = TableAtVersion(ref); at.has_value() || IsDeltaTable(ref)) {
    if (spec.accept) {
      return InvalidArgument("--accept moves baseline files; a Delta table's version is fixed");
    }
    SLUICE_ASSIGN_OR_RETURN(LoadedSide table,
                            at ? LoadTable(at->first, at->second) : LoadTable(ref, std::nullopt));
    report.baseline_kind = "delta";
    before = table.schema;
    if (judge.contract == nullptr) {
      judge.delta = true;
      judge.delta_type_widening = table.delta_type_widening;
      judge.delta_column_mapping = table.delta_column_mapping;
    }
  } else {
    SLUICE_ASSIGN_OR_RETURN(file_baseline, alert::ReadBaselineFile(*LocalFileSystem(), ref));
    if (!file_baseline.has_value()) {
      // The first run: this schema is the baseline, as the seed's check records its hash.
      report.baseline_kind = "none";
      report.verdict = DriftVerdict::kRecorded;
      report.baseline_moved = true;
      report.accepted_by = alert::CurrentUser();
      SLUICE_TRY(alert::WriteBaselineFile(*LocalFileSystem(), ref,
                                          NewBaseline(spec, source, report, "first run")));
      report.alert_id = evolution::DriftAlertId(report.source, "", report.after.sha256);
      return report;
    }
    report.baseline_kind = file_baseline->kind;
    report.before = file_baseline->fingerprints;
    before = file_baseline->schema;
    if (judge.contract == nullptr && source.kind == "delta") {
      judge.delta = true;
      judge.delta_type_widening = source.delta_type_widening;
      judge.delta_column_mapping = source.delta_column_mapping;
    }
  }
  if (before != nullptr && report.before.sha256.empty()) {
    report.before = evolution::FingerprintsOf(*before);
  }

  const bool same = before != nullptr ? report.before.sha256 == report.after.sha256
                                      : report.before.spark_md5 == report.after.spark_md5;
  if (same) {
    report.verdict = DriftVerdict::kUnchanged;
  } else if (before == nullptr) {
    // A bare MD5: something changed, but there is no old schema to say what.
    report.verdict = DriftVerdict::kUnknown;
    report.rules_detail = "the baseline holds only an MD5 hash";
  } else {
    SLUICE_TRY(evolution::JudgeDrift(*before, *source.schema, judge, report));
  }
  const std::string& old_fp =
      report.before.sha256.empty() ? report.before.spark_md5 : report.before.sha256;
  report.alert_id = evolution::DriftAlertId(report.source, old_fp, report.after.sha256);
  if (!spec.link.empty()) report.link = ExpandLink(spec.link, report);

  // --accept moves a changed baseline; it also upgrades a matching bare MD5 to sluice's form.
  if (file_baseline.has_value() && spec.accept &&
      (report.changed() || file_baseline->kind == "md5")) {
    alert::Baseline moved = NewBaseline(spec, source, report, "accepted");
    moved.previous = file_baseline->fingerprints;
    moved.previous_recorded_ms = file_baseline->recorded_ms;
    SLUICE_TRY(alert::WriteBaselineFile(*LocalFileSystem(), ref, moved));
    report.baseline_moved = true;
    report.accepted_by = moved.recorded_by;
  }
  return report;
}

}  // namespace sluice::cli
