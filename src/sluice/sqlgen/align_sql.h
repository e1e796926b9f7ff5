// Alignment plans (align_plan.h) rendered as SQL: one SELECT per schema version, all joined by
// UNION ALL, in Spark SQL (named_struct, transform, transform_values, try_cast) or DuckDB
// (struct_pack, list_transform, map_from_entries over map_entries, TRY_CAST). Both dialects render
// the same plan.
#pragma once

#include <string>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/schema/schema.h"
#include "sluice/sqlgen/align_plan.h"
#include "sluice/sqlgen/sql_text.h"

namespace sluice::sqlgen {

/// One schema version to align: where its rows are, the label its rows carry in
/// `_schema_version`, and its plan into the target.
struct VersionInput {
  /// A table or view name; dots separate qualifier parts, each quoted on its own when needed.
  std::string relation;
  std::string label;
  VersionPlan plan;
};

struct AlignOptions {
  /// When set, the query is wrapped in CREATE OR REPLACE VIEW <view_name> AS.
  std::string view_name;
  /// When set, a top-level array column of the target: one output row per element (Spark
  /// LATERAL VIEW explode, DuckDB unnest), the element's struct fields as columns in its place.
  /// Rows whose array is NULL or empty produce no row, as explode does.
  std::string explode;
};

/// The name of the column that says which version a row came from.
inline constexpr std::string_view kVersionColumn = "_schema_version";
/// The column added when some version has lossy casts: per row, how many values try_cast turned
/// into NULL (elements of arrays and map values counted one by one; 0 for versions without
/// lossy casts). With explode, the count is the source row's, repeated on each element's row.
inline constexpr std::string_view kFailuresColumn = "_cast_failures";

/// True when some version's plan has a lossy cast, so the query has the _cast_failures column.
bool CountsCastFailures(const std::vector<VersionInput>& versions);

/// The query: `SELECT <the target's columns, in order>, '<label>' AS _schema_version FROM
/// <relation>` per version, joined by UNION ALL, ending in ";\n"; then `_cast_failures` when
/// CountsCastFailures. Every branch lists the same
/// columns in the same order, so a by-position UNION (Spark's) matches them by name as well.
/// kInvalidArgument for no versions, a target column named like an added one, or an explode column
/// that is not a top-level array (or whose element fields clash with other columns).
Result<std::string> RenderAlign(const std::vector<VersionInput>& versions,
                                const schema::Schema& target, Dialect dialect,
                                const AlignOptions& options = {});

/// One version's SELECT (a branch of RenderAlign's query) reading from `from_sql`, which is put
/// in as it is (a quoted table name, or a dbt source() call). `explode` as in AlignOptions.
Result<std::string> RenderVersionSelect(const VersionInput& version, const schema::Schema& target,
                                        Dialect dialect, const std::string& explode,
                                        bool count_failures, const std::string& from_sql);

/// The columns of the query, in order: the target's (the exploded array replaced by its element's
/// fields), `_schema_version` (a non-null string) and with `count_failures` `_cast_failures` (a
/// non-null int32).
Result<std::vector<schema::Field>> OutputColumns(const schema::Schema& target,
                                                 const std::string& explode, bool count_failures);

/// One expression of a plan in `dialect`.
Result<std::string> RenderExpr(const Expr& expr, Dialect dialect);

/// The SELECT list of one version without `_schema_version`: "expr AS name", or the bare name
/// when the column is taken as it is.
Result<std::vector<std::string>> RenderSelectList(const VersionPlan& plan, Dialect dialect);

/// A type as `dialect` writes it in a CAST: Spark "ARRAY<STRUCT<a: INT>>", DuckDB
/// "STRUCT(a INTEGER)[]". Nullability is not part of it.
std::string TypeSql(const schema::Type& type, Dialect dialect);

/// A table name with each dot-separated part quoted for `dialect` when needed.
std::string QuoteRelation(Dialect dialect, std::string_view name);

}  // namespace sluice::sqlgen
