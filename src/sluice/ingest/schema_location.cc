#include "sluice/ingest/schema_location.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <utility>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/dialects/spark/spark.h"

namespace sluice::ingest {
namespace {

constexpr std::string_view kHeader = "v1\n";

std::optional<int64_t> VersionOf(const std::string& name) {
  if (name.empty() || name.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : name) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

Result<SchemaVersion> ParseVersion(const std::string& path, int64_t version,
                                   const std::string& text) {
  auto bad = [&](const std::string& why) {
    return ParseError("schema location file " + path + ": " + why);
  };
  if (text.substr(0, kHeader.size()) != kHeader) return bad("does not start with 'v1'");
  auto doc = ParseJson(std::string_view(text).substr(kHeader.size()));
  if (!doc.has_value()) return bad(doc.error().message());
  const JsonValue* schema = doc->Find("schema");
  if (schema == nullptr || !schema->is_object()) return bad("no \"schema\" object");
  auto parsed = dialects::spark::ReadJson(ToJson(*schema));
  if (!parsed.has_value()) return bad(parsed.error().message());
  SchemaVersion out;
  out.version = version;
  out.schema = parsed->value;
  if (const JsonValue* c = doc->Find("createdMs"); c != nullptr && c->is_number()) {
    out.created_ms = std::strtoll(c->number_text().c_str(), nullptr, 10);
  }
  if (const JsonValue* r = doc->Find("reason"); r != nullptr && r->is_string()) {
    out.reason = r->as_string();
  }
  return out;
}

}  // namespace

SchemaLocation::SchemaLocation(std::shared_ptr<FileSystem> fs, std::string dir)
    : fs_(std::move(fs)), dir_(std::move(dir)) {}

Result<std::vector<SchemaVersion>> SchemaLocation::All() {
  const std::string folder = dir_ + "/_schemas";
  SLUICE_ASSIGN_OR_RETURN(bool exists, fs_->Exists(folder));
  std::vector<SchemaVersion> out;
  if (!exists) return out;
  SLUICE_ASSIGN_OR_RETURN(std::vector<std::string> names, fs_->ListDir(folder));
  std::vector<int64_t> versions;
  for (const std::string& n : names) {
    if (auto v = VersionOf(n)) versions.push_back(*v);
  }
  std::sort(versions.begin(), versions.end());
  for (int64_t v : versions) {
    const std::string path = folder + "/" + std::to_string(v);
    SLUICE_ASSIGN_OR_RETURN(std::string text, fs_->ReadFile(path));
    SLUICE_ASSIGN_OR_RETURN(SchemaVersion sv, ParseVersion(path, v, text));
    out.push_back(std::move(sv));
  }
  return out;
}

Result<std::optional<SchemaVersion>> SchemaLocation::Latest() {
  SLUICE_ASSIGN_OR_RETURN(std::vector<SchemaVersion> all, All());
  if (all.empty()) return std::optional<SchemaVersion>();
  return std::optional<SchemaVersion>(std::move(all.back()));
}

Result<SchemaVersion> SchemaLocation::Write(const schema::Schema& schema, std::string reason) {
  SLUICE_ASSIGN_OR_RETURN(std::optional<SchemaVersion> latest, Latest());
  SchemaVersion out;
  out.version = latest ? latest->version + 1 : 0;
  out.created_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  out.reason = std::move(reason);
  SLUICE_ASSIGN_OR_RETURN(auto spark, ParseJson(dialects::spark::WriteJson(schema).value));
  JsonValue doc = JsonValue::Object();
  doc.Set("schema", std::move(spark));
  doc.Set("createdMs", JsonValue::Int(out.created_ms));
  doc.Set("reason", JsonValue::String(out.reason));
  const std::string folder = dir_ + "/_schemas";
  SLUICE_TRY(fs_->CreateDirs(folder));
  const std::string path = folder + "/" + std::to_string(out.version);
  Status created = fs_->CreateFileExclusive(path, std::string(kHeader) + ToJson(doc) + "\n");
  if (!created.has_value()) {
    if (created.error().code() == ErrorCode::kAlreadyExists) {
      return Fail(ErrorCode::kConflict,
                  "schema version " + path + " was written by another ingest first");
    }
    return Fail(created.error());
  }
  SLUICE_ASSIGN_OR_RETURN(auto parsed,
                          dialects::spark::ReadJson(dialects::spark::WriteJson(schema).value));
  out.schema = parsed.value;
  return out;
}

}  // namespace sluice::ingest
