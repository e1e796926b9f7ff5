// Checking records against a schema: the schema is compiled once into a flat plan, then each
// record (a JSON object, or a CSV row) is walked against it and comes out valid, valid with
// rescued data, or bad, with every violation named by its field path.
//
/// Contract (docs/validation.md is the user's version):
/// - Types, as Spark's JSON reader (JacksonParser) converts JSON tokens:
///   boolean: true/false only. int8..int64: integer tokens in range (1.0 and "12" are not
///   ints). float32/float64: any number, and the strings "NaN", "Infinity", "+Infinity",
///   "-Infinity", "INF", "+INF", "-INF"; a number beyond the type's range is out_of_range.
///   decimal(p,s): a number, or a string holding one (en-US: ',' removed), rounded half-up to s
///   digits; more than p digits is decimal_precision. string: any value; a non-string value is
///   kept as its JSON text. char(n)/varchar(n): a string of at most n characters. date: a string
///   Spark's default date parser takes (yyyy, yyyy-[m]m, yyyy-[m]m-[d]d, then ' ' or 'T' and
///   anything). timestamp: a string Spark's default timestamp parser takes, or an integer
///   (seconds since the epoch). timestamp_ntz: such a string without a zone. time:
///   [h]h:mm[:ss[.f]]. binary: a base64 string. uuid: 8-4-4-4-12 hex digits. struct and map: an
///   object (map keys must parse as the key type); array: an array. null fits every nullable type.
/// - A value that does not fit becomes null. A field that is absent is null. Keys that are not
///   in the schema are unknown_field; a key that matches a field only when ASCII case is
///   ignored is case_mismatch (Auto Loader's readerCaseSensitive=true), or that field with
///   ValidatorOptions::match_fields_ignoring_case; a key seen twice in one
///   object is duplicate_key (the first one counts).
/// - A record is fatal (cannot be represented) when a non-nullable field or element would be
///   null: null_not_allowed, missing_required, or any violation on such a place.
/// - Rescue: every value that did not fit, every unknown or case-mismatched key and every
///   duplicate goes into the rescued-data object `{"<path>": <original JSON>, ...,
///   "_file_path": "<file>"}`, keys being the record's own names, with `.name` and `[i]` steps
///   for nested places (`shipping.zip`, `items[2].qty`).
/// - New fields allowed (ValidatorOptions::allow_new_fields, a contract's allowed_new_columns):
///   an unknown key is still kept in the rescued object, but it is a new_column note rather than
///   a violation, and a record whose only findings are notes stays valid (not rescued).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/result.h"
#include "sluice/data/csv_reader.h"
#include "sluice/data/leaf_tape.h"
#include "sluice/schema/schema.h"

namespace sluice::data {

enum class ViolationKind : uint8_t {
  kMalformed,
  kTypeMismatch,
  kOutOfRange,
  kDecimalPrecision,
  kStringTooLong,
  kInvalidDate,
  kInvalidTimestamp,
  kNullNotAllowed,
  kMissingRequired,
  kUnknownField,
  kCaseMismatch,
  kDuplicateKey,
  /// Not a violation: a key outside the schema that the options allow (allow_new_fields).
  kNewColumn,
};
/// snake_case name: "type_mismatch", "missing_required", ...
std::string_view ViolationKindName(ViolationKind kind);

/// One violation in one record: `path` is the schema place without indexes (`items[].qty`).
struct RecordViolation {
  std::string path;
  ViolationKind kind;
  std::string detail;
};

/// What happened to one record.
enum class RecordStatus : uint8_t { kValid, kRescued, kBad, kMalformed };
/// "valid", "rescued", "bad", "malformed".
std::string_view RecordStatusName(RecordStatus status);

struct RecordResult {
  RecordStatus status = RecordStatus::kValid;
  /// Empty for a valid record; otherwise every violation, in record order (capped at 64).
  std::vector<RecordViolation> violations;
  /// For kMalformed: the parser's message and the byte offset inside the record, if known.
  std::string error;
  int64_t error_offset = -1;
};

struct ValidatorOptions {
  /// The rescued-data column. Empty: nothing is rescued, and a record that would need rescue is
  /// kBad (dropmalformed / failfast).
  std::string rescued_column = "_rescued_data";
  /// Key of the file path inside the rescued object; empty to leave it out.
  std::string file_path_key = "_file_path";
  /// Records nested deeper than this are malformed.
  uint32_t max_depth = 1000;
  /// Keys outside the schema (not case variants of a field, not repeats) are new columns the
  /// caller allows: kept in the rescued column, noted as kNewColumn, the record stays valid.
  /// Without a rescued column there is nowhere to keep them, and they stay unknown_field.
  bool allow_new_fields = false;
  /// Keys outside the schema (not case variants of a field) are dropped without a trace, as
  /// Spark's reader with a schema drops them. Wins over allow_new_fields.
  bool ignore_unknown_fields = false;
  /// A key that names a field only when ASCII case is ignored is that field (written under the
  /// field's own name), as a Delta write matches the data's columns to the table's
  /// (spark.sql.caseSensitive=false); off, it is case_mismatch.
  bool match_fields_ignoring_case = false;
};

/// A schema compiled for checking. Immutable; share it between threads.
class ValidationPlan {
 public:
  /// kInvalidArgument if the schema holds a field named like the rescued column that is not a
  /// string. Every type of the model can be checked.
  static Result<std::shared_ptr<const ValidationPlan>> Compile(schema::SchemaPtr schema,
                                                               ValidatorOptions options = {});
  /// The same for records of a typed source (a Parquet file) of type `source`: a place whose
  /// source type it cannot read without losing part of every value (a timestamp for a date, a
  /// decimal of a larger scale, a double for a float, a float for a decimal) refuses every
  /// value but null as type_mismatch, as Spark's Parquet reader refuses the column; every other
  /// place checks values as in JSON records.
  static Result<std::shared_ptr<const ValidationPlan>> CompileForSource(
      schema::SchemaPtr schema, const schema::Type& source, ValidatorOptions options = {});
  /// Whether some place refuses its source's values (CompileForSource).
  bool refuses_a_source_type() const { return refuses_; }
  struct Node;
  const schema::Schema& schema() const { return *schema_; }
  const ValidatorOptions& options() const { return options_; }
  /// Whether the rescued column is written as an extra last field (it is not in the schema).
  bool appends_rescued_column() const { return append_rescued_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  /// Output bytes a record may need beyond its own size: every field's key and a null.
  size_t output_slack() const { return output_slack_; }
  ~ValidationPlan();

 private:
  ValidationPlan() = default;
  static Result<std::shared_ptr<const ValidationPlan>> Build(schema::SchemaPtr schema,
                                                             const schema::Type* source,
                                                             ValidatorOptions options);
  schema::SchemaPtr schema_;
  ValidatorOptions options_;
  bool append_rescued_ = false;
  bool refuses_ = false;
  size_t output_slack_ = 0;
  std::vector<Node> nodes_;
};

/// Checks records one at a time and writes each valid one (rescued ones included) to an output
/// buffer as a JSON line. One per thread.
class RecordValidator {
 public:
  explicit RecordValidator(std::shared_ptr<const ValidationPlan> plan);
  RecordValidator(RecordValidator&&) noexcept;
  RecordValidator& operator=(RecordValidator&&) noexcept;
  ~RecordValidator();

  /// Check one JSON record. `text` must be followed in memory by at least 64 readable bytes
  /// (simdjson's padding); `file` is what `_file_path` holds. When the result is kValid or
  /// kRescued, the record's JSON line (newline included) has been appended to `out`: keys in
  /// the record's order, values that did not fit as null, absent fields added as null at the
  /// end of their object, unknown keys left out, the rescued column last (null when nothing
  /// was rescued).
  const RecordResult& CheckJson(std::string_view text, std::string_view file, std::string& out);
  /// The same, noting on `tape` (when the record's line is kept) where each of its values lies
  /// in the line (leaf_tape.h). A tape whose map was made for another plan is ignored.
  const RecordResult& CheckJson(std::string_view text, std::string_view file, std::string& out,
                                LeafTape* tape);

  /// Check one CSV row. `columns` maps each CSV position to a top-level field index of the
  /// schema, or -1 for a column the schema lacks, -2 for one whose name matches a field only
  /// when case is ignored, -3 for a second column of the same name (all rescued under
  /// `header[i]`).
  /// Values equal to `null_value` (unquoted) are null; a quoted empty value is `empty_value`.
  struct CsvLayout {
    std::vector<int> columns;
    std::vector<std::string> header;
    std::string null_value;
    std::string empty_value;
  };
  const RecordResult& CheckCsv(const CsvRecord& record, const CsvLayout& layout,
                               std::string_view file, std::string& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::data
