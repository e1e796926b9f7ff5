#include "sluice/table/file_stats.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <span>

#include "sluice/base/json_writer.h"
#include "sluice/table/file_stats_internal.h"

namespace sluice::table {
namespace {

using parquet::ParquetSchema;
using parquet::SchemaNode;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Java's Integer.parseInt, as Delta reads these properties: an optional sign and decimal digits,
// nothing else, within int range.
std::optional<int> ParseJavaInt(std::string_view s) {
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (!s.empty() && s.front() == '-') return std::nullopt;
  }
  if (s.empty() || s.front() == '+') return std::nullopt;
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

Result<int> ReadIntKey(const std::map<std::string, std::string>& config, std::string_view key,
                       int min, int fallback) {
  const auto it = config.find(std::string(key));
  if (it == config.end()) return fallback;
  const std::optional<int> v = ParseJavaInt(it->second);
  if (!v || *v < min) {
    return InvalidArgument(fmt::format("table property {}: '{}' is not an integer of at least {}",
                                       key, it->second, min));
  }
  return *v;
}

// ---- Column selection ----------------------------------------------------------------------

// Per node of the schema: whether stats are collected for it (a struct: for some field of it).
using Selection = std::vector<char>;

std::span<const schema::Field> StructFields(const SchemaNode& node) { return node.type->fields(); }

// Spark's truncateSchema: the first `remaining` fields that are not structs, depth first; a
// struct is entered while the count lasts and may be cut part-way.
void SelectFirst(const ParquetSchema& schema, const SchemaNode& node, int64_t& remaining,
                 Selection& sel) {
  for (const SchemaNode& child : schema.children(node)) {
    if (remaining <= 0) return;
    sel[schema.IndexOf(child)] = 1;
    if (child.kind == SchemaNode::Kind::kStruct) {
      SelectFirst(schema, child, remaining, sel);
    } else {
      --remaining;
    }
  }
}

void SelectAll(const ParquetSchema& schema, const SchemaNode& node, Selection& sel) {
  sel[schema.IndexOf(node)] = 1;
  if (node.kind != SchemaNode::Kind::kStruct) return;
  for (const SchemaNode& child : schema.children(node)) SelectAll(schema, child, sel);
}

// Spark's filterSchema: paths (lower-cased parts) name fields through structs; a field a path
// ends at is selected whole, unless another path goes on below it (then only that path's part).
bool SelectNamed(const ParquetSchema& schema, const SchemaNode& node,
                 const std::vector<std::span<const std::string>>& paths, Selection& sel) {
  bool any = false;
  const std::span<const schema::Field> fields = StructFields(node);
  const std::span<const SchemaNode> children = schema.children(node);
  for (size_t k = 0; k < children.size(); ++k) {
    const std::string name = AsciiLower(fields[k].name());
    std::vector<std::span<const std::string>> below;
    bool matched = false;
    bool all_end_here = true;
    for (const std::span<const std::string>& p : paths) {
      if (p.front() != name) continue;
      matched = true;
      if (p.size() > 1) {
        all_end_here = false;
        below.push_back(p.subspan(1));
      }
    }
    if (!matched) continue;
    const SchemaNode& child = children[k];
    if (all_end_here) {
      SelectAll(schema, child, sel);
      any = true;
    } else if (child.kind == SchemaNode::Kind::kStruct && SelectNamed(schema, child, below, sel)) {
      sel[schema.IndexOf(child)] = 1;
      any = true;
    }
  }
  return any;
}

Result<Selection> SelectColumns(const ParquetSchema& schema, const StatsOptions& options) {
  Selection sel(schema.nodes().size(), 0);
  if (options.stats_columns) {
    std::vector<std::vector<std::string>> parsed;
    for (const std::string& entry : *options.stats_columns) {
      SLUICE_ASSIGN_OR_RETURN(std::vector<std::string> parts, ParseColumnPath(entry));
      for (std::string& part : parts) part = AsciiLower(part);
      parsed.push_back(std::move(parts));
    }
    std::vector<std::span<const std::string>> paths(parsed.begin(), parsed.end());
    if (!paths.empty()) SelectNamed(schema, schema.root(), paths, sel);
  } else {
    int64_t remaining = options.num_indexed_cols < 0 ? INT64_MAX : options.num_indexed_cols;
    SelectFirst(schema, schema.root(), remaining, sel);
  }
  return sel;
}

// ---- Writing -------------------------------------------------------------------------------

class StatsWriter {
 public:
  StatsWriter(const ParquetSchema& schema, const Selection& sel,
              const std::vector<internal::LeafStats>& leaves, int64_t num_records)
      : schema_(schema), sel_(sel), leaves_(leaves), num_records_(num_records) {}

  /// Whether the struct `node` has a selected field Delta keeps min/max for.
  bool HasMinMax(const SchemaNode& node) const {
    for (const SchemaNode& child : schema_.children(node)) {
      if (!sel_[schema_.IndexOf(child)]) continue;
      if (child.kind == SchemaNode::Kind::kStruct ? HasMinMax(child) : LeafHasMinMax(child)) {
        return true;
      }
    }
    return false;
  }

  void MinMax(const SchemaNode& node, bool is_max, JsonWriter& w) const {
    const std::span<const schema::Field> fields = StructFields(node);
    const std::span<const SchemaNode> children = schema_.children(node);
    for (size_t k = 0; k < children.size(); ++k) {
      const SchemaNode& child = children[k];
      if (!sel_[schema_.IndexOf(child)]) continue;
      if (child.kind == SchemaNode::Kind::kStruct) {
        if (!HasMinMax(child)) continue;
        w.Key(KeyOf(child, fields[k])).BeginObject();
        MinMax(child, is_max, w);
        w.EndObject();
      } else if (LeafHasMinMax(child)) {
        const internal::LeafStats& stats = leaves_[static_cast<size_t>(child.leaf)];
        const std::optional<std::string>& value = is_max ? stats.max_json : stats.min_json;
        if (value) w.Key(KeyOf(child, fields[k])).Raw(*value);
      }
    }
  }

  // `null_above`: whether some struct around `node` may be null (then so may its fields).
  void NullCounts(const SchemaNode& node, bool null_above, JsonWriter& w) const {
    const std::span<const schema::Field> fields = StructFields(node);
    const std::span<const SchemaNode> children = schema_.children(node);
    for (size_t k = 0; k < children.size(); ++k) {
      const SchemaNode& child = children[k];
      if (!sel_[schema_.IndexOf(child)]) continue;
      if (child.kind == SchemaNode::Kind::kStruct) {
        w.Key(KeyOf(child, fields[k])).BeginObject();
        NullCounts(child, null_above || child.nullable, w);
        w.EndObject();
        continue;
      }
      const std::optional<int64_t> count = NullCountOf(child, null_above);
      if (count) w.Key(KeyOf(child, fields[k])).Int(*count);
    }
  }

 private:
  bool LeafHasMinMax(const SchemaNode& node) const {
    return node.kind == SchemaNode::Kind::kLeaf &&
           internal::MinMaxEligible(schema_.leaves()[static_cast<size_t>(node.leaf)]);
  }

  // The file's name for a field: its element's (the physical name under column mapping); for
  // a field the file leaves out, the physical name in its metadata, else its name.
  std::string KeyOf(const SchemaNode& node, const schema::Field& field) const {
    if (node.element >= 0) return schema_.elements()[static_cast<size_t>(node.element)].name;
    const JsonValue* physical = field.metadata().Find(parquet::kColumnMappingPhysicalNameKey);
    if (physical != nullptr && physical->is_string()) return physical->as_string();
    return field.name();
  }

  std::optional<int64_t> NullCountOf(const SchemaNode& node, bool null_above) const {
    switch (node.kind) {
      case SchemaNode::Kind::kLeaf:
        return leaves_[static_cast<size_t>(node.leaf)].null_count;
      case SchemaNode::Kind::kAbsent:
        return num_records_;  // a field the file does not hold is null in every row
      case SchemaNode::Kind::kList:
      case SchemaNode::Kind::kMap:
        return ContainerNullCount(node, null_above);
      case SchemaNode::Kind::kStruct:
        break;
    }
    return std::nullopt;
  }

  // Rows where an array or map is null. A footer counts nulls per leaf, where null, empty and
  // null-element entries all look alike; but a null array writes a null to every leaf below it,
  // so a leaf without nulls proves the count 0. Other counts are unknown.
  std::optional<int64_t> ContainerNullCount(const SchemaNode& node, bool null_above) const {
    if (num_records_ == 0 || (!node.nullable && !null_above)) return 0;
    for (int32_t i = node.first_leaf; i < node.first_leaf + node.num_leaves; ++i) {
      const std::optional<int64_t>& leaf_nulls = leaves_[static_cast<size_t>(i)].null_count;
      if (leaf_nulls && *leaf_nulls == 0) return 0;
    }
    return std::nullopt;
  }

  const ParquetSchema& schema_;
  const Selection& sel_;
  const std::vector<internal::LeafStats>& leaves_;
  int64_t num_records_;
};

Status CheckFooterMatches(const parquet::FileMetaData& footer, const ParquetSchema& schema) {
  const size_t columns = schema.leaves().size();
  for (size_t g = 0; g < footer.row_groups.size(); ++g) {
    const parquet::RowGroup& rg = footer.row_groups[g];
    if (rg.columns.size() != columns) {
      return InvalidArgument(fmt::format("row group {} has {} column chunks, the schema {} columns",
                                         g, rg.columns.size(), columns));
    }
    if (rg.num_rows < 0) {
      return InvalidArgument(fmt::format("row group {}: num_rows {} is negative", g, rg.num_rows));
    }
    for (size_t c = 0; c < columns; ++c) {
      const std::optional<parquet::ColumnMetaData>& meta = rg.columns[c].meta_data;
      if (meta && meta->path_in_schema != schema.leaves()[c].path) {
        return InvalidArgument(fmt::format("row group {}, column chunk {}: path '{}' is not '{}'",
                                           g, c, fmt::join(meta->path_in_schema, "."),
                                           fmt::join(schema.leaves()[c].path, ".")));
      }
    }
  }
  return Ok();
}

// ---- Parsing -------------------------------------------------------------------------------

Unexpected<Error> StatsError(std::string_view text, const JsonValue& at, std::string_view what) {
  return ParseError(fmt::format("stats: {} (offset {}): {}", DescribeOffset(text, at.offset()),
                                at.offset(), what));
}

// Objects nest; leaves are scalars (null_counts: non-negative integers or null).
Status CheckStatsObject(std::string_view text, const JsonValue& v, std::string_view name,
                        bool null_counts) {
  if (!v.is_object()) return StatsError(text, v, fmt::format("{} is not an object", name));
  for (const JsonMember& m : v.members()) {
    const JsonValue& x = m.value;
    if (x.is_object()) {
      SLUICE_TRY(CheckStatsObject(text, x, name, null_counts));
    } else if (x.is_array()) {
      return StatsError(text, x, fmt::format("{} of '{}' is an array", name, m.key));
    } else if (null_counts && !x.is_null()) {
      const std::optional<int64_t> n = x.is_number() ? x.as_int64() : std::nullopt;
      if (!n || *n < 0) {
        return StatsError(text, x,
                          fmt::format("nullCount of '{}' is not a non-negative integer", m.key));
      }
    }
  }
  return Ok();
}

}  // namespace

Result<StatsOptions> StatsOptions::FromConfiguration(
    const std::map<std::string, std::string>& table_configuration) {
  StatsOptions out;
  SLUICE_ASSIGN_OR_RETURN(out.num_indexed_cols,
                          ReadIntKey(table_configuration, kNumIndexedColsKey, -1, 32));
  SLUICE_ASSIGN_OR_RETURN(out.string_prefix_length,
                          ReadIntKey(table_configuration, kStringPrefixLengthKey, 0, 32));
  const auto it = table_configuration.find(std::string(kStatsColumnsKey));
  if (it != table_configuration.end()) {
    Result<std::vector<std::string>> columns = SplitStatsColumns(it->second);
    if (!columns) {
      return InvalidArgument(fmt::format("table property {}: '{}': {}", kStatsColumnsKey,
                                         it->second, columns.error().message()));
    }
    out.stats_columns = std::move(*columns);
  }
  return out;
}

Result<std::vector<std::string>> ParseColumnPath(std::string_view path) {
  std::vector<std::string> parts;
  size_t i = 0;
  const auto fail = [&](std::string_view what) {
    return InvalidArgument(fmt::format("column path '{}': {} at offset {}", path, what, i));
  };
  while (true) {
    while (i < path.size() && IsSpace(path[i])) ++i;
    std::string part;
    if (i < path.size() && path[i] == '`') {
      // A quoted name runs to the next lone backquote; "``" is a backquote.
      ++i;
      while (true) {
        if (i >= path.size()) return fail("unclosed backquote");
        if (path[i] == '`') {
          if (i + 1 < path.size() && path[i + 1] == '`') {
            part += '`';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        part += path[i++];
      }
    } else {
      while (i < path.size() && path[i] != '.' && path[i] != '`' && path[i] != ',' &&
             !IsSpace(path[i])) {
        part += path[i++];
      }
      if (part.empty()) return fail("empty name");
    }
    parts.push_back(std::move(part));
    while (i < path.size() && IsSpace(path[i])) ++i;
    if (i == path.size()) return parts;
    if (path[i] != '.') return fail(fmt::format("unexpected '{}'", path[i]));
    ++i;
  }
}

Result<std::vector<std::string>> SplitStatsColumns(std::string_view text) {
  std::vector<std::string> out;
  if (Trim(text).empty()) return out;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] == '`') quoted = !quoted;  // "``" toggles twice
    if (i < text.size() && (quoted || text[i] != ',')) continue;
    if (quoted) return InvalidArgument("unclosed backquote");
    const std::string_view entry = Trim(text.substr(start, i - start));
    SLUICE_TRY(ParseColumnPath(entry));
    out.emplace_back(entry);
    start = i + 1;
  }
  return out;
}

Result<std::string> FileStatsJson(const parquet::FileMetaData& footer,
                                  const parquet::ParquetSchema& file_schema,
                                  const StatsOptions& options) {
  SLUICE_TRY(CheckFooterMatches(footer, file_schema));
  int64_t num_records = 0;
  for (const parquet::RowGroup& rg : footer.row_groups) {
    if (__builtin_add_overflow(num_records, rg.num_rows, &num_records)) {
      return InvalidArgument("the row groups' num_rows overflow");
    }
  }
  SLUICE_ASSIGN_OR_RETURN(Selection sel, SelectColumns(file_schema, options));

  std::vector<internal::LeafStats> leaves;
  leaves.reserve(file_schema.leaves().size());
  for (size_t c = 0; c < file_schema.leaves().size(); ++c) {
    const parquet::ColumnDescriptor& leaf = file_schema.leaves()[c];
    const bool want_bounds = sel[static_cast<size_t>(leaf.node)] != 0;
    SLUICE_ASSIGN_OR_RETURN(
        internal::LeafStats stats,
        internal::CombineLeafStats(footer, c, leaf, want_bounds, options.string_prefix_length));
    leaves.push_back(std::move(stats));
  }

  // Delta Spark's order: numRecords, minValues, maxValues, nullCount, tightBounds. Spark leaves a
  // statistic out when no selected field has it, and writes {} for a struct whose values are all
  // null, as here.
  const StatsWriter stats(file_schema, sel, leaves, num_records);
  const SchemaNode& root = file_schema.root();
  JsonWriter w;
  w.BeginObject().Key("numRecords").Int(num_records);
  if (stats.HasMinMax(root)) {
    w.Key("minValues").BeginObject();
    stats.MinMax(root, /*is_max=*/false, w);
    w.EndObject().Key("maxValues").BeginObject();
    stats.MinMax(root, /*is_max=*/true, w);
    w.EndObject();
  }
  const bool any_selected = std::any_of(sel.begin(), sel.end(), [](char s) { return s != 0; });
  if (any_selected) {
    w.Key("nullCount").BeginObject();
    stats.NullCounts(root, /*null_above=*/false, w);
    w.EndObject();
  }
  if (options.tight_bounds) w.Key("tightBounds").Bool(true);
  w.EndObject();
  return w.Take();
}

Result<ParsedStats> ParseStats(std::string_view stats_json) {
  Result<JsonValue> doc = ParseJson(stats_json);
  if (!doc) return ParseError(fmt::format("stats: {}", doc.error().message()));
  if (!doc->is_object()) return StatsError(stats_json, *doc, "not a JSON object");
  ParsedStats out;
  for (JsonMember& m : doc->mutable_members()) {
    JsonValue& v = m.value;
    if (m.key == "numRecords") {
      const std::optional<int64_t> n = v.is_number() ? v.as_int64() : std::nullopt;
      if (!n || *n < 0)
        return StatsError(stats_json, v, "numRecords is not a non-negative integer");
      out.num_records = *n;
    } else if (m.key == "minValues" || m.key == "maxValues") {
      SLUICE_TRY(CheckStatsObject(stats_json, v, m.key, /*null_counts=*/false));
      (m.key == "minValues" ? out.min_values : out.max_values) = std::move(v);
    } else if (m.key == "nullCount") {
      SLUICE_TRY(CheckStatsObject(stats_json, v, m.key, /*null_counts=*/true));
      out.null_count = std::move(v);
    } else if (m.key == "tightBounds") {
      if (!v.is_bool()) return StatsError(stats_json, v, "tightBounds is not a boolean");
      out.tight_bounds = v.as_bool();
    }
  }
  return out;
}

}  // namespace sluice::table
