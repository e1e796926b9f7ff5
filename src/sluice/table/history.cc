#include "sluice/table/history.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "sluice/dialects/spark/spark.h"
#include "sluice/table/column_mapping.h"
#include "sluice/table/log_inspect_internal.h"
#include "sluice/table/snapshot.h"

namespace sluice::table {
namespace {

schema::SchemaPtr UserSchema(const schema::SchemaPtr& schema) {
  Result<schema::SchemaPtr> stripped = WithoutStorageMetadata(*schema);
  return stripped.has_value() ? *stripped : schema;
}

// The protocol and metaData in force before the commit being read. "Known" is false where the
// log no longer holds what came before (a cleaned-up log, a missing version).
struct TableState {
  bool protocol_known = false;
  bool metadata_known = false;
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  // The parsed schema of `metadata`; nullptr when its schemaString does not parse.
  schema::SchemaPtr schema;
};

const schema::SchemaPtr& EmptySchema() {
  static const schema::SchemaPtr empty = *schema::Schema::Make({});
  return empty;
}

Result<schema::SchemaPtr> ParseSchema(const std::string& schema_string) {
  SLUICE_ASSIGN_OR_RETURN(auto parsed, dialects::spark::ReadJson(schema_string));
  return std::move(parsed.value);
}

std::optional<int64_t> IntOf(const JsonValue* v) {
  if (v == nullptr) return std::nullopt;
  if (v->is_number()) return v->as_int64();
  // operationMetrics holds numbers as strings, as Spark writes them.
  if (v->is_string()) {
    const std::string& s = v->as_string();
    int64_t out = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (ec == std::errc() && end == s.data() + s.size()) return out;
  }
  return std::nullopt;
}

void ReadCommitInfo(const CommitInfo& info, HistoryEntry& e) {
  const JsonValue& v = info.value;
  e.operation = info.operation();
  e.commit_info_timestamp_ms = info.timestamp();
  if (const JsonValue* p = v.Find("operationParameters"); p != nullptr && p->is_object()) {
    e.operation_parameters = *p;
  }
  if (const JsonValue* m = v.Find("operationMetrics"); m != nullptr && m->is_object()) {
    e.operation_metrics = *m;
  }
  e.read_version = IntOf(v.Find("readVersion"));
  if (const JsonValue* b = v.Find("isBlindAppend"); b != nullptr && b->is_bool()) {
    e.is_blind_append = b->as_bool();
  }
  if (const JsonValue* s = v.Find("engineInfo"); s != nullptr && s->is_string()) {
    e.engine_info = s->as_string();
  }
}

std::vector<PropertyChange> PropertyChanges(const StringMap& before, const StringMap& after) {
  std::vector<PropertyChange> out;
  for (const auto& [key, value] : after) {
    auto it = before.find(key);
    if (it == before.end()) {
      out.push_back({key, std::nullopt, value});
    } else if (it->second != value) {
      out.push_back({key, it->second, value});
    }
  }
  for (const auto& [key, value] : before) {
    if (!after.contains(key)) out.push_back({key, value, std::nullopt});
  }
  std::sort(out.begin(), out.end(),
            [](const PropertyChange& a, const PropertyChange& b) { return a.key < b.key; });
  return out;
}

void ApplyProtocol(const Protocol& p, TableState& state, HistoryEntry& e) {
  if (state.protocol_known && state.protocol && *state.protocol == p) {
    return;  // rewritten unchanged
  }
  e.protocol_changed = true;
  if (!state.protocol_known) e.previous_unknown = true;
  e.protocol_before = state.protocol_known ? state.protocol : std::nullopt;
  e.protocol_after = p;
  state.protocol = p;
  state.protocol_known = true;
}

void ApplyMetadata(const Metadata& m, TableState& state, HistoryEntry& e) {
  if (state.metadata_known && state.metadata && *state.metadata == m) return;
  e.metadata_changed = true;
  // A schemaString equal to the one before needs no parse and changes nothing.
  const bool same_schema =
      state.metadata_known && state.metadata && state.metadata->schema_string == m.schema_string;
  schema::SchemaPtr after;
  if (same_schema) {
    after = state.schema;
  } else if (Result<schema::SchemaPtr> parsed = ParseSchema(m.schema_string); parsed) {
    after = std::move(*parsed);
  } else {
    e.schema_error = parsed.error().message();
  }
  if (!state.metadata_known) {
    e.previous_unknown = true;
    if (after) e.schema_change = SchemaChange{nullptr, after, {}};
  } else if (!state.metadata) {
    e.created = true;
    if (after) {
      e.schema_change = SchemaChange{nullptr, after, evolution::Diff(*EmptySchema(), *after)};
    }
  } else {
    if (!same_schema && after && state.schema) {
      // Column mapping ids, physical names and delta.typeChanges say how the table stores its
      // columns; the change users see is of the schema without them.
      std::vector<ColumnRename> renames;
      Result<schema::SchemaPtr> renamed = RenamedByColumnId(*state.schema, *after, &renames);
      schema::SchemaPtr before = renamed.has_value() ? *renamed : state.schema;
      if (!renamed.has_value()) renames.clear();
      evolution::SchemaDiff diff = evolution::Diff(*UserSchema(before), *UserSchema(after));
      if (!diff.empty() || !renames.empty()) {
        e.schema_change = SchemaChange{state.schema, after, std::move(diff), std::move(renames)};
      }
    }
    e.property_changes = PropertyChanges(state.metadata->configuration, m.configuration);
    if (state.metadata->partition_columns != m.partition_columns) {
      e.partition_change = std::make_pair(state.metadata->partition_columns, m.partition_columns);
    }
  }
  state.metadata = m;
  state.schema = std::move(after);
  state.metadata_known = true;
}

// Where the log holds no commit before `version`, the state may come from a checkpoint at the
// version before it.
void SeedFromCheckpoint(FileSystem& fs, std::string_view root, const LogListing& listing,
                        int64_t version, TableState& state) {
  if ((state.protocol_known && state.metadata_known) ||
      !listing.checkpoints.contains(version - 1)) {
    return;
  }
  Result<Snapshot> s = LoadSnapshot(fs, root, listing, {.version = version - 1});
  if (!s.has_value()) return;  // an unreadable checkpoint leaves the state unknown
  state.protocol = std::move(s->protocol);
  state.metadata = std::move(s->metadata);
  state.schema = std::move(s->schema);
  state.protocol_known = state.metadata_known = true;
}

void CountFiles(const std::vector<Action>& actions, HistoryEntry& e) {
  int64_t rows = 0;
  bool every_add_has_rows = true;
  for (const Action& a : actions) {
    if (const auto* add = std::get_if<AddFile>(&a)) {
      ++e.files_added;
      e.bytes_added += add->size;
      std::optional<int64_t> n;
      if (add->stats) {
        if (auto parsed = internal::StatsNumRecords(*add->stats); parsed) n = *parsed;
      }
      if (n) {
        rows += *n;
      } else {
        every_add_has_rows = false;
      }
    } else if (std::holds_alternative<RemoveFile>(a)) {
      ++e.files_removed;
    }
  }
  if (e.files_added == 0) {
    e.rows_added = 0;
  } else if (every_add_has_rows) {
    e.rows_added = rows;
  } else {
    e.rows_added = IntOf(e.operation_metrics.Find("numOutputRows"));
  }
}

}  // namespace

Result<std::vector<HistoryEntry>> TableHistory(FileSystem& fs, std::string_view root) {
  SLUICE_ASSIGN_OR_RETURN(LogListing listing, ListLog(fs, root));
  std::vector<HistoryEntry> out;
  out.reserve(listing.commits.size());
  TableState state;
  int64_t previous = -1;
  for (const LogListing::Commit& c : listing.commits) {
    // Version 0 starts from nothing; after a gap (a cleaned-up or broken log) what came before
    // is unknown until a checkpoint or the commits themselves say.
    if (c.version == 0) {
      state = TableState{.protocol_known = true, .metadata_known = true};
    } else if (c.version != previous + 1) {
      state.protocol_known = state.metadata_known = false;
    }
    previous = c.version;
    SeedFromCheckpoint(fs, root, listing, c.version, state);
    SLUICE_ASSIGN_OR_RETURN(std::vector<Action> actions, ReadCommit(fs, root, c.version));
    HistoryEntry e;
    e.version = c.version;
    for (const Action& a : actions) {
      if (const auto* info = std::get_if<CommitInfo>(&a)) {
        ReadCommitInfo(*info, e);
      } else if (const auto* p = std::get_if<Protocol>(&a)) {
        ApplyProtocol(*p, state, e);
      } else if (const auto* m = std::get_if<Metadata>(&a)) {
        ApplyMetadata(*m, state, e);
      }
    }
    CountFiles(actions, e);
    out.push_back(std::move(e));
  }
  // The pass ends on the latest metaData, which says whether in-commit timestamps date the
  // versions (when the log no longer holds it, CommitTimestamps reads it).
  const Metadata* latest = state.metadata_known && state.metadata ? &*state.metadata : nullptr;
  SLUICE_ASSIGN_OR_RETURN(auto times, CommitTimestamps(fs, root, listing, latest));
  for (HistoryEntry& e : out) e.timestamp_ms = times.at(e.version);
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace sluice::table
