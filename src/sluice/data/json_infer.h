// Spark's JSON schema inference (JsonInferSchema) over records given as JSON text.
//
/// Contract: the result equals `spark.read.json(records).schema` under the same options, by
/// these rules (reference notes section 1):
/// - null and "" -> NullType; booleans -> BooleanType; integers that fit a long -> LongType,
///   larger ones -> decimal(p,0) up to 38 digits, else DoubleType; other numbers -> DoubleType,
///   or with prefers_decimal decimal(max(p,s),s) when that fits 38 digits (else DoubleType);
///   NaN/Infinity (Jackson's allowNonNumericNumbers) -> DoubleType; strings -> StringType, or
///   decimal(p,s) with prefers_decimal when the text is a decimal, or with infer_timestamp
///   TimestampNTZType (only when timestamp_type_ntz) / TimestampType when the format parses it.
///   Objects -> struct with fields sorted by Java String.compareTo; arrays -> array of the
///   CompatibleType of all elements. primitives_as_string makes numbers and booleans strings.
/// - Records merge with CompatibleType. A top-level array is unwrapped (its elements count as
///   records, merged first as one array type, as Spark does); top-level null is ignored.
/// - A record that is not valid JSON (simdjson rejects it, or it nests deeper than max_depth,
///   like Jackson's 1000-level limit) or whose root is not an object: PERMISSIVE adds the
///   string column column_name_of_corrupt_record, DROPMALFORMED ignores it, FAILFAST makes
///   AddRecord fail with kParseError. Blank records are ignored. Only the first JSON value of a
///   record is read, as Jackson does; the rest of the text is not looked at.
/// - Finish applies canonicalizeType: NullType -> StringType (or dropped with
///   drop_field_if_all_null), fields with empty names dropped, empty structs dropped
///   recursively, arrays of nothing dropped. Every field is nullable.
/// Deviations, all documented in the tests:
/// - Duplicate keys in one object are merged into one field (Spark keeps both and its read
///   then fails with "Found duplicate column(s)").
/// - Jackson's allowSingleQuotes (on in Spark) is not supported: 'quoted' text is malformed.
/// - prefers_decimal with a float token whose BigDecimal has a negative scale (1E10): Spark's
///   DecimalType constructor throws an AnalysisException that is not treated as a corrupt
///   record, so the inference fails; AddRecord returns kInvalidArgument in every mode.
/// - If the data itself holds a field named like the corrupt-record column, Spark's result
///   depends on the order records merge in; here the data's type is kept.
/// Thread safety: one JsonInferrer per thread; combine them with Merge.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/data/auto_loader.h"
#include "sluice/data/inferred_type.h"
#include "sluice/schema/schema.h"

namespace sluice::data {

/// Spark's ParseMode for malformed records.
enum class ParseMode : uint8_t { kPermissive, kDropMalformed, kFailFast };

struct JsonInferOptions {
  bool primitives_as_string = false;
  bool prefers_decimal = false;
  bool drop_field_if_all_null = false;
  bool infer_timestamp = false;
  /// java.time pattern; unset means Spark's lenient default timestamp parser.
  std::optional<std::string> timestamp_format;
  std::optional<std::string> timestamp_ntz_format;
  /// spark.sql.timestampType=TIMESTAMP_NTZ.
  bool timestamp_type_ntz = false;
  ParseMode mode = ParseMode::kPermissive;
  /// spark.sql.columnNameOfCorruptRecord / columnNameOfCorruptRecord. Empty: the column is
  /// dropped at the end (what JsonInferSchema does with JSONOptions(Map.empty)).
  std::string column_name_of_corrupt_record = "_corrupt_record";
  /// Locale of the decimal parser used for quoted numbers under prefers_decimal.
  std::string locale = "en-US";
  /// Records nested deeper are malformed (Jackson's StreamReadConstraints default).
  uint32_t max_depth = 1000;
  /// Records at least this long are read first by a scanner of sluice's own, whose memory does
  /// not grow with the record (simdjson's index takes up to four times a record's size); a
  /// record it does not accept as strict JSON goes to simdjson, which decides. The result is
  /// the same either way (a differential test holds them to it). Smaller records go to
  /// simdjson alone, which is faster on them (bench/README.md, the data plane). 0: every
  /// record through the scanner first; SIZE_MAX: simdjson only.
  size_t scanner_min_record_bytes = size_t{16} << 20;
  /// Set for Auto Loader (cloudFiles) behaviour; see auto_loader.h.
  std::optional<AutoLoaderOptions> auto_loader;

  /// Read Spark's string options (keys case-insensitive: primitivesAsString, prefersDecimal,
  /// dropFieldIfAllNull, inferTimestamp, timestampFormat, timestampNTZFormat, mode,
  /// columnNameOfCorruptRecord, locale, samplingRatio, spark.sql.timestampType,
  /// spark.sql.columnNameOfCorruptRecord, cloudFiles.inferColumnTypes, cloudFiles.schemaHints).
  /// Other keys are ignored as Spark ignores them. kInvalidArgument for a bad value or a
  /// samplingRatio below 1 (sampling is the caller's job).
  static Result<JsonInferOptions> FromMap(
      const std::vector<std::pair<std::string, std::string>>& options);
};

// Aligned so that inferrers of different threads kept side by side never share a cache line.
class alignas(128) JsonInferrer {
 public:
  /// kInvalidArgument for a timestamp pattern or locale that cannot be used.
  static Result<JsonInferrer> Make(JsonInferOptions options = {});

  JsonInferrer(JsonInferrer&&) noexcept;
  JsonInferrer& operator=(JsonInferrer&&) noexcept;
  ~JsonInferrer();

  /// Infer one record and merge it in. Errors: kParseError in FAILFAST mode for a malformed or
  /// non-object record; kInvalidArgument for the negative-scale case in the contract. An error
  /// leaves the inferred type unchanged (the record and malformed counters still count it).
  Status AddRecord(std::string_view json);
  /// AddRecord for text followed in memory by at least 64 readable bytes (simdjson's padding;
  /// their content does not matter), which saves copying it.
  Status AddPaddedRecord(std::string_view json);

  /// Merge another inferrer's records in, as if they had been added here. Both must have been
  /// built with the same options (not checked).
  void Merge(const JsonInferrer& other);

  /// The merged type so far, before canonicalization: a struct.
  const InferredType& root() const { return root_; }
  /// Records seen (blank ones included), and how many were malformed.
  uint64_t records() const { return records_; }
  uint64_t malformed_records() const { return malformed_; }
  /// Why the last malformed record was rejected ("" if none was): simdjson's message or the
  /// depth limit, with the record number.
  const std::string& last_malformed_reason() const { return last_malformed_reason_; }

  /// The canonicalized struct (see the contract); always a struct, maybe empty.
  InferredType FinishType() const;
  /// The schema, Auto Loader post-processing included. kInvalidArgument when the schema model
  /// cannot hold the result (nesting deeper than schema::kMaxNestingDepth).
  Result<schema::SchemaPtr> Finish() const;

 private:
  struct Impl;
  explicit JsonInferrer(std::unique_ptr<Impl> impl, JsonInferOptions options);

  std::unique_ptr<Impl> impl_;
  JsonInferOptions options_;
  InferredType root_ = InferredType::Struct({});
  bool saw_non_struct_root_ = false;
  uint64_t records_ = 0;
  uint64_t malformed_ = 0;
  std::string last_malformed_reason_;
};

/// Canonicalize an inferred type as the contract says; nullopt when it disappears.
std::optional<InferredType> CanonicalizeType(const InferredType& type, bool drop_field_if_all_null);

}  // namespace sluice::data
