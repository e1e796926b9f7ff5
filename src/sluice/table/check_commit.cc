// The rules of one commit file (PROTOCOL.md "Delta Log Entries", "Actions"), for CheckTable.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "sluice/base/json.h"
#include "sluice/base/strings.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/table/check_internal.h"
#include "sluice/table/column_mapping.h"
#include "sluice/table/log_inspect_internal.h"

namespace sluice::table::internal {
namespace {

constexpr std::string_view kActionNames[] = {
    "protocol",   "metaData",           "add",     "remove", "txn", "domainMetadata",
    "commitInfo", "checkpointMetadata", "sidecar", "cdc",
};

bool IsActionName(std::string_view key) {
  return std::find(std::begin(kActionNames), std::end(kActionNames), key) != std::end(kActionNames);
}

// The finding rule of an action that does not read: its name in snake case.
std::string RuleOf(std::string_view action) {
  if (action == "metaData") return "metadata";
  if (action == "domainMetadata") return "domain_metadata";
  if (action == "commitInfo") return "commit_info";
  if (action == "checkpointMetadata") return "checkpoint_metadata";
  return std::string(action);
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// One action line of a commit, parsed.
struct ParsedLine {
  size_t line_no = 0;
  JsonValue raw;  // the action's own object: {"path": ..., ...}
  Action action;
};

// Where one commit is, for findings.
struct Where {
  int64_t version;
  const std::string& file;
};

const schema::Field* TopLevelField(const schema::Schema& schema, std::string_view name) {
  for (const schema::Field& f : schema.fields()) {
    if (f.name() == name) return &f;
  }
  for (const schema::Field& f : schema.fields()) {
    if (EqualsIgnoreCase(f.name(), name)) return &f;
  }
  return nullptr;
}

void CheckMetadata(const Metadata& m, size_t line_no, Where at, LogState& state, Findings& f) {
  auto here = [&](std::string message) { return fmt::format("line {}: {}", line_no, message); };
  if (m.id.empty()) f.Error("metadata", at.version, at.file, here("metaData.id is empty"));
  if (m.format_provider != "parquet") {
    f.Error("metadata", at.version, at.file,
            here(fmt::format("metaData.format.provider is \"{}\", not \"parquet\"",
                             m.format_provider)));
  }
  Result<ColumnMappingMode> mode = MappingModeOf(m);
  if (!mode.has_value())
    f.Error("column_mapping", at.version, at.file, here(mode.error().message()));
  schema::SchemaPtr schema;
  if (auto parsed = dialects::spark::ReadJson(m.schema_string); parsed) {
    schema = std::move(parsed->value);
  } else {
    f.Error("schema", at.version, at.file,
            here("the schemaString does not parse: " + parsed.error().message()));
  }
  std::set<std::string, std::less<>> seen;
  for (const std::string& column : m.partition_columns) {
    if (!seen.insert(column).second) {
      f.Error("partition_columns", at.version, at.file,
              here(fmt::format("partition column {} is listed twice", column)));
    }
    if (schema && TopLevelField(*schema, column) == nullptr) {
      f.Error(
          "partition_columns", at.version, at.file,
          here(fmt::format("partition column {} is not a top-level column of the schema", column)));
    }
  }
  state.metadata = m;
  state.partition_keys = PartitionKeys(m, schema.get());
}

// Fields the protocol requires of an add or remove that the typed reader defaults.
void RequireFields(const JsonValue& raw, std::string_view action, std::string_view path,
                   std::initializer_list<std::string_view> keys, size_t line_no, Where at,
                   Findings& f) {
  for (std::string_view key : keys) {
    const JsonValue* v = raw.Find(key);
    if (v == nullptr || v->is_null()) {
      f.Error(RuleOf(action), at.version, at.file,
              fmt::format("line {}: {} {} lacks {}", line_no, action, path, key));
    }
  }
}

void CheckAdd(const ParsedLine& line, const AddFile& add, Where at, const LogState& state,
              Findings& f) {
  auto here = [&](std::string message) {
    return fmt::format("line {}: add {}: {}", line.line_no, add.path, message);
  };
  RequireFields(line.raw, "add", add.path,
                {"partitionValues", "size", "modificationTime", "dataChange"}, line.line_no, at, f);
  if (add.size < 0)
    f.Error("add", at.version, at.file, here(fmt::format("size {} is negative", add.size)));
  if (Result<std::optional<std::string>> p = DataFilePath("", add.path); !p.has_value()) {
    f.Error("add", at.version, at.file, here(p.error().message()));
  }
  if (state.partition_keys) {
    std::vector<std::string> missing;
    std::vector<std::string> extra;
    for (const std::string& key : *state.partition_keys) {
      if (!add.partition_values.contains(key)) missing.push_back(key);
    }
    for (const auto& [key, value] : add.partition_values) {
      if (std::find(state.partition_keys->begin(), state.partition_keys->end(), key) ==
          state.partition_keys->end()) {
        extra.push_back(key);
      }
    }
    if (!missing.empty()) {
      f.Error("partition_values", at.version, at.file,
              here(fmt::format("partitionValues lacks the partition column{} {}",
                               missing.size() == 1 ? "" : "s", Join(missing))));
    }
    if (!extra.empty()) {
      f.Error("partition_values", at.version, at.file,
              here(fmt::format("partitionValues holds {}, not {} partition column{}", Join(extra),
                               extra.size() == 1 ? "a" : "", extra.size() == 1 ? "" : "s")));
    }
  }
  if (add.stats) {
    if (auto n = StatsNumRecords(*add.stats); !n.has_value()) {
      f.Error("stats", at.version, at.file, here(n.error().message()));
    }
  }
}

// Parse every line; what does not parse into exactly one known action is a finding.
std::vector<ParsedLine> ParseLines(std::string_view text, Where at, Findings& f) {
  std::vector<ParsedLine> out;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    const bool torn = end == std::string_view::npos;
    if (torn) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) {
      f.Warning("empty_line", at.version, at.file,
                fmt::format("line {} is empty (a commit is one action a line)", line_no));
      continue;
    }
    Result<JsonValue> parsed = ParseJson(line);
    if (!parsed.has_value()) {
      f.Error("bad_json", at.version, at.file,
              fmt::format("line {}{} is not JSON: {}", line_no,
                          torn ? " (the last line, torn: it has no newline)" : "",
                          parsed.error().message()));
      continue;
    }
    std::vector<std::string> known;
    std::vector<std::string> unknown;
    if (parsed->is_object()) {
      for (const JsonMember& m : parsed->members()) {
        if (m.value.is_null()) continue;
        (IsActionName(m.key) ? known : unknown).push_back(m.key);
      }
    }
    if (!parsed->is_object() || (known.empty() && unknown.empty())) {
      f.Error("not_one_action", at.version, at.file,
              fmt::format("line {} is not an object holding one action", line_no));
      continue;
    }
    if (known.size() > 1) {
      f.Error("not_one_action", at.version, at.file,
              fmt::format("line {} holds {} actions ({}); a line holds one", line_no, known.size(),
                          Join(known)));
      continue;
    }
    if (known.empty()) {
      f.Warning(
          "unknown_action", at.version, at.file,
          fmt::format("line {}: unknown action {} (readers ignore it)", line_no, Join(unknown)));
      continue;
    }
    Result<std::optional<Action>> action = ActionFromJson(*parsed);
    if (!action.has_value()) {
      f.Error(RuleOf(known[0]), at.version, at.file,
              fmt::format("line {}: {}", line_no, action.error().message()));
      continue;
    }
    if (!*action) continue;
    out.push_back({line_no, *parsed->Find(known[0]), std::move(**action)});
  }
  return out;
}

}  // namespace

std::optional<std::vector<std::string>> PartitionKeys(const Metadata& metadata,
                                                      const schema::Schema* schema) {
  if (schema == nullptr) return std::nullopt;
  Result<ColumnMappingMode> mode = MappingModeOf(metadata);
  const bool physical = mode.has_value() && *mode != ColumnMappingMode::kNone;
  std::vector<std::string> keys;
  for (const std::string& column : metadata.partition_columns) {
    const schema::Field* field = TopLevelField(*schema, column);
    keys.push_back(physical && field != nullptr ? PhysicalName(*field) : column);
  }
  return keys;
}

void CheckProtocol(const Protocol& p, int64_t version, const std::string& file, Findings& f) {
  auto bad = [&](std::string message) { f.Error("protocol", version, file, std::move(message)); };
  const int reader = p.min_reader_version;
  const int writer = p.min_writer_version;
  if (reader < 1 || reader > 3) bad(fmt::format("minReaderVersion {} is not 1, 2 or 3", reader));
  if (writer < 1 || writer > 7) bad(fmt::format("minWriterVersion {} is not 1 to 7", writer));
  if (p.reader_features.has_value() != (reader == 3)) {
    bad(reader == 3
            ? "minReaderVersion 3 without readerFeatures"
            : fmt::format("readerFeatures with minReaderVersion {} (only 3 lists them)", reader));
  }
  if (p.writer_features.has_value() != (writer == 7)) {
    bad(writer == 7
            ? "minWriterVersion 7 without writerFeatures"
            : fmt::format("writerFeatures with minWriterVersion {} (only 7 lists them)", writer));
  }
  if (reader == 3 && writer != 7) {
    bad(fmt::format("minReaderVersion 3 needs minWriterVersion 7, not {}", writer));
  }
  for (const auto* list : {&p.reader_features, &p.writer_features}) {
    if (!*list) continue;
    std::set<std::string, std::less<>> seen;
    for (const std::string& feature : **list) {
      if (!seen.insert(feature).second) {
        bad(fmt::format("{} lists {} twice",
                        list == &p.reader_features ? "readerFeatures" : "writerFeatures", feature));
      }
    }
  }
  if (p.reader_features) {
    for (const std::string& feature : *p.reader_features) {
      const auto& writers = p.writer_features;
      if (!writers || std::find(writers->begin(), writers->end(), feature) == writers->end()) {
        bad(fmt::format("reader feature {} is not also a writer feature", feature));
      }
    }
  }
}

void CheckCommit(std::string_view text, int64_t version, const std::string& file, LogState& state,
                 Findings& f) {
  Where at{version, file};
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    f.Error("empty_commit", version, file, "the commit holds no action");
  }
  std::vector<ParsedLine> lines = ParseLines(text, at, f);
  // The commit's protocol and metaData first: its adds are under its own metaData.
  int protocols = 0;
  int metadatas = 0;
  for (const ParsedLine& line : lines) {
    if (const auto* p = std::get_if<Protocol>(&line.action)) {
      ++protocols;
      CheckProtocol(*p, version, file, f);
    } else if (const auto* m = std::get_if<Metadata>(&line.action)) {
      ++metadatas;
      RequireFields(line.raw, "metaData", m->id, {"format", "partitionColumns", "configuration"},
                    line.line_no, at, f);
      CheckMetadata(*m, line.line_no, at, state, f);
    }
  }
  if (metadatas > 1) {
    f.Error("duplicate_metadata", version, file,
            fmt::format("the commit holds {} metaData actions; at most one is allowed", metadatas));
  }
  if (protocols > 1) {
    f.Error("duplicate_protocol", version, file,
            fmt::format("the commit holds {} protocol actions; at most one is allowed", protocols));
  }
  if (version == 0 && (protocols == 0 || metadatas == 0)) {
    f.Error("first_commit_incomplete", version, file,
            fmt::format("version 0 holds no {} action; the first commit needs a protocol and a "
                        "metaData",
                        protocols == 0 && metadatas == 0 ? "protocol and no metaData"
                        : protocols == 0                 ? "protocol"
                                                         : "metaData"));
  }
  std::set<std::string, std::less<>> adds;
  std::set<std::string, std::less<>> removes;
  for (const ParsedLine& line : lines) {
    if (const auto* a = std::get_if<AddFile>(&line.action)) {
      CheckAdd(line, *a, at, state, f);
      if (!adds.insert(FileKey({}, a->path, a->deletion_vector)).second) {
        f.Error("duplicate_add", version, file,
                fmt::format("line {}: {} is added twice in one commit", line.line_no, a->path));
      }
    } else if (const auto* r = std::get_if<RemoveFile>(&line.action)) {
      RequireFields(line.raw, "remove", r->path, {"dataChange"}, line.line_no, at, f);
      if (!removes.insert(FileKey({}, r->path, r->deletion_vector)).second) {
        f.Error("duplicate_remove", version, file,
                fmt::format("line {}: {} is removed twice in one commit", line.line_no, r->path));
      }
    }
  }
}

}  // namespace sluice::table::internal
