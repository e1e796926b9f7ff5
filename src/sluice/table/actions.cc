#include "sluice/table/actions.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <system_error>
#include <vector>

#include "sluice/base/json_writer.h"
#include "sluice/table/partition_path.h"

namespace sluice::table {
namespace {

// Field readers: an absent or null field is nullopt; a present one of the wrong type is an
// error naming the action and the field.
class Fields {
 public:
  Fields(const JsonValue& object, std::string_view action) : object_(object), action_(action) {}

  Unexpected<Error> Wrong(std::string_view key, std::string_view want) const {
    return Fail(ErrorCode::kInvalidArgument, fmt::format("{}.{}: expected {}", action_, key, want));
  }

  const JsonValue* Get(std::string_view key) const {
    const JsonValue* v = object_.Find(key);
    return v == nullptr || v->is_null() ? nullptr : v;
  }

  Result<std::optional<std::string>> String(std::string_view key) const {
    const JsonValue* v = Get(key);
    if (v == nullptr) return std::optional<std::string>();
    if (!v->is_string()) return Wrong(key, "a string");
    return std::optional<std::string>(v->as_string());
  }
  Result<std::string> RequiredString(std::string_view key) const {
    SLUICE_ASSIGN_OR_RETURN(auto v, String(key));
    if (!v) return Missing(key);
    return std::move(*v);
  }
  Result<std::optional<int64_t>> Int(std::string_view key) const {
    const JsonValue* v = Get(key);
    if (v == nullptr) return std::optional<int64_t>();
    std::optional<int64_t> i = v->is_number() ? v->as_int64() : std::nullopt;
    if (!i) return Wrong(key, "an integer");
    return i;
  }
  Result<int64_t> RequiredInt(std::string_view key) const {
    SLUICE_ASSIGN_OR_RETURN(auto v, Int(key));
    if (!v) return Missing(key);
    return *v;
  }
  Result<std::optional<bool>> Bool(std::string_view key) const {
    const JsonValue* v = Get(key);
    if (v == nullptr) return std::optional<bool>();
    if (!v->is_bool()) return Wrong(key, "true or false");
    return std::optional<bool>(v->as_bool());
  }
  Result<std::optional<StringMap>> Map(std::string_view key) const {
    const JsonValue* v = Get(key);
    if (v == nullptr) return std::optional<StringMap>();
    if (!v->is_object()) return Wrong(key, "an object of strings");
    StringMap out;
    for (const JsonMember& m : v->members()) {
      if (m.value.is_null()) continue;
      if (!m.value.is_string()) return Wrong(fmt::format("{}.{}", key, m.key), "a string");
      out[m.key] = m.value.as_string();
    }
    return std::optional<StringMap>(std::move(out));
  }
  Result<std::optional<PartitionValues>> Partitions(std::string_view key) const {
    const JsonValue* v = Get(key);
    if (v == nullptr) return std::optional<PartitionValues>();
    if (!v->is_object()) return Wrong(key, "an object of strings");
    PartitionValues out;
    for (const JsonMember& m : v->members()) {
      if (m.value.is_null()) {
        out[m.key] = std::nullopt;
      } else if (m.value.is_string()) {
        out[m.key] = m.value.as_string();
      } else {
        return Wrong(fmt::format("{}.{}", key, m.key), "a string or null");
      }
    }
    return std::optional<PartitionValues>(std::move(out));
  }
  Result<std::optional<std::vector<std::string>>> Strings(std::string_view key) const {
    const JsonValue* v = Get(key);
    if (v == nullptr) return std::optional<std::vector<std::string>>();
    if (!v->is_array()) return Wrong(key, "an array of strings");
    std::vector<std::string> out;
    for (const JsonValue& item : v->items()) {
      if (!item.is_string()) return Wrong(key, "an array of strings");
      out.push_back(item.as_string());
    }
    return std::optional<std::vector<std::string>>(std::move(out));
  }
  std::optional<JsonValue> Object(std::string_view key) const {
    const JsonValue* v = Get(key);
    if (v == nullptr) return std::nullopt;
    return *v;
  }

 private:
  Unexpected<Error> Missing(std::string_view key) const {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("{}.{}: a required field is missing", action_, key));
  }

  const JsonValue& object_;
  std::string_view action_;
};

Result<Protocol> ReadProtocol(const JsonValue& v) {
  Fields f(v, "protocol");
  Protocol p;
  SLUICE_ASSIGN_OR_RETURN(int64_t reader, f.RequiredInt("minReaderVersion"));
  SLUICE_ASSIGN_OR_RETURN(int64_t writer, f.RequiredInt("minWriterVersion"));
  if (reader < 1 || reader > INT32_MAX || writer < 1 || writer > INT32_MAX) {
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("protocol: versions must be positive, got reader {} writer {}", reader,
                            writer));
  }
  p.min_reader_version = static_cast<int32_t>(reader);
  p.min_writer_version = static_cast<int32_t>(writer);
  SLUICE_ASSIGN_OR_RETURN(p.reader_features, f.Strings("readerFeatures"));
  SLUICE_ASSIGN_OR_RETURN(p.writer_features, f.Strings("writerFeatures"));
  return p;
}

Result<Metadata> ReadMetadata(const JsonValue& v) {
  Fields f(v, "metaData");
  Metadata m;
  SLUICE_ASSIGN_OR_RETURN(m.id, f.RequiredString("id"));
  SLUICE_ASSIGN_OR_RETURN(m.name, f.String("name"));
  SLUICE_ASSIGN_OR_RETURN(m.description, f.String("description"));
  if (const JsonValue* format = f.Get("format")) {
    if (!format->is_object()) return f.Wrong("format", "an object");
    Fields ff(*format, "metaData.format");
    SLUICE_ASSIGN_OR_RETURN(m.format_provider, ff.RequiredString("provider"));
    SLUICE_ASSIGN_OR_RETURN(auto options, ff.Map("options"));
    if (options) m.format_options = std::move(*options);
  }
  SLUICE_ASSIGN_OR_RETURN(m.schema_string, f.RequiredString("schemaString"));
  SLUICE_ASSIGN_OR_RETURN(auto partitions, f.Strings("partitionColumns"));
  if (partitions) m.partition_columns = std::move(*partitions);
  SLUICE_ASSIGN_OR_RETURN(auto configuration, f.Map("configuration"));
  if (configuration) m.configuration = std::move(*configuration);
  SLUICE_ASSIGN_OR_RETURN(m.created_time, f.Int("createdTime"));
  return m;
}

Result<AddFile> ReadAdd(const JsonValue& v) {
  Fields f(v, "add");
  AddFile a;
  SLUICE_ASSIGN_OR_RETURN(a.path, f.RequiredString("path"));
  SLUICE_ASSIGN_OR_RETURN(auto partitions, f.Partitions("partitionValues"));
  if (partitions) a.partition_values = std::move(*partitions);
  SLUICE_ASSIGN_OR_RETURN(auto size, f.Int("size"));
  a.size = size.value_or(0);
  SLUICE_ASSIGN_OR_RETURN(auto mtime, f.Int("modificationTime"));
  a.modification_time = mtime.value_or(0);
  SLUICE_ASSIGN_OR_RETURN(auto data_change, f.Bool("dataChange"));
  a.data_change = data_change.value_or(true);
  SLUICE_ASSIGN_OR_RETURN(a.stats, f.String("stats"));
  SLUICE_ASSIGN_OR_RETURN(a.tags, f.Map("tags"));
  a.deletion_vector = f.Object("deletionVector");
  if (a.deletion_vector && !a.deletion_vector->is_object()) {
    return f.Wrong("deletionVector", "an object");
  }
  SLUICE_ASSIGN_OR_RETURN(a.base_row_id, f.Int("baseRowId"));
  SLUICE_ASSIGN_OR_RETURN(a.default_row_commit_version, f.Int("defaultRowCommitVersion"));
  SLUICE_ASSIGN_OR_RETURN(a.clustering_provider, f.String("clusteringProvider"));
  return a;
}

Result<RemoveFile> ReadRemove(const JsonValue& v) {
  Fields f(v, "remove");
  RemoveFile r;
  SLUICE_ASSIGN_OR_RETURN(r.path, f.RequiredString("path"));
  SLUICE_ASSIGN_OR_RETURN(r.deletion_timestamp, f.Int("deletionTimestamp"));
  SLUICE_ASSIGN_OR_RETURN(auto data_change, f.Bool("dataChange"));
  r.data_change = data_change.value_or(true);
  SLUICE_ASSIGN_OR_RETURN(r.extended_file_metadata, f.Bool("extendedFileMetadata"));
  SLUICE_ASSIGN_OR_RETURN(r.partition_values, f.Partitions("partitionValues"));
  SLUICE_ASSIGN_OR_RETURN(r.size, f.Int("size"));
  SLUICE_ASSIGN_OR_RETURN(r.stats, f.String("stats"));
  SLUICE_ASSIGN_OR_RETURN(r.tags, f.Map("tags"));
  r.deletion_vector = f.Object("deletionVector");
  if (r.deletion_vector && !r.deletion_vector->is_object()) {
    return f.Wrong("deletionVector", "an object");
  }
  SLUICE_ASSIGN_OR_RETURN(r.base_row_id, f.Int("baseRowId"));
  SLUICE_ASSIGN_OR_RETURN(r.default_row_commit_version, f.Int("defaultRowCommitVersion"));
  return r;
}

Result<Txn> ReadTxn(const JsonValue& v) {
  Fields f(v, "txn");
  Txn t;
  SLUICE_ASSIGN_OR_RETURN(t.app_id, f.RequiredString("appId"));
  SLUICE_ASSIGN_OR_RETURN(t.version, f.RequiredInt("version"));
  SLUICE_ASSIGN_OR_RETURN(t.last_updated, f.Int("lastUpdated"));
  return t;
}

Result<DomainMetadata> ReadDomain(const JsonValue& v) {
  Fields f(v, "domainMetadata");
  DomainMetadata d;
  SLUICE_ASSIGN_OR_RETURN(d.domain, f.RequiredString("domain"));
  SLUICE_ASSIGN_OR_RETURN(auto configuration, f.String("configuration"));
  d.configuration = configuration.value_or("");
  SLUICE_ASSIGN_OR_RETURN(auto removed, f.Bool("removed"));
  d.removed = removed.value_or(false);
  return d;
}

Result<std::optional<Action>> ReadNamed(std::string_view name, const JsonValue& v) {
  if (!v.is_object()) {
    return Fail(ErrorCode::kInvalidArgument, fmt::format("{}: expected an object", name));
  }
  auto wrap = [](auto r) -> Result<std::optional<Action>> {
    if (!r.has_value()) return Fail(r.error());
    return std::optional<Action>(std::move(*r));
  };
  if (name == "protocol") return wrap(ReadProtocol(v));
  if (name == "metaData") return wrap(ReadMetadata(v));
  if (name == "add") return wrap(ReadAdd(v));
  if (name == "remove") return wrap(ReadRemove(v));
  if (name == "txn") return wrap(ReadTxn(v));
  if (name == "domainMetadata") return wrap(ReadDomain(v));
  if (name == "commitInfo") return std::optional<Action>(CommitInfo{v});
  Fields f(v, name);
  if (name == "checkpointMetadata") {
    SLUICE_ASSIGN_OR_RETURN(int64_t version, f.RequiredInt("version"));
    return std::optional<Action>(CheckpointMetadata{version});
  }
  if (name == "sidecar") {
    Sidecar s;
    SLUICE_ASSIGN_OR_RETURN(s.path, f.RequiredString("path"));
    SLUICE_ASSIGN_OR_RETURN(auto size, f.Int("sizeInBytes"));
    s.size_in_bytes = size.value_or(0);
    SLUICE_ASSIGN_OR_RETURN(auto mtime, f.Int("modificationTime"));
    s.modification_time = mtime.value_or(0);
    return std::optional<Action>(std::move(s));
  }
  if (name == "cdc") {
    SLUICE_ASSIGN_OR_RETURN(std::string path, f.RequiredString("path"));
    return std::optional<Action>(AddCdcFile{std::move(path)});
  }
  return std::optional<Action>();
}

void WriteStringMap(JsonWriter& w, const StringMap& map) {
  w.BeginObject();
  for (const auto& [k, v] : map) w.Key(k).String(v);
  w.EndObject();
}

void WritePartitions(JsonWriter& w, const PartitionValues& values) {
  w.BeginObject();
  for (const auto& [k, v] : values) {
    w.Key(k);
    if (v) {
      w.String(*v);
    } else {
      w.Null();
    }
  }
  w.EndObject();
}

void WriteStrings(JsonWriter& w, const std::vector<std::string>& items) {
  w.BeginArray();
  for (const std::string& s : items) w.String(s);
  w.EndArray();
}

void Write(JsonWriter& w, const Protocol& p) {
  w.Key("protocol").BeginObject();
  w.Key("minReaderVersion").Int(p.min_reader_version);
  w.Key("minWriterVersion").Int(p.min_writer_version);
  if (p.reader_features) WriteStrings(w.Key("readerFeatures"), *p.reader_features);
  if (p.writer_features) WriteStrings(w.Key("writerFeatures"), *p.writer_features);
  w.EndObject();
}

void Write(JsonWriter& w, const Metadata& m) {
  w.Key("metaData").BeginObject();
  w.Key("id").String(m.id);
  if (m.name) w.Key("name").String(*m.name);
  if (m.description) w.Key("description").String(*m.description);
  w.Key("format").BeginObject().Key("provider").String(m.format_provider);
  WriteStringMap(w.Key("options"), m.format_options);
  w.EndObject();
  w.Key("schemaString").String(m.schema_string);
  WriteStrings(w.Key("partitionColumns"), m.partition_columns);
  WriteStringMap(w.Key("configuration"), m.configuration);
  if (m.created_time) w.Key("createdTime").Int(*m.created_time);
  w.EndObject();
}

void Write(JsonWriter& w, const AddFile& a) {
  w.Key("add").BeginObject();
  w.Key("path").String(a.path);
  WritePartitions(w.Key("partitionValues"), a.partition_values);
  w.Key("size").Int(a.size);
  w.Key("modificationTime").Int(a.modification_time);
  w.Key("dataChange").Bool(a.data_change);
  if (a.stats) w.Key("stats").String(*a.stats);
  if (a.tags) WriteStringMap(w.Key("tags"), *a.tags);
  if (a.deletion_vector) w.Key("deletionVector").Value(*a.deletion_vector);
  if (a.base_row_id) w.Key("baseRowId").Int(*a.base_row_id);
  if (a.default_row_commit_version) {
    w.Key("defaultRowCommitVersion").Int(*a.default_row_commit_version);
  }
  if (a.clustering_provider) w.Key("clusteringProvider").String(*a.clustering_provider);
  w.EndObject();
}

void Write(JsonWriter& w, const RemoveFile& r) {
  w.Key("remove").BeginObject();
  w.Key("path").String(r.path);
  if (r.deletion_timestamp) w.Key("deletionTimestamp").Int(*r.deletion_timestamp);
  w.Key("dataChange").Bool(r.data_change);
  if (r.extended_file_metadata) w.Key("extendedFileMetadata").Bool(*r.extended_file_metadata);
  if (r.partition_values) WritePartitions(w.Key("partitionValues"), *r.partition_values);
  if (r.size) w.Key("size").Int(*r.size);
  if (r.stats) w.Key("stats").String(*r.stats);
  if (r.tags) WriteStringMap(w.Key("tags"), *r.tags);
  if (r.deletion_vector) w.Key("deletionVector").Value(*r.deletion_vector);
  if (r.base_row_id) w.Key("baseRowId").Int(*r.base_row_id);
  if (r.default_row_commit_version) {
    w.Key("defaultRowCommitVersion").Int(*r.default_row_commit_version);
  }
  w.EndObject();
}

void Write(JsonWriter& w, const Txn& t) {
  w.Key("txn").BeginObject();
  w.Key("appId").String(t.app_id);
  w.Key("version").Int(t.version);
  if (t.last_updated) w.Key("lastUpdated").Int(*t.last_updated);
  w.EndObject();
}

void Write(JsonWriter& w, const DomainMetadata& d) {
  w.Key("domainMetadata").BeginObject();
  w.Key("domain").String(d.domain);
  w.Key("configuration").String(d.configuration);
  w.Key("removed").Bool(d.removed);
  w.EndObject();
}

void Write(JsonWriter& w, const CommitInfo& c) { w.Key("commitInfo").Value(c.value); }

void Write(JsonWriter& w, const CheckpointMetadata& c) {
  w.Key("checkpointMetadata").BeginObject().Key("version").Int(c.version).EndObject();
}

void Write(JsonWriter& w, const Sidecar& s) {
  w.Key("sidecar").BeginObject();
  w.Key("path").String(s.path);
  w.Key("sizeInBytes").Int(s.size_in_bytes);
  w.Key("modificationTime").Int(s.modification_time);
  w.EndObject();
}

void Write(JsonWriter& w, const AddCdcFile& c) {
  w.Key("cdc").BeginObject().Key("path").String(c.path).EndObject();
}

}  // namespace

std::optional<int64_t> CommitInfo::timestamp() const {
  const JsonValue* v = value.Find("timestamp");
  return v != nullptr && v->is_number() ? v->as_int64() : std::nullopt;
}

std::optional<int64_t> CommitInfo::in_commit_timestamp() const {
  const JsonValue* v = value.Find("inCommitTimestamp");
  return v != nullptr && v->is_number() ? v->as_int64() : std::nullopt;
}

std::string CommitInfo::operation() const {
  const JsonValue* v = value.Find("operation");
  return v != nullptr && v->is_string() ? v->as_string() : std::string();
}

namespace {

// A path split at its URI scheme and authority (RFC 3986: a letter, then letters, digits, '+',
// '-', '.', then ':').
struct SplitPath {
  // "scheme://authority" for a file on another file system or host; empty for a local file.
  std::string remote;
  std::string_view path;
  bool uri = false;
};

SplitPath SplitUri(std::string_view path) {
  SplitPath out{{}, path, false};
  if (path.empty() || !std::isalpha(static_cast<unsigned char>(path[0]))) return out;
  size_t scheme_end =
      path.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.");
  if (scheme_end == std::string_view::npos || path[scheme_end] != ':') return out;
  std::string scheme(path.substr(0, scheme_end));
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view rest = path.substr(scheme_end + 1);
  std::string_view authority;
  if (rest.starts_with("//")) {
    size_t slash = rest.find('/', 2);
    authority = rest.substr(2, slash == std::string_view::npos ? rest.size() - 2 : slash - 2);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
  // file:/x, file:///x and file://localhost/x name the local /x, as an unqualified /x does.
  if (scheme != "file" || (!authority.empty() && authority != "localhost")) {
    out.remote = fmt::format("{}://{}", scheme, authority);
  }
  out.path = rest;
  out.uri = true;
  return out;
}

// `text` without `.`, `..` and empty segments (repeated or trailing slashes), after `base`.
std::string Normalized(std::string base, std::string_view text, bool absolute) {
  std::vector<std::string_view> segments;
  while (!text.empty()) {
    size_t slash = text.find('/');
    std::string_view segment = text.substr(0, slash);
    text = slash == std::string_view::npos ? std::string_view() : text.substr(slash + 1);
    if (segment.empty() || segment == ".") continue;
    if (segment == ".." && !segments.empty() && segments.back() != "..") {
      segments.pop_back();
    } else if (segment != ".." || !absolute) {
      segments.push_back(segment);
    }
  }
  std::string out = std::move(base);
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i > 0 || absolute) out += '/';
    out += segments[i];
  }
  if (out.empty() && absolute) out = "/";
  return out;
}

}  // namespace

std::string CanonicalFilePath(std::string_view table_root, std::string_view path) {
  SplitPath split = SplitUri(path);
  // Percent-escapes decoded once, so `a%20b` and `a b` meet; a malformed escape stays as it is.
  Result<std::string> decoded = DecodeAddPath(split.path);
  std::string text = decoded.has_value() ? std::move(*decoded) : std::string(split.path);
  if (!split.uri && !text.starts_with('/') && !table_root.empty()) {
    // The root is a path as the user gave it, not URI-encoded: it is not decoded.
    SplitPath root = SplitUri(table_root);
    const bool root_absolute = root.uri || root.path.starts_with('/');
    std::string joined = std::string(root.path) + "/" + text;
    return Normalized(std::move(root.remote), joined, root_absolute);
  }
  return Normalized(std::move(split.remote), text, split.uri || text.starts_with('/'));
}

std::string TableRootForKeys(std::string_view root) {
  SplitPath split = SplitUri(root);
  if (split.uri || root.starts_with('/')) return std::string(root);
  std::error_code error;
  std::filesystem::path cwd = std::filesystem::current_path(error);
  if (error) return std::string(root);
  return (cwd / std::filesystem::path(root)).lexically_normal().string();
}

std::string FileKey(std::string_view table_root, std::string_view path,
                    const std::optional<JsonValue>& deletion_vector) {
  std::string key = CanonicalFilePath(table_root, path);
  if (!deletion_vector) return key;
  const JsonValue* type = deletion_vector->Find("storageType");
  const JsonValue* where = deletion_vector->Find("pathOrInlineDv");
  const JsonValue* offset = deletion_vector->Find("offset");
  key += '\n';
  if (type != nullptr && type->is_string()) key += type->as_string();
  if (where != nullptr && where->is_string()) key += where->as_string();
  if (offset != nullptr && offset->is_number()) key += "@" + offset->number_text();
  return key;
}

Result<std::optional<Action>> ActionFromJson(const JsonValue& line) {
  if (!line.is_object()) {
    return Fail(ErrorCode::kInvalidArgument, "an action must be a JSON object");
  }
  std::optional<Action> found;
  for (const JsonMember& m : line.members()) {
    if (m.value.is_null()) continue;
    SLUICE_ASSIGN_OR_RETURN(std::optional<Action> action, ReadNamed(m.key, m.value));
    if (!action) continue;
    if (found) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("one line holds two actions ({} and {})", ActionName(*found),
                              ActionName(*action)));
    }
    found = std::move(action);
  }
  return found;
}

Result<std::vector<Action>> ActionsFromCheckpointRow(const JsonValue& row) {
  if (!row.is_object()) {
    return Fail(ErrorCode::kInvalidArgument, "a checkpoint row must be an object");
  }
  std::vector<Action> out;
  for (const JsonMember& m : row.members()) {
    if (m.value.is_null()) continue;
    SLUICE_ASSIGN_OR_RETURN(std::optional<Action> action, ReadNamed(m.key, m.value));
    if (action) out.push_back(std::move(*action));
  }
  return out;
}

Result<std::vector<Action>> ParseCommit(std::string_view text, std::string_view file) {
  std::vector<Action> out;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    Result<JsonValue> parsed = ParseJson(line);
    if (!parsed.has_value()) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("{}: line {}: not a JSON action ({})", file, line_no,
                              parsed.error().message()));
    }
    Result<std::optional<Action>> action = ActionFromJson(*parsed);
    if (!action.has_value()) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("{}: line {}: {}", file, line_no, action.error().message()));
    }
    if (*action) out.push_back(std::move(**action));
  }
  return out;
}

std::string ActionToJson(const Action& action) {
  JsonWriter w;
  w.BeginObject();
  std::visit([&w](const auto& a) { Write(w, a); }, action);
  w.EndObject();
  return w.Take();
}

std::string CommitText(const std::vector<Action>& actions) {
  std::string out;
  for (const Action& a : actions) {
    out += ActionToJson(a);
    out += '\n';
  }
  return out;
}

std::string_view ActionName(const Action& action) {
  struct Namer {
    std::string_view operator()(const Protocol&) const { return "protocol"; }
    std::string_view operator()(const Metadata&) const { return "metaData"; }
    std::string_view operator()(const AddFile&) const { return "add"; }
    std::string_view operator()(const RemoveFile&) const { return "remove"; }
    std::string_view operator()(const Txn&) const { return "txn"; }
    std::string_view operator()(const DomainMetadata&) const { return "domainMetadata"; }
    std::string_view operator()(const CommitInfo&) const { return "commitInfo"; }
    std::string_view operator()(const CheckpointMetadata&) const { return "checkpointMetadata"; }
    std::string_view operator()(const Sidecar&) const { return "sidecar"; }
    std::string_view operator()(const AddCdcFile&) const { return "cdc"; }
  };
  return std::visit(Namer{}, action);
}

}  // namespace sluice::table
