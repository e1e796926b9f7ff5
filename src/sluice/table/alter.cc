#include "sluice/table/alter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "sluice/base/json_writer.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/evolution/table_merge.h"
#include "sluice/table/column_mapping.h"
#include "sluice/table/constraints.h"
#include "sluice/table/properties.h"
#include "sluice/table/protocol.h"
#include "sluice/table/write.h"

namespace sluice::table {
namespace {

using schema::Field;
using schema::FieldPath;
using schema::PathSegment;
using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Edit the fields of the struct that `parent` names (the root for an empty path), stepping
// through arrays and maps as the path says. Names match ignoring case, as Delta resolves them.
Result<TypePtr> EditStruct(const TypePtr& type, std::span<const PathSegment> parent,
                           const std::function<Status(std::vector<Field>&)>& edit,
                           const std::string& where) {
  if (parent.empty()) {
    if (!type->is_struct()) {
      return InvalidArgument(
          fmt::format("{} is not a struct", where.empty() ? "the table" : where));
    }
    std::vector<Field> fields = type->fields();
    SLUICE_TRY(edit(fields));
    return Type::Struct(std::move(fields));
  }
  const PathSegment& step = parent.front();
  switch (step.kind) {
    case PathSegment::Kind::kField: {
      if (!type->is_struct()) return InvalidArgument(fmt::format("{} is not a struct", where));
      std::vector<size_t> found = type->FindFieldsIgnoreCase(step.name);
      if (found.empty()) {
        return InvalidArgument(
            fmt::format("[DELTA_COLUMN_NOT_FOUND_IN_SCHEMA] column {} does not exist",
                        where.empty() ? step.name : where + "." + step.name));
      }
      std::vector<Field> fields = type->fields();
      Field& f = fields[found[0]];
      SLUICE_ASSIGN_OR_RETURN(TypePtr inner,
                              EditStruct(f.type(), parent.subspan(1), edit,
                                         where.empty() ? f.name() : where + "." + f.name()));
      f.set_type(std::move(inner));
      return Type::Struct(std::move(fields));
    }
    case PathSegment::Kind::kElement: {
      if (type->kind() != TypeKind::kArray) {
        return InvalidArgument(fmt::format("{} is not an array", where));
      }
      SLUICE_ASSIGN_OR_RETURN(
          TypePtr element, EditStruct(type->element_type(), parent.subspan(1), edit, where + "[]"));
      return Type::Array(std::move(element), type->contains_null());
    }
    case PathSegment::Kind::kKey:
    case PathSegment::Kind::kValue: {
      if (type->kind() != TypeKind::kMap) {
        return InvalidArgument(fmt::format("{} is not a map", where));
      }
      bool key = step.kind == PathSegment::Kind::kKey;
      SLUICE_ASSIGN_OR_RETURN(
          TypePtr inner, EditStruct(key ? type->key_type() : type->value_type(), parent.subspan(1),
                                    edit, where + (key ? "{key}" : "{value}")));
      return key ? Type::Map(std::move(inner), type->value_type(), type->value_contains_null())
                 : Type::Map(type->key_type(), std::move(inner), type->value_contains_null());
    }
  }
  return type;
}

Result<schema::SchemaPtr> Edit(const schema::Schema& schema, const FieldPath& parent,
                               const std::function<Status(std::vector<Field>&)>& edit) {
  std::vector<PathSegment> segments = parent.segments();
  SLUICE_ASSIGN_OR_RETURN(TypePtr type, EditStruct(schema.struct_type(), segments, edit, ""));
  return schema::Schema::FromStruct(std::move(type), schema.info());
}

std::optional<size_t> FindIgnoreCase(const std::vector<Field>& fields, std::string_view name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (Lower(fields[i].name()) == Lower(name)) return i;
  }
  return std::nullopt;
}

// "a.b TYPE [NOT NULL] [COMMENT 'c'] [FIRST | AFTER x]": the path, the field, the position.
struct NewColumn {
  FieldPath path;
  Field field{"", nullptr};
  bool first = false;
  std::string after;
};

Result<NewColumn> ParseNewColumn(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  size_t start = i;
  bool quoted = false;
  for (; i < text.size(); ++i) {
    if (text[i] == '`') quoted = !quoted;
    if (!quoted && std::isspace(static_cast<unsigned char>(text[i]))) break;
  }
  std::string path_text(text.substr(start, i - start));
  std::string rest(text.substr(i));
  NewColumn out;
  SLUICE_ASSIGN_OR_RETURN(out.path, FieldPath::Parse(path_text));
  if (out.path.empty() || out.path.back().kind != PathSegment::Kind::kField) {
    return InvalidArgument(fmt::format("--add-column: '{}' does not name a column", path_text));
  }
  // The position clause, at the end.
  std::string lower = Lower(rest);
  size_t after = lower.rfind(" after ");
  if (after != std::string::npos && lower.find('\'', after) == std::string::npos) {
    out.after = rest.substr(after + 7);
    while (!out.after.empty() && std::isspace(static_cast<unsigned char>(out.after.back()))) {
      out.after.pop_back();
    }
    if (!out.after.empty() && out.after.front() == '`' && out.after.back() == '`') {
      out.after = out.after.substr(1, out.after.size() - 2);
    }
    rest.resize(after);
  } else if (lower.size() >= 6 && lower.ends_with(" first")) {
    out.first = true;
    rest.resize(rest.size() - 6);
  }
  std::string ddl = "`x` " + rest;
  SLUICE_ASSIGN_OR_RETURN(auto parsed, dialects::spark::ReadDdl(ddl));
  if (parsed.value->fields().size() != 1) {
    return InvalidArgument(fmt::format("--add-column: '{}' is not one column", text));
  }
  out.field = parsed.value->fields()[0];
  out.field.set_name(out.path.back().name);
  return out;
}

bool IsPartitionColumn(const Metadata& m, const FieldPath& path) {
  if (path.size() != 1) return false;
  for (const std::string& p : m.partition_columns) {
    if (Lower(p) == Lower(path.back().name)) return true;
  }
  return false;
}

// Turn column mapping on in name mode, keeping names as physical names (Delta's upgrade).
Status EnableNameMapping(Metadata& m, schema::SchemaPtr& schema, std::vector<std::string>& notes) {
  SLUICE_ASSIGN_OR_RETURN(ColumnMappingMode mode, MappingModeOf(m));
  if (mode != ColumnMappingMode::kNone) return Ok();
  int64_t max_id = 0;
  SLUICE_ASSIGN_OR_RETURN(schema, AssignColumnMapping(*schema, &max_id, true));
  m.configuration[std::string(kColumnMappingModeKey)] = "name";
  m.configuration[std::string(kMaxColumnIdKey)] = std::to_string(max_id);
  notes.push_back("turned on column mapping (delta.columnMapping.mode = name)");
  return Ok();
}

struct Plan {
  Metadata metadata;
  schema::SchemaPtr schema;
  std::string operation;
  JsonValue parameters = JsonValue::Object();
  std::vector<std::string> notes;
  bool reads_data = false;
  // delta.minReaderVersion / minWriterVersion asked for: the protocol, not the configuration.
  int min_reader_version = 0;
  int min_writer_version = 0;
};

// RENAME COLUMN ... TO takes one identifier, not a path: `a.b` with backticks is one name
// holding a dot.
Result<std::string> NewColumnName(std::string_view text, const FieldPath& old_path) {
  if (text.size() >= 2 && text.front() == '`' && text.back() == '`') {
    std::string name;
    for (size_t i = 1; i + 1 < text.size(); ++i) {
      name.push_back(text[i]);
      if (text[i] == '`' && i + 2 < text.size() && text[i + 1] == '`') ++i;  // `` is one `
    }
    if (!name.empty()) return name;
  }
  if (text.empty()) return InvalidArgument("--rename-column: the new name is empty");
  if (text.find('.') != std::string_view::npos) {
    const std::string_view last = text.substr(text.rfind('.') + 1);
    return InvalidArgument(fmt::format(
        "--rename-column: the new name '{}' is a path; RENAME COLUMN ... TO takes one name, "
        "and the column stays where it is: give '{}' to rename {} to {}{}, or quote a name that "
        "holds a dot in backticks ('`{}`')",
        text, last, old_path.ToString(),
        old_path.Parent().empty() ? "" : old_path.Parent().ToString() + ".", last, text));
  }
  return std::string(text);
}

Status AddColumn(const Snapshot& s, const AlterChange& c, Plan& p) {
  SLUICE_ASSIGN_OR_RETURN(NewColumn col, ParseNewColumn(c.a));
  SLUICE_ASSIGN_OR_RETURN(
      p.schema, Edit(*p.schema, col.path.Parent(), [&](std::vector<Field>& fields) -> Status {
        if (FindIgnoreCase(fields, col.field.name())) {
          return InvalidArgument(fmt::format(
              "[DELTA_DUPLICATE_COLUMNS_FOUND] column {} already exists", col.path.ToString()));
        }
        size_t at = fields.size();
        if (col.first) at = 0;
        if (!col.after.empty()) {
          auto found = FindIgnoreCase(fields, col.after);
          if (!found) {
            return InvalidArgument(fmt::format("AFTER {}: no such column", col.after));
          }
          at = *found + 1;
        }
        fields.insert(fields.begin() + static_cast<ptrdiff_t>(at), col.field);
        return Ok();
      }));
  SLUICE_ASSIGN_OR_RETURN(ColumnMappingMode mode, MappingModeOf(p.metadata));
  SLUICE_ASSIGN_OR_RETURN(
      evolution::TableEvolutionReport report,
      evolution::CheckTableEvolution(*s.schema, *p.schema,
                                     {.column_mapping = mode != ColumnMappingMode::kNone}));
  if (!report.ok()) {
    const auto& v = report.violations.front();
    return InvalidArgument(fmt::format("[{}] {}", v.error_class, v.message));
  }
  p.operation = "ADD COLUMNS";
  p.parameters.Set("columns", JsonValue::String(c.a));
  return Ok();
}

Status RenameOrDrop(const Snapshot&, const AlterChange& c, Plan& p, bool drop) {
  SLUICE_ASSIGN_OR_RETURN(FieldPath path, FieldPath::Parse(c.a));
  if (path.empty() || path.back().kind != PathSegment::Kind::kField) {
    return InvalidArgument(fmt::format("'{}' does not name a column", c.a));
  }
  if (IsPartitionColumn(p.metadata, path)) {
    return InvalidArgument(
        drop ? fmt::format("[DELTA_UNSUPPORTED_DROP_PARTITION_COLUMN] cannot drop partition "
                           "column {}",
                           c.a)
             : fmt::format("cannot rename partition column {}: sluice does not rename "
                           "partition columns",
                           c.a));
  }
  SLUICE_TRY(EnableNameMapping(p.metadata, p.schema, p.notes));
  std::string old_name = path.back().name;
  std::string new_name;
  if (!drop) {
    SLUICE_ASSIGN_OR_RETURN(new_name, NewColumnName(c.b, path));
  }
  SLUICE_ASSIGN_OR_RETURN(
      p.schema, Edit(*p.schema, path.Parent(), [&](std::vector<Field>& fields) -> Status {
        auto found = FindIgnoreCase(fields, old_name);
        if (!found) {
          return InvalidArgument(
              fmt::format("[DELTA_COLUMN_NOT_FOUND_IN_SCHEMA] column {} does not exist", c.a));
        }
        if (drop) {
          if (fields.size() == 1) {
            return InvalidArgument(
                "[DELTA_DROP_COLUMN_ON_SINGLE_FIELD_SCHEMA] cannot drop the only column");
          }
          fields.erase(fields.begin() + static_cast<ptrdiff_t>(*found));
          return Ok();
        }
        auto clash = FindIgnoreCase(fields, new_name);
        if (clash && *clash != *found) {
          return InvalidArgument(fmt::format(
              "[DELTA_DUPLICATE_COLUMNS_FOUND] cannot rename {} to {}: the name is taken", c.a,
              new_name));
        }
        fields[*found].set_name(new_name);
        return Ok();
      }));
  // Constraints that read the column stop the change, as in Delta.
  Result<TableConstraints> still = TableConstraints::Compile(p.metadata, *p.schema);
  if (!still.has_value()) {
    return InvalidArgument(
        fmt::format("[DELTA_CONSTRAINT_DEPENDENT_COLUMN_CHANGE] cannot {} column {}: {}",
                    drop ? "drop" : "rename", c.a, still.error().message()));
  }
  if (drop) {
    p.operation = "DROP COLUMNS";
    p.parameters.Set("columns", JsonValue::String("[\"" + c.a + "\"]"));
  } else {
    p.operation = "RENAME COLUMN";
    p.parameters.Set("oldColumnPath", JsonValue::String(c.a));
    p.parameters.Set("newColumnPath", JsonValue::String(path.Parent().Child(new_name).ToString()));
  }
  return Ok();
}

Status Widen(const Snapshot& s, const AlterChange& c, Plan& p) {
  SLUICE_ASSIGN_OR_RETURN(NewColumn col, ParseNewColumn(c.a));
  const schema::Field* old = s.schema->FindField(col.path);
  if (old == nullptr) {
    std::vector<std::string> names;
    return InvalidArgument(fmt::format(
        "[DELTA_COLUMN_NOT_FOUND_IN_SCHEMA] column {} does not exist", col.path.ToString()));
  }
  if (!evolution::IsDeltaSupportedWidening(*old->type(), *col.field.type())) {
    return InvalidArgument(fmt::format(
        "[DELTA_UNSUPPORTED_ALTER_TABLE_CHANGE_COL_OP] ALTER TABLE CHANGE COLUMN is not "
        "supported for changing column {} from {} to {}",
        col.path.ToString(), dialects::spark::DataTypeSql(*old->type()),
        dialects::spark::DataTypeSql(*col.field.type())));
  }
  if (!PropertyTrue(p.metadata, "delta.enableTypeWidening")) {
    p.metadata.configuration["delta.enableTypeWidening"] = "true";
    p.notes.push_back("turned on type widening (delta.enableTypeWidening = true)");
  }
  SLUICE_ASSIGN_OR_RETURN(
      p.schema, Edit(*p.schema, col.path.Parent(), [&](std::vector<Field>& fields) -> Status {
        auto found = FindIgnoreCase(fields, col.path.back().name);
        fields[*found].set_type(col.field.type());
        return Ok();
      }));
  p.operation = "CHANGE COLUMN";
  p.parameters.Set("column", JsonValue::String(col.path.ToString()));
  return Ok();
}

Status SetProperty(const AlterChange& c, Plan& p) {
  if (Lower(c.a).starts_with("delta.constraints.")) {
    return InvalidArgument("CHECK constraints are added with --add-constraint NAME EXPR");
  }
  SLUICE_ASSIGN_OR_RETURN(TableProperties given, SplitTableProperties(StringMap{{c.a, c.b}}));
  if (given.min_reader_version > 0 || given.min_writer_version > 0) {
    // Delta keeps these in the protocol: raised when higher, a lower one ignored (never a
    // downgrade).
    p.min_reader_version = given.min_reader_version;
    p.min_writer_version = given.min_writer_version;
  } else if (c.a == kColumnMappingModeKey) {
    SLUICE_ASSIGN_OR_RETURN(ColumnMappingMode current, MappingModeOf(p.metadata));
    if (c.b == "name") {
      SLUICE_TRY(EnableNameMapping(p.metadata, p.schema, p.notes));
    } else if (!(c.b == "none" && current == ColumnMappingMode::kNone) &&
               !(c.b == "id" && current == ColumnMappingMode::kId)) {
      return InvalidArgument(fmt::format(
          "[DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE_CHANGE] changing column mapping mode to '{}' "
          "is not supported",
          c.b));
    }
  } else {
    for (const auto& [key, value] : given.configuration) p.metadata.configuration[key] = value;
  }
  p.operation = "SET TBLPROPERTIES";
  JsonValue props = JsonValue::Object();
  props.Set(c.a, JsonValue::String(c.b));
  p.parameters.Set("properties", JsonValue::String(ToJson(props)));
  return Ok();
}

}  // namespace

Result<AlterResult> AlterTable(std::shared_ptr<FileSystem> fs, const std::string& root,
                               const AlterChange& change, const RowSource& rows) {
  SLUICE_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(fs, root));
  const Snapshot* s = txn.snapshot();
  if (s == nullptr) return NotFound(fmt::format("no Delta table at {}", root));
  // Readable now; whether sluice may write it is judged on the table the change leaves (below),
  // so that a change turning off a feature sluice does not honour is allowed.
  SLUICE_TRY(CheckReadable(s->protocol));
  Plan p{s->metadata, s->schema, "", JsonValue::Object(), {}, false};
  switch (change.kind) {
    case AlterChange::Kind::kAddColumn:
      SLUICE_TRY(AddColumn(*s, change, p));
      break;
    case AlterChange::Kind::kRenameColumn:
      SLUICE_TRY(RenameOrDrop(*s, change, p, false));
      break;
    case AlterChange::Kind::kDropColumn:
      SLUICE_TRY(RenameOrDrop(*s, change, p, true));
      break;
    case AlterChange::Kind::kWiden:
      SLUICE_TRY(Widen(*s, change, p));
      break;
    case AlterChange::Kind::kSetProperty:
      SLUICE_TRY(SetProperty(change, p));
      break;
    case AlterChange::Kind::kUnsetProperty: {
      auto it = p.metadata.configuration.find(change.a);
      if (it == p.metadata.configuration.end()) {
        return InvalidArgument(fmt::format(
            "[DELTA_UNSET_NON_EXISTENT_PROPERTY] property {} does not exist in the table",
            change.a));
      }
      if (change.a == kColumnMappingModeKey || change.a == kMaxColumnIdKey) {
        return InvalidArgument("column mapping cannot be turned off once on");
      }
      p.metadata.configuration.erase(it);
      p.operation = "UNSET TBLPROPERTIES";
      p.parameters.Set("properties", JsonValue::String("[\"" + change.a + "\"]"));
      break;
    }
    case AlterChange::Kind::kAddConstraint: {
      std::string key = ConstraintKey(change.a);
      if (auto it = p.metadata.configuration.find(key); it != p.metadata.configuration.end()) {
        return InvalidArgument(fmt::format(
            "[DELTA_CONSTRAINT_ALREADY_EXISTS] Constraint '{}' already exists. Please delete the "
            "old constraint first. Old constraint: {}",
            Lower(change.a), it->second));
      }
      Metadata only = p.metadata;
      std::erase_if(only.configuration,
                    [](const auto& kv) { return kv.first.starts_with("delta.constraints."); });
      only.configuration[key] = change.b;
      SLUICE_ASSIGN_OR_RETURN(TableConstraints check, TableConstraints::Compile(only, *p.schema));
      if (!rows) return Internal("adding a constraint needs the table's rows");
      uint64_t broken = 0;
      SLUICE_TRY(rows([&](const JsonValue& row) -> Status {
        SLUICE_ASSIGN_OR_RETURN(auto v, check.Check(row));
        if (v) ++broken;
        return Ok();
      }));
      if (broken > 0) {
        return Fail(ErrorCode::kIncompatible,
                    fmt::format("[DELTA_NEW_CHECK_CONSTRAINT_VIOLATION] {} rows in {} violate the "
                                "new CHECK constraint ({})",
                                broken, root, change.b));
      }
      p.metadata.configuration[key] = change.b;
      p.operation = "ADD CONSTRAINT";
      p.parameters.Set("name", JsonValue::String(Lower(change.a)));
      p.parameters.Set("expr", JsonValue::String(change.b));
      p.reads_data = true;
      break;
    }
    case AlterChange::Kind::kDropConstraint: {
      auto it = p.metadata.configuration.find(ConstraintKey(change.a));
      if (it == p.metadata.configuration.end()) {
        return InvalidArgument(fmt::format(
            "[DELTA_CONSTRAINT_DOES_NOT_EXIST] Cannot drop nonexistent constraint {} from table "
            "{}",
            Lower(change.a), root));
      }
      p.metadata.configuration.erase(it);
      p.operation = "DROP CONSTRAINT";
      p.parameters.Set("name", JsonValue::String(Lower(change.a)));
      break;
    }
  }
  SLUICE_ASSIGN_OR_RETURN(auto evolved,
                          EvolvedMetadata(s->protocol, p.metadata, *s->schema, *p.schema, 0));
  if (p.min_reader_version > 0 || p.min_writer_version > 0) {
    Protocol raised = RaiseProtocol(evolved.first, p.min_reader_version, p.min_writer_version);
    if (raised.min_reader_version == evolved.first.min_reader_version &&
        raised.min_writer_version == evolved.first.min_writer_version) {
      p.notes.push_back(fmt::format(
          "the protocol stays ({},{}): {} asks for no more, and a protocol is never downgraded",
          raised.min_reader_version, raised.min_writer_version, change.a));
    } else {
      p.notes.push_back(fmt::format(
          "raised the protocol from ({},{}) to ({},{})", evolved.first.min_reader_version,
          evolved.first.min_writer_version, raised.min_reader_version, raised.min_writer_version));
    }
    evolved.first = std::move(raised);
  }
  SLUICE_TRY(CheckWritable(evolved.first, evolved.second, *p.schema));
  txn.SetMetadata(std::move(evolved.second));
  txn.SetProtocol(std::move(evolved.first));
  if (p.reads_data) txn.ReadAllFiles();
  CommitOptions co;
  co.operation = p.operation;
  co.operation_parameters = p.parameters;
  SLUICE_ASSIGN_OR_RETURN(CommitResult done, txn.Commit(co));
  return AlterResult{done.version, std::move(p.notes)};
}

}  // namespace sluice::table
