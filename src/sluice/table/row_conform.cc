// Rows of a data file in the table's logical shape: a plan built once per file from the two
// schemas, then applied to each row's JSON text as the Parquet reader prints it. Values the
// plan copies are copied as text, never parsed; only structs are taken apart (to rename,
// reorder, drop and fill members) and leaves converted where a type was widened.
#include <fmt/format.h>

#include <charconv>
#include <string>
#include <vector>

#include "sluice/base/strings.h"
#include "sluice/parquet/schema_map.h"
#include "sluice/parquet/value_text.h"
#include "sluice/schema/field_path.h"
#include "sluice/table/scan_internal.h"

namespace sluice::table::internal {

using schema::Field;
using schema::FieldPath;
using schema::Type;
using schema::TypeKind;

namespace {

std::string JsonKeyText(std::string_view name) {
  std::string out;
  parquet::AppendJsonText(out, name);
  return out;
}

std::optional<int64_t> SourceFieldId(const Field& field) {
  const JsonValue* id = field.metadata().Find(parquet::kParquetFieldIdKey);
  if (id == nullptr || !id->is_number()) return std::nullopt;
  return id->as_int64();
}

// How a file's leaf of type `from` reads as the table's `to`: the widenings Delta allows
// (PROTOCOL.md "Type Widening"), plus integer width changes that keep the digits (files that
// store a byte column as a plain INT32).
Result<ConformNode> LeafFor(const Type& from, const Type& to) {
  ConformNode n;
  n.kind = ConformNode::Kind::kLeaf;
  n.conversion = LeafConversion::kCopy;
  const bool from_int = from.is_integer();
  if (from.kind() == to.kind()) {
    if (to.kind() == TypeKind::kDecimal && from.scale() != to.scale()) {
      if (from.scale() > to.scale()) {
        return InvalidArgument(fmt::format("{} cannot be read as {}: the scale would shrink",
                                           from.ToString(), to.ToString()));
      }
      n.conversion = LeafConversion::kDecimalRescale;
      n.scale_from = from.scale();
      n.scale_to = to.scale();
    }
  } else if (from_int && to.is_integer()) {
    // The digits are the value whatever the width.
  } else if (from_int && to.kind() == TypeKind::kDecimal) {
    n.conversion = LeafConversion::kIntToDecimal;
    n.scale_to = to.scale();
  } else if (from_int && to.kind() == TypeKind::kFloat64) {
    n.conversion = LeafConversion::kIntToDouble;
  } else if (from_int && to.kind() == TypeKind::kFloat32) {
    n.conversion = LeafConversion::kIntToFloat;
  } else if (from.kind() == TypeKind::kFloat32 && to.kind() == TypeKind::kFloat64) {
    n.conversion = LeafConversion::kFloatToDouble;
  } else if (from.kind() == TypeKind::kDate && to.kind() == TypeKind::kTimestampNtz) {
    n.conversion = LeafConversion::kDateToTimestampNtz;
  } else {
    return InvalidArgument(fmt::format("{} cannot be read as {}", from.ToString(), to.ToString()));
  }
  n.identity = n.conversion == LeafConversion::kCopy;
  return n;
}

class PlanBuilder {
 public:
  explicit PlanBuilder(const ConformInputs& in) : in_(in) {}

  Result<ConformPlan> Build() {
    SLUICE_ASSIGN_OR_RETURN(plan_.root, Node(*in_.table, in_.source, FieldPath(), "", true));
    return std::move(plan_);
  }

 private:
  uint32_t Add(ConformNode n) {
    plan_.nodes.push_back(std::move(n));
    return static_cast<uint32_t>(plan_.nodes.size() - 1);
  }
  uint32_t NullNode() {
    ConformNode n;
    n.kind = ConformNode::Kind::kNull;
    return Add(std::move(n));
  }

  // The source field a table field reads from, or nullopt.
  std::optional<size_t> Match(const Field& field, const Type& source) const {
    const std::vector<Field>& fields = source.fields();
    FieldMatch match = in_.match;
    if (match == FieldMatch::kFieldId) {
      bool any_id = false;
      for (const Field& f : fields) any_id = any_id || SourceFieldId(f).has_value();
      // A file written without field ids names its columns by physical name.
      if (!any_id) match = FieldMatch::kPhysicalName;
    }
    switch (match) {
      case FieldMatch::kName:
        return FindFieldIndex(source, field.name());
      case FieldMatch::kPhysicalName: {
        const std::string physical = PhysicalName(field);
        for (size_t i = 0; i < fields.size(); ++i) {
          if (fields[i].name() == physical) return i;
        }
        return std::nullopt;
      }
      case FieldMatch::kFieldId: {
        std::optional<int64_t> id = ColumnId(field);
        if (!id) return std::nullopt;
        for (size_t i = 0; i < fields.size(); ++i) {
          if (SourceFieldId(fields[i]) == id) return i;
        }
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

  // One leaf below `type` (at `path`), to tell a null struct from a present one when none of
  // the fields the output wants is in the file.
  static FieldPath FirstLeaf(const Type& type, FieldPath path) {
    if (!type.is_struct()) return path;
    for (const Field& f : type.fields()) {
      if (f.type()->kind() == TypeKind::kNull) continue;
      return FirstLeaf(*f.type(), path.Child(f.name()));
    }
    return path;
  }

  Unexpected<Error> Mismatch(std::string_view where, const Error& why) const {
    return InvalidArgument(fmt::format("{}: column {}: {}", in_.context,
                                       where.empty() ? std::string("(row)") : std::string(where),
                                       why.message()));
  }

  // `table` read from `source` (nullptr: absent) at `path` in the source. `collect` adds the
  // source columns read to the plan's projection (none below arrays and maps, which are read
  // whole).
  Result<uint32_t> Node(const Type& table, const Type* source, const FieldPath& path,
                        const std::string& where, bool collect) {
    if (source == nullptr || source->kind() == TypeKind::kNull) return NullNode();
    if (table.is_struct()) return StructNode(table, *source, path, where, collect);
    if (collect) plan_.source_columns.push_back(path.ToString());
    if (table.is_array()) {
      if (!source->is_array()) return Mismatch(where, ShapeError(*source, table));
      ConformNode n;
      n.kind = ConformNode::Kind::kArray;
      SLUICE_ASSIGN_OR_RETURN(uint32_t element,
                              Node(*table.element_type(), source->element_type().get(),
                                   path.Element(), where + "[]", false));
      n.identity = plan_.nodes[element].identity;
      n.children = {element};
      return Add(std::move(n));
    }
    if (table.is_map()) {
      if (!source->is_map()) return Mismatch(where, ShapeError(*source, table));
      ConformNode n;
      n.kind = ConformNode::Kind::kMap;
      SLUICE_ASSIGN_OR_RETURN(uint32_t key, Node(*table.key_type(), source->key_type().get(),
                                                 path.Key(), where + "{key}", false));
      SLUICE_ASSIGN_OR_RETURN(uint32_t value, Node(*table.value_type(), source->value_type().get(),
                                                   path.Value(), where + "{value}", false));
      n.identity = plan_.nodes[key].identity && plan_.nodes[value].identity;
      n.children = {key, value};
      return Add(std::move(n));
    }
    if (source->is_nested()) return Mismatch(where, ShapeError(*source, table));
    auto leaf = LeafFor(*source, table);
    if (!leaf.has_value()) return Mismatch(where, leaf.error());
    return Add(std::move(*leaf));
  }

  static Error ShapeError(const Type& source, const Type& table) {
    return Error(ErrorCode::kInvalidArgument,
                 fmt::format("{} cannot be read as {}", source.ToString(), table.ToString()));
  }

  Result<uint32_t> StructNode(const Type& table, const Type& source, const FieldPath& path,
                              const std::string& where, bool collect) {
    if (!source.is_struct()) return Mismatch(where, ShapeError(source, table));
    const bool top = path.empty();
    ConformNode n;
    n.kind = ConformNode::Kind::kStruct;
    // Every field of the source matched in order, each copied: the source value holds just
    // these fields (the projection leaves out only unmatched ones), so it is the output.
    bool identity = table.fields().size() == source.fields().size();
    const size_t columns_before = plan_.source_columns.size();
    for (size_t i = 0; i < table.fields().size(); ++i) {
      const Field& field = table.fields()[i];
      ConformNode::Member m;
      m.out_key = JsonKeyText(field.name());
      m.out_key += ':';
      const std::string child_where = where.empty()
                                          ? schema::QuoteFieldName(field.name())
                                          : where + "." + schema::QuoteFieldName(field.name());
      if (top && in_.constants != nullptr) {
        auto constant = in_.constants->find(field.name());
        if (constant != in_.constants->end()) {
          ConformNode c;
          c.kind = ConformNode::Kind::kConstant;
          c.constant = constant->second;
          m.child = Add(std::move(c));
          n.members.push_back(std::move(m));
          identity = false;
          continue;
        }
      }
      std::optional<size_t> s = Match(field, source);
      if (!s) {
        m.child = NullNode();
        identity = false;
        n.members.push_back(std::move(m));
        continue;
      }
      const Field& source_field = source.fields()[*s];
      m.source_key = JsonKeyText(source_field.name());
      SLUICE_ASSIGN_OR_RETURN(m.child, Node(*field.type(), source_field.type().get(),
                                            path.Child(source_field.name()), child_where, collect));
      identity =
          identity && *s == i && m.out_key == m.source_key + ":" && plan_.nodes[m.child].identity;
      n.members.push_back(std::move(m));
    }
    // Nothing wanted is in the file: read one leaf so that a null struct stays null.
    if (collect && !top && plan_.source_columns.size() == columns_before) {
      plan_.source_columns.push_back(FirstLeaf(source, path).ToString());
    }
    n.identity = identity;
    return Add(std::move(n));
  }

  const ConformInputs& in_;
  ConformPlan plan_;
};

// ---- scanning JSON text that the Parquet reader wrote -------------------------------------

size_t SkipSpace(std::string_view s, size_t pos) {
  while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\n' || s[pos] == '\t' || s[pos] == '\r')) {
    ++pos;
  }
  return pos;
}

// `pos` at a '"': the position after the closing quote, or npos.
size_t SkipString(std::string_view s, size_t pos) {
  for (++pos; pos < s.size(); ++pos) {
    if (s[pos] == '\\') {
      ++pos;
    } else if (s[pos] == '"') {
      return pos + 1;
    }
  }
  return std::string_view::npos;
}

// The position after the value starting at `pos`, or npos. Iterative: depth costs nothing.
size_t SkipValue(std::string_view s, size_t pos) {
  if (pos >= s.size()) return std::string_view::npos;
  if (s[pos] == '"') return SkipString(s, pos);
  if (s[pos] != '{' && s[pos] != '[') {
    while (pos < s.size() && s[pos] != ',' && s[pos] != '}' && s[pos] != ']' && s[pos] != ' ' &&
           s[pos] != '\n') {
      ++pos;
    }
    return pos;
  }
  size_t depth = 0;
  while (pos < s.size()) {
    const char c = s[pos];
    if (c == '"') {
      pos = SkipString(s, pos);
      if (pos == std::string_view::npos) return pos;
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return std::string_view::npos;
      if (--depth == 0) return pos + 1;
    }
    ++pos;
  }
  return std::string_view::npos;
}

// The members of an object (keys with their quotes) or the items of an array (keys empty).
bool SplitContainer(std::string_view s, bool object, std::vector<RowConformer::Span>& out) {
  out.clear();
  const char open = object ? '{' : '[';
  const char close = object ? '}' : ']';
  size_t pos = SkipSpace(s, 0);
  if (pos >= s.size() || s[pos] != open) return false;
  pos = SkipSpace(s, pos + 1);
  if (pos < s.size() && s[pos] == close) return true;
  while (pos < s.size()) {
    RowConformer::Span span;
    if (object) {
      if (s[pos] != '"') return false;
      const size_t key_end = SkipString(s, pos);
      if (key_end == std::string_view::npos) return false;
      span.key = s.substr(pos, key_end - pos);
      pos = SkipSpace(s, key_end);
      if (pos >= s.size() || s[pos] != ':') return false;
      pos = SkipSpace(s, pos + 1);
    }
    const size_t end = SkipValue(s, pos);
    if (end == std::string_view::npos) return false;
    span.value = s.substr(pos, end - pos);
    out.push_back(span);
    pos = SkipSpace(s, end);
    if (pos >= s.size()) return false;
    if (s[pos] == close) return true;
    if (s[pos] != ',') return false;
    pos = SkipSpace(s, pos + 1);
  }
  return false;
}

// The characters of a JSON string's text (with its quotes), escapes resolved.
bool UnescapeJsonString(std::string_view quoted, std::string& out) {
  out.clear();
  auto parsed = ParseJson(quoted);
  if (!parsed.has_value() || !parsed->is_string()) return false;
  out = parsed->as_string();
  return true;
}

void AppendZeros(std::string& out, int n) { out.append(static_cast<size_t>(n), '0'); }

}  // namespace

Result<ConformPlan> BuildConformPlan(const ConformInputs& inputs) {
  return PlanBuilder(inputs).Build();
}

std::vector<RowConformer::Span>& RowConformer::Scratch(size_t depth) {
  if (scratch_.size() <= depth) scratch_.resize(depth + 1);
  return scratch_[depth];
}

Status RowConformer::Conform(std::string_view row, std::string& out) {
  const size_t start = out.size();
  if (!Write(plan_->root, row, 0, out)) {
    out.resize(start);
    return InvalidArgument(
        fmt::format("a row that is not the JSON expected: {}", EscapeForMessage(row, 120)));
  }
  return Ok();
}

void RowConformer::ConformEmpty(std::string& out) {
  const ConformNode& root = plan_->nodes[plan_->root];
  out += '{';
  bool first = true;
  for (const ConformNode::Member& m : root.members) {
    if (!first) out += ',';
    first = false;
    out += m.out_key;
    const ConformNode& child = plan_->nodes[m.child];
    out += child.kind == ConformNode::Kind::kConstant ? std::string_view(child.constant) : "null";
  }
  out += '}';
}

bool RowConformer::Write(uint32_t index, std::string_view value, size_t depth, std::string& out) {
  const ConformNode& n = plan_->nodes[index];
  if (n.kind == ConformNode::Kind::kConstant) {
    out += n.constant;
    return true;
  }
  if (n.kind == ConformNode::Kind::kNull || value == "null") {
    out += "null";
    return true;
  }
  if (n.identity) {
    out += value;
    return true;
  }
  switch (n.kind) {
    case ConformNode::Kind::kLeaf:
      return WriteLeaf(n, value, out);
    case ConformNode::Kind::kStruct:
      return WriteStruct(n, value, depth, out);
    case ConformNode::Kind::kArray: {
      if (!SplitContainer(value, false, Scratch(depth))) return false;
      out += '[';
      // Deeper calls use deeper scratch vectors, which may move this one: index it each time.
      for (size_t i = 0; i < scratch_[depth].size(); ++i) {
        if (i > 0) out += ',';
        if (!Write(n.children[0], scratch_[depth][i].value, depth + 1, out)) return false;
      }
      out += ']';
      return true;
    }
    case ConformNode::Kind::kMap: {
      if (!SplitContainer(value, true, Scratch(depth))) return false;
      out += '{';
      for (size_t i = 0; i < scratch_[depth].size(); ++i) {
        if (i > 0) out += ',';
        const Span entry = scratch_[depth][i];
        if (!WriteMapKey(plan_->nodes[n.children[0]], entry.key, depth + 1, out)) return false;
        out += ':';
        if (!Write(n.children[1], entry.value, depth + 1, out)) return false;
      }
      out += '}';
      return true;
    }
    case ConformNode::Kind::kNull:
    case ConformNode::Kind::kConstant:
      break;
  }
  return true;
}

bool RowConformer::WriteStruct(const ConformNode& n, std::string_view value, size_t depth,
                               std::string& out) {
  if (!SplitContainer(value, true, Scratch(depth))) return false;
  out += '{';
  size_t cursor = 0;
  for (size_t i = 0; i < n.members.size(); ++i) {
    const ConformNode::Member& m = n.members[i];
    if (i > 0) out += ',';
    out += m.out_key;
    std::string_view member = "null";
    if (!m.source_key.empty()) {
      // Members mostly come in the output's order: try the next one first.
      const std::vector<Span>& spans = scratch_[depth];
      bool found = false;
      for (size_t k = 0; k < spans.size() && !found; ++k) {
        const size_t at = (cursor + k) % spans.size();
        if (spans[at].key == m.source_key) {
          member = spans[at].value;
          cursor = at + 1;
          found = true;
        }
      }
    }
    if (!Write(m.child, member, depth + 1, out)) return false;
  }
  out += '}';
  return true;
}

bool RowConformer::WriteMapKey(const ConformNode& key_node, std::string_view key, size_t depth,
                               std::string& out) {
  if (key_node.identity) {
    out += key;
    return true;
  }
  // A key that is not a string is its value's JSON text in a string: converted as a value,
  // then quoted again.
  if (!UnescapeJsonString(key, key_buffer_)) return false;
  const std::string text = key_buffer_;
  std::string converted;
  const uint32_t index = static_cast<uint32_t>(&key_node - plan_->nodes.data());
  if (!Write(index, text, depth, converted)) return false;
  parquet::AppendJsonText(out, converted);
  return true;
}

bool RowConformer::WriteLeaf(const ConformNode& n, std::string_view value, std::string& out) {
  switch (n.conversion) {
    case LeafConversion::kCopy:
      out += value;
      return true;
    case LeafConversion::kIntToDecimal:
      out += value;
      if (n.scale_to > 0) {
        out += '.';
        AppendZeros(out, n.scale_to);
      }
      return true;
    case LeafConversion::kDecimalRescale:
      out += value;
      if (n.scale_from == 0) out += '.';
      AppendZeros(out, n.scale_to - n.scale_from);
      return true;
    case LeafConversion::kIntToDouble:
    case LeafConversion::kIntToFloat: {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || end != value.data() + value.size()) return false;
      if (n.conversion == LeafConversion::kIntToDouble) {
        parquet::AppendDouble(out, static_cast<double>(v));
      } else {
        parquet::AppendFloat(out, static_cast<float>(v));
      }
      return true;
    }
    case LeafConversion::kFloatToDouble: {
      if (!value.empty() && value.front() == '"') {  // "NaN", "Infinity", "-Infinity"
        out += value;
        return true;
      }
      float f = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), f);
      if (ec != std::errc() || end != value.data() + value.size()) return false;
      parquet::AppendDouble(out, static_cast<double>(f));
      return true;
    }
    case LeafConversion::kDateToTimestampNtz:
      if (value.size() < 2 || value.front() != '"' || value.back() != '"') return false;
      out += value.substr(0, value.size() - 1);
      out += "T00:00:00\"";
      return true;
  }
  return false;
}

}  // namespace sluice::table::internal
