#include "sluice/sqlgen/align_sql.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "sluice/dialects/spark/spark.h"
#include "sluice/dialects/sql/sql.h"

namespace sluice::sqlgen {

using schema::Field;
using schema::Type;

namespace {

// The alias an exploded element goes by in the branch that unnests it.
constexpr std::string_view kElementAlias = "_elem";

// A string literal (sql_text.h: Spark escapes quotes with a backslash).
std::string Literal(Dialect dialect, std::string_view text) { return QuoteString(dialect, text); }

// An identifier, quoted when the dialect needs it: Spark as its quoteIfNeeded does, DuckDB also
// for its reserved words (a column named `order` must be "order").
std::string Ident(Dialect dialect, std::string_view name) {
  return dialect == Dialect::kSpark
             ? dialects::spark::QuoteIdentifier(name)
             : dialects::sql::QuoteIdentifier(name, dialects::sql::SqlDialect::kDuckDb);
}

// A one-argument lambda. DuckDB's own form is `lambda x: body` (its `x -> body` form is
// deprecated since 1.3); Spark only has the arrow.
std::string Lambda(Dialect dialect, std::string_view var, std::string_view body) {
  return dialect == Dialect::kSpark ? fmt::format("{} -> {}", var, body)
                                    : fmt::format("lambda {}: {}", var, body);
}

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += separator;
    out += parts[i];
  }
  return out;
}

Result<std::string> RenderStruct(const Expr& expr, Dialect dialect) {
  std::vector<std::string> members;
  for (const StructMember& m : expr.fields) {
    SLUICE_ASSIGN_OR_RETURN(std::string value, RenderExpr(*m.expr, dialect));
    members.push_back(dialect == Dialect::kSpark ? Literal(dialect, m.name) + ", " + value
                                                 : Ident(dialect, m.name) + " := " + value);
  }
  std::string built =
      (dialect == Dialect::kSpark ? "named_struct(" : "struct_pack(") + Join(members, ", ") + ")";
  if (expr.null_if == nullptr) return built;
  // A NULL struct stays NULL: building it field by field would give a struct of NULLs.
  SLUICE_ASSIGN_OR_RETURN(std::string test, RenderExpr(*expr.null_if, dialect));
  return fmt::format("CASE WHEN {} IS NULL THEN NULL ELSE {} END", test, built);
}

Result<std::string> RenderLambda(const Expr& expr, Dialect dialect) {
  SLUICE_ASSIGN_OR_RETURN(std::string source, RenderExpr(*expr.operand, dialect));
  SLUICE_ASSIGN_OR_RETURN(std::string body, RenderExpr(*expr.body, dialect));
  if (expr.kind == ExprKind::kArrayTransform) {
    return fmt::format("{}({}, {})", dialect == Dialect::kSpark ? "transform" : "list_transform",
                       source, Lambda(dialect, expr.var, body));
  }
  if (dialect == Dialect::kDuckDb) {
    // DuckDB has no transform_values: rebuild the entries. The value goes through a one-element
    // list so that the body's lambda variable names it, as in the Spark form.
    return fmt::format(
        "map_from_entries(list_transform(map_entries({}), lambda e_{}: struct_pack(key := "
        "e_{}.key, value := list_transform([e_{}.value], {})[1])))",
        source, expr.var, expr.var, expr.var, Lambda(dialect, expr.var, body));
  }
  // The key variable is named after the value's so nested lambdas never shadow each other.
  return fmt::format("transform_values({}, (k_{}, {}) -> {})", source, expr.var, expr.var, body);
}

}  // namespace

std::string TypeSql(const Type& type, Dialect dialect) {
  schema::TypePtr nullable = schema::AsNullable(std::make_shared<Type>(type));
  if (dialect == Dialect::kSpark) return dialects::spark::DataTypeSql(*nullable);
  return dialects::sql::SqlType(*nullable, dialects::sql::SqlDialect::kDuckDb);
}

std::string QuoteRelation(Dialect dialect, std::string_view name) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    parts.push_back(Ident(dialect, name.substr(start, dot - start)));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return Join(parts, ".");
}

Result<std::string> RenderExpr(const Expr& expr, Dialect dialect) {
  switch (expr.kind) {
    case ExprKind::kColumn: {
      if (expr.path.empty()) return Internal("a column expression without a path");
      std::vector<std::string> parts;
      for (const std::string& p : expr.path) parts.push_back(Ident(dialect, p));
      return Join(parts, ".");
    }
    case ExprKind::kCast: {
      SLUICE_ASSIGN_OR_RETURN(std::string operand, RenderExpr(*expr.operand, dialect));
      std::string_view fn = !expr.lossy                  ? "CAST"
                            : dialect == Dialect::kSpark ? "try_cast"
                                                         : "TRY_CAST";
      return fmt::format("{}({} AS {})", fn, operand, TypeSql(*expr.type, dialect));
    }
    case ExprKind::kNull:
      return fmt::format("CAST(NULL AS {})", TypeSql(*expr.type, dialect));
    case ExprKind::kStruct:
      return RenderStruct(expr, dialect);
    case ExprKind::kArrayTransform:
    case ExprKind::kMapValues:
      return RenderLambda(expr, dialect);
  }
  return Internal("unknown expression kind");
}

namespace {

// An SQL integer counting the values of `expr` whose lossy cast failed (a non-NULL value that
// try_cast turned into NULL), or nullopt when `expr` has no lossy cast.
Result<std::optional<std::string>> FailureCount(const Expr& expr, Dialect dialect) {
  switch (expr.kind) {
    case ExprKind::kColumn:
    case ExprKind::kNull:
      return std::optional<std::string>();
    case ExprKind::kCast: {
      if (!expr.lossy) return std::optional<std::string>();
      SLUICE_ASSIGN_OR_RETURN(std::string operand, RenderExpr(*expr.operand, dialect));
      SLUICE_ASSIGN_OR_RETURN(std::string cast, RenderExpr(expr, dialect));
      return std::optional<std::string>(
          fmt::format("CASE WHEN {} IS NOT NULL AND {} IS NULL THEN 1 ELSE 0 END", operand, cast));
    }
    case ExprKind::kStruct: {
      std::vector<std::string> parts;
      for (const StructMember& m : expr.fields) {
        SLUICE_ASSIGN_OR_RETURN(std::optional<std::string> c, FailureCount(*m.expr, dialect));
        if (c.has_value()) parts.push_back(*c);
      }
      if (parts.empty()) return std::optional<std::string>();
      return std::optional<std::string>(parts.size() == 1 ? parts[0]
                                                          : "(" + Join(parts, " + ") + ")");
    }
    case ExprKind::kArrayTransform:
    case ExprKind::kMapValues: {
      SLUICE_ASSIGN_OR_RETURN(std::optional<std::string> body, FailureCount(*expr.body, dialect));
      if (!body.has_value()) return body;
      SLUICE_ASSIGN_OR_RETURN(std::string source, RenderExpr(*expr.operand, dialect));
      if (expr.kind == ExprKind::kMapValues) source = "map_values(" + source + ")";
      // Summed over the elements; a NULL array or map counts nothing.
      if (dialect == Dialect::kSpark) {
        return std::optional<std::string>(
            fmt::format("coalesce(aggregate({}, 0, (n_{}, {}) -> n_{} + {}), 0)", source, expr.var,
                        expr.var, expr.var, *body));
      }
      return std::optional<std::string>(fmt::format("coalesce(list_sum(list_transform({}, {})), 0)",
                                                    source, Lambda(dialect, expr.var, *body)));
    }
  }
  return Internal("unknown expression kind");
}

// "<count> AS _cast_failures" for a version's row: 0 when it has no lossy cast.
Result<std::string> FailureColumn(const VersionPlan& plan, Dialect dialect) {
  std::vector<std::string> parts;
  for (const ColumnPlan& c : plan.columns) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<std::string> n, FailureCount(*c.expr, dialect));
    if (n.has_value()) parts.push_back(*n);
  }
  std::string sum = parts.empty() ? "0" : Join(parts, " + ");
  return fmt::format("CAST({} AS {}) AS {}", sum, dialect == Dialect::kSpark ? "INT" : "INTEGER",
                     kFailuresColumn);
}

}  // namespace

Result<std::vector<std::string>> RenderSelectList(const VersionPlan& plan, Dialect dialect) {
  std::vector<std::string> out;
  for (const ColumnPlan& c : plan.columns) {
    SLUICE_ASSIGN_OR_RETURN(std::string e, RenderExpr(*c.expr, dialect));
    std::string name = Ident(dialect, c.name);
    bool bare =
        c.expr->kind == ExprKind::kColumn && c.expr->path.size() == 1 && c.expr->path[0] == c.name;
    out.push_back(bare ? name : e + " AS " + name);
  }
  return out;
}

namespace {

// The outer SELECT list of an exploded branch: the other columns as they are, the element's
// fields (or the element itself) in the array's place.
Result<std::vector<std::string>> ExplodedColumns(const schema::Schema& target, size_t array_index,
                                                 Dialect dialect) {
  const Field& array = target.fields()[array_index];
  std::vector<std::string> names;
  std::vector<std::string> out;
  for (size_t i = 0; i < target.fields().size(); ++i) {
    const Field& f = target.fields()[i];
    if (i != array_index) {
      names.push_back(f.name());
      out.push_back(Ident(dialect, f.name()));
      continue;
    }
    const Type& element = *array.type()->element_type();
    if (!element.is_struct()) {
      names.push_back(f.name());
      out.push_back(fmt::format("{} AS {}", kElementAlias, Ident(dialect, f.name())));
      continue;
    }
    for (const Field& e : element.fields()) {
      names.push_back(e.name());
      std::string q = Ident(dialect, e.name());
      out.push_back(fmt::format("{}.{} AS {}", kElementAlias, q, q));
    }
  }
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup != sorted.end()) {
    return InvalidArgument(fmt::format(
        "exploding {}: its element field {} clashes with another column", array.name(), *dup));
  }
  return out;
}

Result<std::string> RenderBranch(const VersionInput& v, const schema::Schema& target,
                                 Dialect dialect, std::optional<size_t> explode_index,
                                 bool count_failures, const std::string& relation) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<std::string> list, RenderSelectList(v.plan, dialect));
  std::string failures;
  if (count_failures) {
    SLUICE_ASSIGN_OR_RETURN(failures, FailureColumn(v.plan, dialect));
  }
  std::string label = Literal(dialect, v.label) + " AS " + std::string(kVersionColumn);
  std::string out;
  if (v.plan.lossy_casts > 0) {
    out += fmt::format(
        "-- {}: {} lossy cast(s) with try_cast; values that do not fit are NULL, counted in "
        "{}\n",
        v.label, v.plan.lossy_casts, kFailuresColumn);
  }
  if (!explode_index.has_value()) {
    list.push_back(label);
    if (count_failures) list.push_back(failures);
    out += "SELECT\n  " + Join(list, ",\n  ") + "\nFROM " + relation;
    return out;
  }
  SLUICE_ASSIGN_OR_RETURN(std::vector<std::string> outer,
                          ExplodedColumns(target, *explode_index, dialect));
  outer.push_back(label);
  if (count_failures) {
    list.push_back(failures);
    outer.push_back(std::string(kFailuresColumn));
  }
  std::string array = Ident(dialect, target.fields()[*explode_index].name());
  std::string inner = "SELECT\n    " + Join(list, ",\n    ") + "\n  FROM " + relation;
  out += "SELECT\n  " + Join(outer, ",\n  ") + "\n";
  if (dialect == Dialect::kSpark) {
    out +=
        fmt::format("FROM (\n  {}\n) AS aligned\nLATERAL VIEW explode(aligned.{}) exploded AS {}",
                    inner, array, kElementAlias);
  } else {
    out += fmt::format(
        "FROM (\n  SELECT *, unnest({}) AS {} FROM (\n  {}\n  ) AS aligned\n) AS exploded", array,
        kElementAlias, inner);
  }
  return out;
}

Result<std::optional<size_t>> ExplodeIndex(const schema::Schema& target, const std::string& name) {
  if (name.empty()) return std::optional<size_t>();
  for (size_t i = 0; i < target.fields().size(); ++i) {
    if (target.fields()[i].name() == name && target.fields()[i].type()->is_array()) {
      return std::optional<size_t>(i);
    }
  }
  return InvalidArgument(
      fmt::format("explode {}: not a top-level array column of the target", name));
}

}  // namespace

bool CountsCastFailures(const std::vector<VersionInput>& versions) {
  return std::any_of(versions.begin(), versions.end(),
                     [](const VersionInput& v) { return v.plan.lossy_casts > 0; });
}

Result<std::string> RenderVersionSelect(const VersionInput& version, const schema::Schema& target,
                                        Dialect dialect, const std::string& explode,
                                        bool count_failures, const std::string& from_sql) {
  SLUICE_ASSIGN_OR_RETURN(std::optional<size_t> index, ExplodeIndex(target, explode));
  return RenderBranch(version, target, dialect, index, count_failures, from_sql);
}

Result<std::vector<schema::Field>> OutputColumns(const schema::Schema& target,
                                                 const std::string& explode, bool count_failures) {
  SLUICE_ASSIGN_OR_RETURN(std::optional<size_t> index, ExplodeIndex(target, explode));
  std::vector<Field> out;
  for (size_t i = 0; i < target.fields().size(); ++i) {
    const Field& f = target.fields()[i];
    if (!index.has_value() || i != *index) {
      out.push_back(f);
      continue;
    }
    const schema::TypePtr& element = f.type()->element_type();
    if (!element->is_struct()) {
      out.emplace_back(f.name(), element, true);
      continue;
    }
    // A NULL element gives a row whose element fields are all NULL.
    for (const Field& e : element->fields()) {
      out.push_back(e);
      if (f.type()->contains_null()) out.back().set_nullable(true);
    }
  }
  out.emplace_back(std::string(kVersionColumn), Type::String(), false);
  if (count_failures) out.emplace_back(std::string(kFailuresColumn), Type::Int32(), false);
  return out;
}

Result<std::string> RenderAlign(const std::vector<VersionInput>& versions,
                                const schema::Schema& target, Dialect dialect,
                                const AlignOptions& options) {
  if (versions.empty()) return InvalidArgument("no schema versions to align");
  bool count_failures = CountsCastFailures(versions);
  for (const Field& f : target.fields()) {
    if (f.name() == kVersionColumn || (count_failures && f.name() == kFailuresColumn)) {
      return InvalidArgument(fmt::format(
          "the target already has a column named {}; the query adds a column of that name",
          f.name()));
    }
  }
  SLUICE_ASSIGN_OR_RETURN(std::optional<size_t> explode_index,
                          ExplodeIndex(target, options.explode));
  std::string out = fmt::format(
      "-- {} schema versions aligned to one schema; {} names the version of each row.\n"
      "-- UNION ALL matches columns by position: every branch lists the target's columns in the\n"
      "-- target's order, so matching by position is matching by name.\n",
      versions.size(), kVersionColumn);
  if (!options.view_name.empty()) {
    out += "CREATE OR REPLACE VIEW " + QuoteRelation(dialect, options.view_name) + " AS\n";
  }
  for (size_t i = 0; i < versions.size(); ++i) {
    if (versions[i].plan.columns.size() != target.fields().size()) {
      return InvalidArgument(
          fmt::format("the plan of {} does not match the target's columns", versions[i].label));
    }
    if (i > 0) out += "\nUNION ALL\n";
    SLUICE_ASSIGN_OR_RETURN(
        std::string branch,
        RenderBranch(versions[i], target, dialect, explode_index, count_failures,
                     QuoteRelation(dialect, versions[i].relation)));
    out += branch;
  }
  out += ";\n";
  return out;
}

}  // namespace sluice::sqlgen
