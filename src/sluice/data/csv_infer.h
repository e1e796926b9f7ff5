// Spark's CSV schema inference (CSVInferSchema) over rows already split into fields.
//
/// Contract (reference notes section 2; Spark's newest stored CSVInferSchema, 8ba85666):
/// - InferField(typeSoFar, field): a null/empty field or one equal to null_value keeps
///   typeSoFar. Otherwise the parse chain starts at typeSoFar's stage (null and int start at
///   int): int (Integer.parseInt) -> bigint (Long.parseLong) -> decimal (BigDecimal with scale
///   <= 0 only: integers beyond long; at most 38 digits; negative scales only with
///   allow_negative_scale_of_decimal) -> double (Double.parseDouble, or nan_value /
///   positive_inf / negative_inf) -> date (prefers_date, date_format, default yyyy-MM-dd) ->
///   timestamp_ntz (only with timestamp_type_ntz, no zone) -> timestamp (timestamp_format, or
///   Spark's lenient default parser) -> boolean (true/false in any case) -> string. The result
///   is CsvCompatibleType(typeSoFar, parsed), or string when there is none.
/// - CsvCompatibleType: date + timestamp(_ntz) is the timestamp type only when that timestamp
///   has no explicit format and the date format is one the lenient parser reads
///   (yyyy-MM-dd, yyyy-M-d, yyyy-M-dd, yyyy-MM-d, yyyy-MM, yyyy-M, yyyy), else string; then
///   findTightestCommonType; then string with anything -> string, integral + decimal via
///   decimal(10,0)/decimal(20,0), double + decimal -> double, decimal + decimal widened;
///   anything else has none.
/// - MergeRowTypes pads the shorter row with NullType and maps "none" to NullType.
/// - Columns: with a header row, Spark's makeSafeHeader (null, empty or null_value names
///   become _c<i>; names that repeat, ignoring case unless case_sensitive, all get their index
///   appended); else _c0.._c<n-1> for the first row's width. Longer rows are cut to the header
///   width, shorter rows leave the columns on the right alone. NullType columns end as string.
/// - infer_schema=false gives all-string columns, as Spark does by default. Note: it defaults
///   to true here, since building an inferrer is asking for inference.
/// Deviations: Spark's CSV reader has no prefersDecimal, so neither has this. Locales other
/// than en-US use a fixed table of DecimalFormatSymbols (lexical_internal.cc).
/// Thread safety: one CsvInferrer per thread; combine them with Merge.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/data/auto_loader.h"
#include "sluice/data/inferred_type.h"
#include "sluice/schema/schema.h"

namespace sluice::data {

struct CsvInferOptions {
  bool infer_schema = true;
  std::string null_value;
  std::string nan_value = "NaN";
  std::string positive_inf = "Inf";
  std::string negative_inf = "-Inf";
  std::optional<std::string> date_format;
  std::optional<std::string> timestamp_format;
  std::optional<std::string> timestamp_ntz_format;
  bool prefers_date = true;
  /// spark.sql.timestampType=TIMESTAMP_NTZ.
  bool timestamp_type_ntz = false;
  /// spark.sql.legacy.allowNegativeScaleOfDecimal.
  bool allow_negative_scale_of_decimal = false;
  std::string locale = "en-US";
  /// spark.sql.caseSensitive, for header de-duplication.
  bool case_sensitive = false;
  std::optional<AutoLoaderOptions> auto_loader;

  /// Read Spark's string options, keys case-insensitive (nullValue, nanValue, positiveInf,
  /// negativeInf, dateFormat, timestampFormat, timestampNTZFormat, prefersDate/preferDate,
  /// inferSchema, locale, spark.sql.timestampType, spark.sql.legacy.allowNegativeScaleOfDecimal,
  /// spark.sql.caseSensitive, cloudFiles.inferColumnTypes, cloudFiles.schemaHints). Other keys
  /// are ignored. kInvalidArgument for a bad boolean.
  static Result<CsvInferOptions> FromMap(
      const std::vector<std::pair<std::string, std::string>>& options);
};

/// The compiled per-field rules: patterns and locale built once. Immutable; thread-safe.
class CsvTypeRules {
 public:
  /// kInvalidArgument for a pattern or locale that cannot be used.
  static Result<CsvTypeRules> Make(const CsvInferOptions& options);

  /// CSVInferSchema.inferField; nullopt is a null token. A struct or array typeSoFar (Spark
  /// throws) gives string.
  InferredType InferField(const InferredType& type_so_far,
                          std::optional<std::string_view> field) const;
  /// CSVInferSchema.compatibleType; false when there is none.
  bool CompatibleType(const InferredType& a, const InferredType& b, InferredType* out) const;
  /// CSVInferSchema.mergeRowTypes.
  std::vector<InferredType> MergeRowTypes(const std::vector<InferredType>& a,
                                          const std::vector<InferredType>& b) const;

  const CsvInferOptions& options() const { return *options_; }

 private:
  struct Compiled;
  std::shared_ptr<const CsvInferOptions> options_;
  std::shared_ptr<const Compiled> compiled_;
};

/// One-off InferField; builds the rules each call (use CsvTypeRules in loops).
Result<InferredType> InferCsvField(const InferredType& type_so_far,
                                   std::optional<std::string_view> field,
                                   const CsvInferOptions& options);

/// Spark's makeSafeHeader over a header row.
std::vector<std::string> MakeSafeHeader(std::span<const std::string_view> row,
                                        const CsvInferOptions& options);

class CsvInferrer {
 public:
  /// Columns named `column_names` (from MakeSafeHeader, or _c0.. for no header).
  static Result<CsvInferrer> Make(CsvInferOptions options, std::vector<std::string> column_names);
  /// Columns from the first row: its cells as the header (`header`), or _c0.._c<n-1> for its
  /// width, in which case the row is data and is inferred too.
  static Result<CsvInferrer> FromFirstRow(CsvInferOptions options,
                                          std::span<const std::string_view> first_row, bool header);

  /// Infer one row (inferRowType).
  void AddRow(std::span<const std::string_view> fields);
  /// mergeRowTypes with another inferrer over the same columns.
  void Merge(const CsvInferrer& other);

  const std::vector<InferredType>& column_types() const { return types_; }
  const std::vector<std::string>& column_names() const { return names_; }
  /// The schema: nullable columns, NullType as string, Auto Loader post-processing when set.
  /// kInvalidArgument for duplicate names or a negative decimal scale (legacy option).
  Result<schema::SchemaPtr> Finish() const;

 private:
  CsvInferrer(CsvTypeRules rules, std::vector<std::string> names);

  CsvTypeRules rules_;
  std::vector<std::string> names_;
  std::vector<InferredType> types_;
};

}  // namespace sluice::data
