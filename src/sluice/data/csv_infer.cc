#include "sluice/data/csv_infer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <unordered_map>

#include "sluice/base/strings.h"
#include "sluice/data/lexical_internal.h"

namespace sluice::data {

namespace {

using internal::DateTimeFields;
using internal::DateTimePattern;

Result<bool> ParseBool(std::string_view key, std::string_view v) {
  if (EqualsIgnoreCase(v, "true")) return true;
  if (EqualsIgnoreCase(v, "false")) return false;
  return InvalidArgument(
      fmt::format("option {}: \"{}\" is not a boolean", key, EscapeForMessage(v)));
}

// DateFormatter.defaultPattern, and LENIENT_TS_FORMATTER_SUPPORTED_DATE_FORMATS.
constexpr std::string_view kDefaultDateFormat = "yyyy-MM-dd";
constexpr std::array<std::string_view, 7> kLenientDateFormats = {
    "yyyy-MM-dd", "yyyy-M-d", "yyyy-M-dd", "yyyy-MM-d", "yyyy-MM", "yyyy-M", "yyyy"};

}  // namespace

struct CsvTypeRules::Compiled {
  DateTimePattern date;
  std::optional<DateTimePattern> timestamp;
  std::optional<DateTimePattern> timestamp_ntz;
  internal::DecimalLocale locale;
};

Result<CsvInferOptions> CsvInferOptions::FromMap(
    const std::vector<std::pair<std::string, std::string>>& options) {
  CsvInferOptions o;
  AutoLoaderOptions auto_loader;
  bool any_auto_loader = false;
  for (const auto& [raw_key, value] : options) {
    const std::string key = AsciiLower(raw_key);
    if (key == "nullvalue") {
      o.null_value = value;
    } else if (key == "nanvalue") {
      o.nan_value = value;
    } else if (key == "positiveinf") {
      o.positive_inf = value;
    } else if (key == "negativeinf") {
      o.negative_inf = value;
    } else if (key == "dateformat") {
      o.date_format = value;
    } else if (key == "timestampformat") {
      o.timestamp_format = value;
    } else if (key == "timestampntzformat") {
      o.timestamp_ntz_format = value;
    } else if (key == "prefersdate" || key == "preferdate") {
      SLUICE_ASSIGN_OR_RETURN(o.prefers_date, ParseBool(raw_key, value));
    } else if (key == "inferschema") {
      SLUICE_ASSIGN_OR_RETURN(o.infer_schema, ParseBool(raw_key, value));
    } else if (key == "locale") {
      o.locale = value;
    } else if (key == "spark.sql.timestamptype") {
      o.timestamp_type_ntz = EqualsIgnoreCase(value, "TIMESTAMP_NTZ");
    } else if (key == "spark.sql.legacy.allownegativescaleofdecimal") {
      SLUICE_ASSIGN_OR_RETURN(o.allow_negative_scale_of_decimal, ParseBool(raw_key, value));
    } else if (key == "spark.sql.casesensitive") {
      SLUICE_ASSIGN_OR_RETURN(o.case_sensitive, ParseBool(raw_key, value));
    } else if (key == "cloudfiles.infercolumntypes") {
      SLUICE_ASSIGN_OR_RETURN(auto_loader.infer_column_types, ParseBool(raw_key, value));
      any_auto_loader = true;
    } else if (key == "cloudfiles.schemahints") {
      auto_loader.schema_hints = value;
      any_auto_loader = true;
    }
  }
  if (any_auto_loader) o.auto_loader = auto_loader;
  return o;
}

Result<CsvTypeRules> CsvTypeRules::Make(const CsvInferOptions& options) {
  auto compiled = std::make_shared<Compiled>();
  SLUICE_ASSIGN_OR_RETURN(
      compiled->date,
      DateTimePattern::Compile(options.date_format.value_or(std::string(kDefaultDateFormat))));
  if (options.timestamp_format) {
    SLUICE_ASSIGN_OR_RETURN(compiled->timestamp,
                            DateTimePattern::Compile(*options.timestamp_format));
  }
  if (options.timestamp_ntz_format) {
    SLUICE_ASSIGN_OR_RETURN(compiled->timestamp_ntz,
                            DateTimePattern::Compile(*options.timestamp_ntz_format));
  }
  SLUICE_ASSIGN_OR_RETURN(compiled->locale, internal::DecimalLocaleFor(options.locale));
  if (options.auto_loader.has_value()) {
    SLUICE_TRY(ParseSchemaHints(options.auto_loader->schema_hints));
  }
  CsvTypeRules rules;
  rules.options_ = std::make_shared<const CsvInferOptions>(options);
  rules.compiled_ = std::move(compiled);
  return rules;
}

bool CsvTypeRules::CompatibleType(const InferredType& a, const InferredType& b,
                                  InferredType* out) const {
  const InferredKind ka = a.kind();
  const InferredKind kb = b.kind();
  auto is_ts = [](InferredKind k) {
    return k == InferredKind::kTimestamp || k == InferredKind::kTimestampNtz;
  };
  if ((ka == InferredKind::kDate && is_ts(kb)) || (is_ts(ka) && kb == InferredKind::kDate)) {
    const InferredKind ts = ka == InferredKind::kDate ? kb : ka;
    const bool lenient = ts == InferredKind::kTimestamp
                             ? !options_->timestamp_format.has_value()
                             : !options_->timestamp_ntz_format.has_value();
    const std::string_view date_format =
        options_->date_format ? std::string_view(*options_->date_format) : kDefaultDateFormat;
    const bool date_ok = std::find(kLenientDateFormats.begin(), kLenientDateFormats.end(),
                                   date_format) != kLenientDateFormats.end();
    *out = lenient && date_ok ? InferredType(ts) : InferredType::String();
    return true;
  }
  if (FindTightestCommonType(a, b, out)) return true;
  if (ka == InferredKind::kString || kb == InferredKind::kString) {
    *out = InferredType::String();
    return true;
  }
  auto for_type = [](const InferredType& t) {
    return InferredType::Decimal(t.kind() == InferredKind::kInt ? 10 : 20, 0);
  };
  if (a.is_integral() && kb == InferredKind::kDecimal) return CompatibleType(for_type(a), b, out);
  if (ka == InferredKind::kDecimal && b.is_integral()) return CompatibleType(a, for_type(b), out);
  if ((ka == InferredKind::kDouble && kb == InferredKind::kDecimal) ||
      (ka == InferredKind::kDecimal && kb == InferredKind::kDouble)) {
    *out = InferredType::Double();
    return true;
  }
  if (ka == InferredKind::kDecimal && kb == InferredKind::kDecimal) {
    *out = WidenDecimals(a.precision(), a.scale(), b.precision(), b.scale());
    return true;
  }
  return false;
}

InferredType CsvTypeRules::InferField(const InferredType& type_so_far,
                                      std::optional<std::string_view> field_opt) const {
  if (!field_opt.has_value() || field_opt->empty() || *field_opt == options_->null_value) {
    return type_so_far;
  }
  const std::string_view field = *field_opt;
  const CsvInferOptions& o = *options_;
  const Compiled& c = *compiled_;
  // The chain of tryParse* steps; each stage falls through to the next.
  enum class Stage : uint8_t {
    kInt,
    kLong,
    kDecimal,
    kDouble,
    kDate,
    kNtz,
    kTimestamp,
    kBool,
    kString
  };
  Stage stage = Stage::kString;
  switch (type_so_far.kind()) {
    case InferredKind::kNull:
    case InferredKind::kInt:
      stage = Stage::kInt;
      break;
    case InferredKind::kLong:
      stage = Stage::kLong;
      break;
    case InferredKind::kDecimal:
      stage = Stage::kDecimal;
      break;
    case InferredKind::kDouble:
      stage = Stage::kDouble;
      break;
    case InferredKind::kDate:
      stage = Stage::kDate;
      break;
    case InferredKind::kTimestampNtz:
      stage = Stage::kNtz;
      break;
    case InferredKind::kTimestamp:
      stage = Stage::kTimestamp;
      break;
    case InferredKind::kBoolean:
      stage = Stage::kBool;
      break;
    case InferredKind::kString:
    case InferredKind::kStruct:
    case InferredKind::kArray:
      return InferredType::String();
  }
  InferredType parsed = InferredType::String();
  bool done = false;
  while (!done) {
    switch (stage) {
      case Stage::kInt:
        if (internal::ParseJavaInt(field)) {
          parsed = InferredType::Int();
          done = true;
        } else {
          stage = Stage::kLong;
        }
        break;
      case Stage::kLong:
        if (internal::ParseJavaLong(field)) {
          parsed = InferredType::Long();
          done = true;
        } else {
          stage = Stage::kDecimal;
        }
        break;
      case Stage::kDecimal: {
        internal::DecimalShape d;
        // Only integers (scale <= 0) become decimals; DecimalType(p, s) rejects p > 38 and,
        // outside the legacy mode, negative scales, and the chain moves on to double.
        if (internal::ParseLocaleDecimalCsv(field, c.locale, &d) && d.scale <= 0 &&
            d.precision <= 38 && (d.scale == 0 || o.allow_negative_scale_of_decimal)) {
          parsed = InferredType::Decimal(d.precision, d.scale);
          done = true;
        } else {
          stage = Stage::kDouble;
        }
        break;
      }
      case Stage::kDouble:
        if (internal::ParseJavaDouble(field) || field == o.nan_value || field == o.negative_inf ||
            field == o.positive_inf) {
          parsed = InferredType::Double();
          done = true;
        } else {
          stage = o.prefers_date ? Stage::kDate : Stage::kNtz;
        }
        break;
      case Stage::kDate: {
        DateTimeFields f;
        if (c.date.Parse(field, &f)) {
          parsed = InferredType::Date();
          done = true;
        } else {
          stage = Stage::kNtz;
        }
        break;
      }
      case Stage::kNtz: {
        DateTimeFields f;
        const bool ok = o.timestamp_type_ntz &&
                        (c.timestamp_ntz ? c.timestamp_ntz->Parse(field, &f)
                                         : internal::ParseLenientTimestamp(field, &f)) &&
                        !f.has_zone;
        if (ok) {
          parsed = InferredType::TimestampNtz();
          done = true;
        } else {
          stage = Stage::kTimestamp;
        }
        break;
      }
      case Stage::kTimestamp: {
        DateTimeFields f;
        if (c.timestamp ? c.timestamp->Parse(field, &f)
                        : internal::ParseLenientTimestamp(field, &f)) {
          parsed = InferredType::Timestamp();
          done = true;
        } else {
          stage = Stage::kBool;
        }
        break;
      }
      case Stage::kBool:
        parsed =
            internal::ParseScalaBoolean(field) ? InferredType::Boolean() : InferredType::String();
        done = true;
        break;
      case Stage::kString:
        parsed = InferredType::String();
        done = true;
        break;
    }
  }
  InferredType out;
  if (CompatibleType(type_so_far, parsed, &out)) return out;
  return InferredType::String();
}

std::vector<InferredType> CsvTypeRules::MergeRowTypes(const std::vector<InferredType>& a,
                                                      const std::vector<InferredType>& b) const {
  std::vector<InferredType> out(std::max(a.size(), b.size()));
  for (size_t i = 0; i < out.size(); ++i) {
    const InferredType x = i < a.size() ? a[i] : InferredType::Null();
    const InferredType y = i < b.size() ? b[i] : InferredType::Null();
    if (!CompatibleType(x, y, &out[i])) out[i] = InferredType::Null();
  }
  return out;
}

Result<InferredType> InferCsvField(const InferredType& type_so_far,
                                   std::optional<std::string_view> field,
                                   const CsvInferOptions& options) {
  SLUICE_ASSIGN_OR_RETURN(CsvTypeRules rules, CsvTypeRules::Make(options));
  return rules.InferField(type_so_far, field);
}

std::vector<std::string> MakeSafeHeader(std::span<const std::string_view> row,
                                        const CsvInferOptions& options) {
  auto norm = [&](std::string_view s) {
    return options.case_sensitive ? std::string(s) : AsciiLower(s);
  };
  std::unordered_map<std::string, int> counts;
  for (std::string_view name : row) ++counts[norm(name)];
  std::vector<std::string> names;
  names.reserve(row.size());
  for (size_t i = 0; i < row.size(); ++i) {
    const std::string_view v = row[i];
    if (v.empty() || v == options.null_value) {
      names.push_back(fmt::format("_c{}", i));
    } else if (counts[norm(v)] > 1) {
      names.push_back(fmt::format("{}{}", v, i));
    } else {
      names.emplace_back(v);
    }
  }
  return names;
}

CsvInferrer::CsvInferrer(CsvTypeRules rules, std::vector<std::string> names)
    : rules_(std::move(rules)), names_(std::move(names)), types_(names_.size()) {}

Result<CsvInferrer> CsvInferrer::Make(CsvInferOptions options,
                                      std::vector<std::string> column_names) {
  SLUICE_ASSIGN_OR_RETURN(CsvTypeRules rules, CsvTypeRules::Make(options));
  return CsvInferrer(std::move(rules), std::move(column_names));
}

Result<CsvInferrer> CsvInferrer::FromFirstRow(CsvInferOptions options,
                                              std::span<const std::string_view> first_row,
                                              bool header) {
  std::vector<std::string> names;
  if (header) {
    names = MakeSafeHeader(first_row, options);
  } else {
    for (size_t i = 0; i < first_row.size(); ++i) names.push_back(fmt::format("_c{}", i));
  }
  SLUICE_ASSIGN_OR_RETURN(CsvInferrer inferrer, Make(std::move(options), std::move(names)));
  if (!header) inferrer.AddRow(first_row);
  return inferrer;
}

void CsvInferrer::AddRow(std::span<const std::string_view> fields) {
  if (!rules_.options().infer_schema) return;
  const size_t n = std::min(fields.size(), types_.size());
  for (size_t i = 0; i < n; ++i) types_[i] = rules_.InferField(types_[i], fields[i]);
}

void CsvInferrer::Merge(const CsvInferrer& other) {
  types_ = rules_.MergeRowTypes(types_, other.types_);
  types_.resize(names_.size());
}

Result<schema::SchemaPtr> CsvInferrer::Finish() const {
  const bool infer =
      rules_.options().infer_schema && (!rules_.options().auto_loader.has_value() ||
                                        rules_.options().auto_loader->infer_column_types);
  std::vector<InferredField> fields;
  fields.reserve(names_.size());
  for (size_t i = 0; i < names_.size(); ++i) {
    InferredType t = infer ? types_[i] : InferredType::String();
    if (t.is_null()) t = InferredType::String();
    fields.push_back(InferredField{names_[i], std::move(t)});
  }
  // Positional columns: build the struct without the name sort InferredType::Struct applies.
  std::vector<schema::Field> schema_fields;
  schema_fields.reserve(fields.size());
  for (InferredField& f : fields) {
    SLUICE_ASSIGN_OR_RETURN(schema::TypePtr t, ToSchemaType(f.type));
    schema_fields.emplace_back(std::move(f.name), std::move(t), true);
  }
  SLUICE_ASSIGN_OR_RETURN(schema::SchemaPtr s, schema::Schema::Make(std::move(schema_fields)));
  if (!rules_.options().auto_loader.has_value()) return s;
  const AutoLoaderOptions& al = *rules_.options().auto_loader;
  SLUICE_ASSIGN_OR_RETURN(std::vector<SchemaHint> hints, ParseSchemaHints(al.schema_hints));
  SLUICE_ASSIGN_OR_RETURN(s, ApplySchemaHints(*s, hints));
  if (!al.rescued_data_column.empty() &&
      s->struct_type()->FindField(al.rescued_data_column) == nullptr) {
    std::vector<schema::Field> with_rescued = s->fields();
    with_rescued.emplace_back(al.rescued_data_column, schema::Type::String(), true);
    SLUICE_ASSIGN_OR_RETURN(s, schema::Schema::Make(std::move(with_rescued)));
  }
  return s;
}

}  // namespace sluice::data
