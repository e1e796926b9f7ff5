// The subject endpoints: the list with each subject's latest version and mode, one version as a
// tree, two versions' diff with the verdict of the newer,
// and every version's verdict. Everything is read through the registry's REST API as the
// caller, so its permissions and deletions apply unchanged.
#include <algorithm>
#include <cstdint>
#include <utility>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/dialects/avro/avro_schema.h"
#include "sluice/evolution/compatibility.h"
#include "sluice/evolution/diff.h"
#include "sluice/registry/client.h"
#include "sluice/report/compat_render.h"
#include "sluice/report/diff_render.h"
#include "sluice/ui/api_internal.h"

namespace sluice::ui::internal {
namespace {

using registry::HttpResponse;

// A registry answer that is not a 200 goes back to the page as it came (a 404 with 40401 or
// 40402, a 403, ...).
struct Fetch {
  std::optional<JsonValue> json;
  std::optional<HttpResponse> failure;
};

Fetch Get(const UiOptions& options, const ApiRequest& request, const std::string& target) {
  if (!options.registry) return {std::nullopt, NotFound("no registry is configured")};
  auto reply = options.registry("GET", target, "", *request.http, request.user);
  if (!reply.has_value()) return {std::nullopt, ApiError(502, 50201, reply.error().message())};
  if (reply->status != 200) {
    HttpResponse r = Json(reply->status, std::move(reply->body));
    // A registry elsewhere wants credentials this server does not check: let the browser ask.
    if (r.status == 401) {
      r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"sluice schema registry\"");
    }
    return {std::nullopt, std::move(r)};
  }
  auto json = ParseJson(reply->body);
  if (!json.has_value()) {
    return {std::nullopt, ApiError(502, 50201, "the registry's answer is not JSON")};
  }
  return {std::move(*json), std::nullopt};
}

// One stored version, as GET /subjects/{s}/versions/{v} returns it.
struct Version {
  int64_t version = 0;
  int64_t id = 0;
  std::string type = "AVRO";
  std::string schema;
  JsonValue references = JsonValue::Array();
  /// The schema with its references written in (Avro), as the model and the checker read it.
  std::string standalone;
};

Version ToVersion(const JsonValue& v) {
  Version out;
  if (const JsonValue* x = v.Find("version"); x && x->is_number()) {
    out.version = x->as_int64().value_or(0);
  }
  if (const JsonValue* x = v.Find("id"); x && x->is_number()) out.id = x->as_int64().value_or(0);
  if (const JsonValue* x = v.Find("schemaType"); x && x->is_string()) out.type = x->as_string();
  if (const JsonValue* x = v.Find("schema"); x && x->is_string()) out.schema = x->as_string();
  if (const JsonValue* x = v.Find("references"); x && x->is_array()) out.references = *x;
  return out;
}

std::string SubjectPath(const std::string& subject) {
  return "/subjects/" + registry::EncodeSegment(subject);
}

Fetch GetVersion(const UiOptions& options, const ApiRequest& request, const std::string& subject,
                 std::string_view version) {
  return Get(options, request,
             SubjectPath(subject) + "/versions/" + registry::EncodeSegment(version));
}

// Appends the texts of the schemas `refs` names to `texts`, each after the ones it references
// in turn (depth first), as the Avro parser needs them.
std::optional<HttpResponse> CollectReferences(const UiOptions& options, const ApiRequest& request,
                                              const JsonValue& refs, int depth,
                                              std::vector<std::string>& texts) {
  if (depth > 32) return ApiError(422, 42201, "references nested more than 32 deep");
  for (const JsonValue& r : refs.items()) {
    const JsonValue* subject = r.Find("subject");
    const JsonValue* version = r.Find("version");
    if (!subject || !subject->is_string() || !version || !version->is_number()) continue;
    Fetch f = GetVersion(options, request, subject->as_string(), version->number_text());
    if (f.failure) return f.failure;
    Version v = ToVersion(*f.json);
    if (auto failure = CollectReferences(options, request, v.references, depth + 1, texts)) {
      return failure;
    }
    texts.push_back(std::move(v.schema));
  }
  return std::nullopt;
}

// A version with its standalone text: an Avro schema's references are written in, so the tree,
// the diff and the checker see the whole schema. Where that fails the text stays as stored and
// the reader of it says why.
Fetch GetStandalone(const UiOptions& options, const ApiRequest& request, const std::string& subject,
                    std::string_view version, Version& out) {
  Fetch f = GetVersion(options, request, subject, version);
  if (f.failure) return f;
  out = ToVersion(*f.json);
  out.standalone = out.schema;
  if (out.type != "AVRO" || out.references.size() == 0) return f;
  std::vector<std::string> texts;
  if (auto failure = CollectReferences(options, request, out.references, 0, texts)) {
    return {std::nullopt, std::move(failure)};
  }
  std::vector<std::string_view> views(texts.begin(), texts.end());
  auto parsed = dialects::avro::Parse(out.schema, views);
  if (parsed.has_value()) out.standalone = dialects::avro::WriteJson(*parsed);
  return f;
}

// The subject's compatibility mode, its own or the registry's.
Result<evolution::CompatibilityMode> ModeOf(const UiOptions& options, const ApiRequest& request,
                                            const std::string& subject,
                                            std::optional<HttpResponse>& failure) {
  Fetch f = Get(options, request,
                "/config/" + registry::EncodeSegment(subject) + "?defaultToGlobal=true");
  if (f.failure) {
    failure = std::move(f.failure);
    return Fail(ErrorCode::kNotFound, "no config");
  }
  const JsonValue* level = f.json->Find("compatibilityLevel");
  if (!level || !level->is_string()) return evolution::CompatibilityMode::kBackward;
  return evolution::ParseCompatibilityMode(level->as_string());
}

Result<evolution::SchemaType> CheckerType(std::string_view registry_type) {
  if (registry_type == "AVRO" || registry_type.empty()) return evolution::SchemaType::kAvro;
  if (registry_type == "JSON") return evolution::SchemaType::kJsonSchema;
  return Fail(ErrorCode::kUnimplemented,
              "no compatibility check for " + std::string(registry_type) + " schemas");
}

// Every live version of the subject, oldest first, parsed for the compatibility checker.
struct History {
  std::vector<Version> versions;
  std::vector<evolution::ParsedSchemaPtr> parsed;  // null where it did not parse
};

std::optional<HttpResponse> LoadHistory(const UiOptions& options, const ApiRequest& request,
                                        const std::string& subject, History& out) {
  Fetch list = Get(options, request, SubjectPath(subject) + "/versions");
  if (list.failure) return list.failure;
  if (!list.json->is_array()) return ApiError(502, 50201, "the registry's answer is not a list");
  for (const JsonValue& n : list.json->items()) {
    auto number = n.as_int64();
    if (!number) continue;
    Version version;
    Fetch v = GetStandalone(options, request, subject, std::to_string(*number), version);
    if (v.failure) return v.failure;
    evolution::ParsedSchemaPtr parsed;
    if (auto type = CheckerType(version.type); type.has_value()) {
      auto p = evolution::ParsedSchema::Parse(*type, version.standalone);
      if (p.has_value()) parsed = std::move(*p);
    }
    out.versions.push_back(std::move(version));
    out.parsed.push_back(std::move(parsed));
  }
  return std::nullopt;
}

// The subject's mode and its history, or the answer that says why not.
std::optional<HttpResponse> LoadModeAndHistory(const UiOptions& options, const ApiRequest& request,
                                               const std::string& subject,
                                               evolution::CompatibilityMode& mode,
                                               History& history) {
  std::optional<HttpResponse> failure;
  auto m = ModeOf(options, request, subject, failure);
  if (failure) return failure;
  if (!m.has_value()) return FromError(m.error());
  mode = *m;
  return LoadHistory(options, request, subject, history);
}

// Version `index` of `history` against the ones before it.
Result<evolution::CompatibilityReport> Verdict(evolution::CompatibilityMode mode,
                                               const History& history, size_t index) {
  if (!history.parsed[index]) {
    return InvalidArgument("version " + std::to_string(history.versions[index].version) +
                           " cannot be checked: its schema does not parse on its own");
  }
  std::vector<evolution::ParsedSchemaPtr> before;
  for (size_t i = 0; i < index; ++i) {
    if (!history.parsed[i] || history.parsed[i]->type() != history.parsed[index]->type()) {
      continue;
    }
    before.push_back(history.parsed[i]);
  }
  return evolution::CheckCompatibility(mode, before, *history.parsed[index]);
}

std::string VersionName(int64_t v) { return "version " + std::to_string(v); }

// The compatibility report (docs/formats/compat-report.md JSON) of `version` against the ones
// before it: the verdict the registry gave it, or would give it now. nullopt when it cannot be
// checked.
std::optional<std::string> CompatibilityJson(evolution::CompatibilityMode mode,
                                             const History& history, int64_t version) {
  auto at = std::find_if(history.versions.begin(), history.versions.end(),
                         [&](const Version& v) { return v.version == version; });
  if (at == history.versions.end()) return std::nullopt;
  const size_t index = static_cast<size_t>(at - history.versions.begin());
  auto verdict = Verdict(mode, history, index);
  if (!verdict.has_value()) return std::nullopt;
  // Checked versions index the history as checked, which skips versions of another type.
  report::CompatContext named;
  named.candidate = VersionName(version);
  for (size_t i = 0; i < index; ++i) {
    if (history.parsed[i] && history.parsed[i]->type() == history.parsed[index]->type()) {
      named.history.push_back(VersionName(history.versions[i].version));
    }
  }
  auto rendered = report::Render(*verdict, named, report::Format::kJson);
  if (!rendered.has_value()) return std::nullopt;
  return std::move(*rendered);
}

}  // namespace

HttpResponse SubjectList(const UiOptions& options, const ApiRequest& request) {
  auto offset = request.Count("offset", 0, INT64_MAX);
  auto limit = request.Count("limit", 200, 1000);
  if (!offset || !limit) return ApiError(422, 42202, "offset and limit are counts");
  Fetch names = Get(options, request, "/subjects");
  if (names.failure) return std::move(*names.failure);
  if (!names.json->is_array()) return ApiError(502, 50201, "the registry's answer is not a list");
  const auto& all = names.json->items();
  const size_t begin = std::min(all.size(), static_cast<size_t>(*offset));
  const size_t end = std::min(all.size(), begin + static_cast<size_t>(*limit));
  JsonWriter w;
  w.BeginObject();
  w.Key("total").Int(static_cast<int64_t>(all.size()));
  w.Key("subjects").BeginArray();
  for (size_t i = begin; i < end; ++i) {
    if (!all[i].is_string()) continue;
    const std::string& subject = all[i].as_string();
    w.BeginObject().Key("subject").String(subject);
    // What the caller may not read, or what is gone by now, stays null; the rest still shows.
    Fetch latest = GetVersion(options, request, subject, "latest");
    if (latest.json) {
      Version v = ToVersion(*latest.json);
      w.Key("schemaType").String(v.type).Key("version").Int(v.version).Key("id").Int(v.id);
    } else {
      w.Key("schemaType").Null().Key("version").Null().Key("id").Null();
    }
    Fetch config = Get(options, request,
                       "/config/" + registry::EncodeSegment(subject) + "?defaultToGlobal=true");
    const JsonValue* level = config.json ? config.json->Find("compatibilityLevel") : nullptr;
    w.Key("compatibility");
    if (level && level->is_string()) {
      w.String(level->as_string());
    } else {
      w.Null();
    }
    w.EndObject();
  }
  w.EndArray().EndObject();
  return Json(200, w.Take());
}

HttpResponse SubjectTree(const UiOptions& options, const ApiRequest& request) {
  const std::string& subject = request.segments[1];
  Version v;
  Fetch f = GetStandalone(options, request, subject, request.segments[3], v);
  if (f.failure) return std::move(*f.failure);
  Fetch referrers =
      Get(options, request,
          SubjectPath(subject) + "/versions/" + std::to_string(v.version) + "/referencedby");
  JsonWriter w;
  w.BeginObject();
  w.Key("subject").String(subject);
  w.Key("version").Int(v.version);
  w.Key("id").Int(v.id);
  w.Key("schemaType").String(v.type);
  w.Key("schema").String(v.schema);
  w.Key("references").Value(v.references);
  w.Key("referrers");
  if (referrers.json && referrers.json->is_array()) {
    w.Value(*referrers.json);
  } else {
    w.BeginArray().EndArray();
  }
  auto model = ReadRegistrySchema(v.type, v.standalone);
  if (model.has_value()) {
    w.Key("fields").Raw(FieldsJson(**model));
  } else {
    // A schema the model cannot hold (Protobuf, unresolved references) still shows as text.
    w.Key("fields").BeginArray().EndArray();
    w.Key("treeError").String(model.error().message());
  }
  w.EndObject();
  return Json(200, w.Take());
}

HttpResponse SubjectDiff(const UiOptions& options, const ApiRequest& request) {
  const std::string& subject = request.segments[1];
  auto from_it = request.query.find("from");
  auto to_it = request.query.find("to");
  if (from_it == request.query.end() || to_it == request.query.end()) {
    return ApiError(422, 42202, "the diff needs from=VERSION and to=VERSION");
  }
  Version va;
  Version vb;
  Fetch a = GetStandalone(options, request, subject, from_it->second, va);
  if (a.failure) return std::move(*a.failure);
  Fetch b = GetStandalone(options, request, subject, to_it->second, vb);
  if (b.failure) return std::move(*b.failure);
  auto ma = ReadRegistrySchema(va.type, va.standalone);
  if (!ma.has_value()) return ApiError(422, 42201, ma.error().message());
  auto mb = ReadRegistrySchema(vb.type, vb.standalone);
  if (!mb.has_value()) return ApiError(422, 42201, mb.error().message());
  evolution::SchemaDiff diff = evolution::Diff(**ma, **mb);
  auto diff_json =
      report::Render(diff, report::DiffContext{VersionName(va.version), VersionName(vb.version)},
                     report::Format::kJson);
  if (!diff_json.has_value()) return FromError(diff_json.error());

  evolution::CompatibilityMode mode = evolution::CompatibilityMode::kBackward;
  History history;
  if (auto f = LoadModeAndHistory(options, request, subject, mode, history)) return std::move(*f);

  JsonWriter w;
  w.BeginObject();
  w.Key("subject").String(subject);
  w.Key("from").Int(va.version);
  w.Key("to").Int(vb.version);
  w.Key("diff").Raw(*diff_json);
  w.Key("compatibility");
  std::optional<std::string> compat_json = CompatibilityJson(mode, history, vb.version);
  if (compat_json) {
    w.Raw(*compat_json);
  } else {
    w.Null();
  }
  w.Key("mode").String(evolution::CompatibilityModeName(mode));
  w.EndObject();
  return Json(200, w.Take());
}

HttpResponse SubjectVerdicts(const UiOptions& options, const ApiRequest& request) {
  const std::string& subject = request.segments[1];
  evolution::CompatibilityMode mode = evolution::CompatibilityMode::kBackward;
  History history;
  if (auto f = LoadModeAndHistory(options, request, subject, mode, history)) return std::move(*f);
  JsonWriter w;
  w.BeginObject();
  w.Key("mode").String(evolution::CompatibilityModeName(mode));
  w.Key("versions").BeginArray();
  for (size_t i = 0; i < history.versions.size(); ++i) {
    const Version& v = history.versions[i];
    w.BeginObject().Key("version").Int(v.version).Key("id").Int(v.id);
    auto verdict = Verdict(mode, history, i);
    if (!verdict.has_value()) {
      w.Key("compatible").Null();
      w.Key("error").String(verdict.error().message());
      w.Key("incompatibilities").BeginArray().EndArray();
    } else {
      w.Key("compatible").Bool(verdict->compatible);
      w.Key("incompatibilities").BeginArray();
      for (const evolution::Incompatibility& x : verdict->incompatibilities) {
        w.BeginObject();
        w.Key("kind").String(x.kind);
        w.Key("location").String(x.location);
        w.Key("message").String(x.message);
        w.Key("hint").String(x.hint);
        w.EndObject();
      }
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndArray().EndObject();
  return Json(200, w.Take());
}

}  // namespace sluice::ui::internal
