#include "cli/schema_versions.h"

#include <fmt/format.h>

#include "cli/cli_common.h"
#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/dialects/format.h"
#include "sluice/registry/client.h"
#include "sluice/table/column_mapping.h"
#include "sluice/table/snapshot.h"

namespace sluice::cli {
namespace {

// "dir/user_movie_activity_v1.avsc" -> "user_movie_activity_v1": the name up to its first dot,
// so that "v1.schema.json" is "v1" (a dot left in would read as a database qualifier).
std::string Stem(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  size_t slash = path.find_last_of('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  size_t dot = base.find('.', 1);
  if (dot != std::string_view::npos) base = base.substr(0, dot);
  return std::string(base);
}

// A label usable as a relation name: anything but letters, digits and '_' becomes '_'.
std::string Identifier(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out += word ? c : '_';
  }
  return out;
}

Result<SchemaVersionInput> FromTable(const std::string& path, std::optional<int64_t> version) {
  table::SnapshotOptions at;
  at.version = version;
  SLUICE_ASSIGN_OR_RETURN(table::Snapshot snapshot,
                          table::LoadSnapshot(*LocalFileSystem(), path, at));
  SchemaVersionInput out;
  // Column mapping's storage keys are not the schema's: the logical names are what SQL reads.
  SLUICE_ASSIGN_OR_RETURN(out.schema, table::WithoutStorageMetadata(*snapshot.schema));
  out.label = Identifier(Stem(path)) + "_v" + std::to_string(snapshot.version);
  return out;
}

Result<SchemaVersionInput> FromRegistry(const std::string& arg) {
  // registry://HOST:PORT/SUBJECT/versions/N
  std::string_view rest = std::string_view(arg).substr(std::string_view("registry://").size());
  size_t slash = rest.find('/');
  size_t versions = rest.rfind("/versions/");
  if (slash == std::string_view::npos || versions == std::string_view::npos || versions <= slash) {
    return InvalidArgument("a registry schema is registry://HOST:PORT/SUBJECT/versions/N, not '" +
                           arg + "'");
  }
  const std::string host(rest.substr(0, slash));
  const std::string subject(rest.substr(slash + 1, versions - slash - 1));
  const std::string version(rest.substr(versions + std::string_view("/versions/").size()));
  registry::ClientOptions co;
  co.url = "http://" + host;
  SLUICE_ASSIGN_OR_RETURN(auto client, registry::Client::Create(co));
  SLUICE_ASSIGN_OR_RETURN(registry::HttpReply reply,
                          client->Call("GET", "/subjects/" + registry::EncodeSegment(subject) +
                                                  "/versions/" + registry::EncodeSegment(version)));
  if (reply.status != 200) {
    return Fail(reply.status == 404 ? ErrorCode::kNotFound : ErrorCode::kIoError,
                fmt::format("{}: the registry answered {}: {}", arg, reply.status,
                            registry::Client::ErrorMessage(reply)));
  }
  SLUICE_ASSIGN_OR_RETURN(JsonValue body, ParseJson(reply.body));
  const JsonValue* text = body.Find("schema");
  if (text == nullptr || !text->is_string()) {
    return ParseError(arg + ": the registry's reply has no schema");
  }
  std::string type = "AVRO";
  if (const JsonValue* t = body.Find("schemaType"); t != nullptr && t->is_string()) {
    type = t->as_string();
  }
  dialects::Format format;
  if (type == "AVRO") {
    SLUICE_ASSIGN_OR_RETURN(format, dialects::ParseFormatName("avro"));
  } else if (type == "JSON") {
    SLUICE_ASSIGN_OR_RETURN(format, dialects::ParseFormatName("json-schema"));
  } else {
    return Unimplemented(arg + ": " + type + " schemas are not read (Avro and JSON Schema are)");
  }
  SLUICE_ASSIGN_OR_RETURN(auto read, dialects::ReadSchema(text->as_string(), format));
  SchemaVersionInput out;
  out.schema = read.value;
  out.notes = std::move(read.notes);
  std::string n = version;
  if (const JsonValue* v = body.Find("version"); v != nullptr && v->as_int64()) {
    n = std::to_string(*v->as_int64());
  }
  out.label = Identifier(subject) + "_v" + n;
  return out;
}

}  // namespace

std::pair<std::string, std::optional<int64_t>> SplitVersion(const std::string& arg) {
  size_t at = arg.rfind('@');
  if (at == std::string::npos || at + 1 >= arg.size()) return {arg, std::nullopt};
  std::string_view v = std::string_view(arg).substr(at + 1);
  if (v[0] == 'v') v.remove_prefix(1);
  if (v.empty()) return {arg, std::nullopt};
  int64_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9' || n > (INT64_MAX - 9) / 10) return {arg, std::nullopt};
    n = n * 10 + (c - '0');
  }
  return {arg.substr(0, at), n};
}

bool IsDeltaTable(const std::string& arg) {
  if (arg.starts_with("registry://") || SplitVersion(arg).second) return false;
  auto log = LocalFileSystem()->Stat(arg + "/_delta_log");
  return log.has_value() && log->kind == FileKind::kDirectory;
}

Result<SchemaVersionInput> LoadSchemaVersion(const std::string& arg,
                                             std::optional<int64_t> table_version) {
  if (arg.starts_with("registry://")) return FromRegistry(arg);
  auto [path, version] = SplitVersion(arg);
  auto log = LocalFileSystem()->Stat(path + "/_delta_log");
  if (log.has_value() && log->kind == FileKind::kDirectory) {
    return FromTable(path, version ? version : table_version);
  }
  SLUICE_ASSIGN_OR_RETURN(LoadedSchema loaded, LoadSchema(arg, ""));
  SchemaVersionInput out;
  out.schema = loaded.schema;
  out.label = Stem(arg);
  out.notes = std::move(loaded.notes);
  return out;
}

}  // namespace sluice::cli
