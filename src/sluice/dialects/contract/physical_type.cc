#include <fmt/format.h>

#include <charconv>
#include <vector>

#include "sluice/base/strings.h"
#include "sluice/dialects/contract/physical_type_internal.h"
#include "sluice/dialects/spark/spark.h"
#include "sluice/schema/type_visitor.h"

namespace sluice::dialects::contract::internal {
namespace {

using schema::TimeUnit;
using schema::Type;
using schema::TypeKind;
using schema::TypePtr;

// Upper-case with runs of whitespace folded to one space and trimmed.
std::string Normalize(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : TrimWhitespace(s)) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty() && out.back() != '(' && c != '(' && c != ')' && c != ',') {
      out += ' ';
    }
    space = false;
    out += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  }
  return out;
}

bool OneOf(std::string_view s, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) {
    if (s == n) return true;
  }
  return false;
}

PhysicalType Make(TypeFamily family, TypePtr type, bool zone_explicit = false) {
  PhysicalType p;
  p.family = family;
  p.type = std::move(type);
  p.zone_explicit = zone_explicit;
  return p;
}

PhysicalType Problem(TypeFamily family, std::string problem) {
  PhysicalType p;
  p.family = family;
  p.problem = std::move(problem);
  return p;
}

std::optional<TimeUnit> UnitForPrecision(int64_t p) {
  if (p < 0 || p > 9) return std::nullopt;
  if (p <= 3) return TimeUnit::kMillis;
  if (p <= 6) return TimeUnit::kMicros;
  return TimeUnit::kNanos;
}

PhysicalType Parse(std::string_view original, int depth);

// Nested Spark syntax: ARRAY<...>, STRUCT<...>, MAP<...>.
PhysicalType ParseSparkNested(std::string_view original) {
  auto parsed = spark::ParseDataType(original);
  if (!parsed.has_value()) {
    return Problem(TypeFamily::kUnknown, parsed.error().message());
  }
  return Make(FamilyOf(**parsed), *parsed);
}

PhysicalType ParseScalar(const std::string& base, const std::vector<int64_t>& args, bool has_args,
                         const std::string& suffix) {
  auto no_args = [&] { return !has_args; };
  // Strings.
  if (suffix.empty()) {
    if (OneOf(base, {"STRING", "TEXT", "CLOB", "NTEXT", "LONGTEXT", "MEDIUMTEXT", "TINYTEXT",
                     "CITEXT", "NAME"})) {
      return Make(TypeFamily::kString, Type::String());
    }
    if (OneOf(base, {"VARCHAR", "NVARCHAR", "VARCHAR2", "NVARCHAR2", "CHARACTER VARYING",
                     "CHAR VARYING", "NATIONAL CHARACTER VARYING"})) {
      if (no_args()) return Make(TypeFamily::kString, Type::String());
      if (args.size() != 1) return Problem(TypeFamily::kString, "expects one length");
      if (args[0] < 1 || args[0] > (1 << 30)) {
        return Problem(TypeFamily::kString, fmt::format("length {} is out of range", args[0]));
      }
      return Make(TypeFamily::kString, *Type::Varchar(static_cast<int>(args[0])));
    }
    if (OneOf(base, {"CHAR", "CHARACTER", "NCHAR", "BPCHAR", "NATIONAL CHARACTER"})) {
      int64_t n = no_args() ? 1 : (args.size() == 1 ? args[0] : -1);
      if (base == "BPCHAR" && no_args()) return Make(TypeFamily::kString, Type::String());
      if (n < 1 || n > (1 << 30)) return Problem(TypeFamily::kString, "expects one length");
      return Make(TypeFamily::kString, *Type::Char(static_cast<int>(n)));
    }
    if (OneOf(base, {"UUID", "UNIQUEIDENTIFIER"}) && no_args()) {
      return Make(TypeFamily::kString, Type::Uuid());
    }
    if (OneOf(base, {"BINARY", "VARBINARY", "BYTEA", "BLOB", "BYTES", "LONGBLOB", "MEDIUMBLOB",
                     "TINYBLOB", "BINARY VARYING", "IMAGE", "RAW"})) {
      return Make(TypeFamily::kString, Type::Binary());
    }
    // Integers; MySQL's INT(11) display width is not a type parameter.
    if (OneOf(base, {"BIGINT", "INT8", "LONG", "INT64", "BIGSERIAL", "SERIAL8"})) {
      return Make(TypeFamily::kInteger, Type::Int64());
    }
    if (OneOf(base, {"INT", "INTEGER", "INT4", "INT32", "MEDIUMINT", "SERIAL", "SERIAL4"})) {
      return Make(TypeFamily::kInteger, Type::Int32());
    }
    if (OneOf(base, {"SMALLINT", "INT2", "SHORT", "INT16", "SMALLSERIAL", "SERIAL2"})) {
      return Make(TypeFamily::kInteger, Type::Int16());
    }
    if (OneOf(base, {"TINYINT", "INT1", "BYTE"})) return Make(TypeFamily::kInteger, Type::Int8());
    // Floating point. FLOAT follows Spark (4 bytes); FLOAT(p) follows the SQL standard.
    if (OneOf(base, {"DOUBLE", "FLOAT8", "DOUBLE PRECISION", "FLOAT64", "BINARY_DOUBLE"}) &&
        no_args()) {
      return Make(TypeFamily::kNumber, Type::Float64());
    }
    if (OneOf(base, {"FLOAT", "REAL", "FLOAT4", "FLOAT32", "BINARY_FLOAT"})) {
      if (has_args && base == "FLOAT" && args.size() == 1) {
        return Make(TypeFamily::kNumber, args[0] <= 24 ? Type::Float32() : Type::Float64());
      }
      if (has_args) return Problem(TypeFamily::kNumber, "unexpected parameters");
      return Make(TypeFamily::kNumber, Type::Float32());
    }
    if (OneOf(base, {"DECIMAL", "NUMERIC", "NUMBER", "DEC", "BIGNUMERIC", "BIGDECIMAL"})) {
      int64_t precision = base == "NUMBER" ? 38 : 10;  // Snowflake's and Spark's defaults
      int64_t scale = 0;
      std::string problem;
      if (args.size() >= 1) precision = args[0];
      if (args.size() >= 2) scale = args[1];
      if (args.size() > 2) return Problem(TypeFamily::kNumber, "expects precision and scale");
      if (!has_args) {
        problem = fmt::format("no precision given: read as decimal({}, {})", precision, scale);
      }
      if (precision < 1 || precision > schema::kMaxDecimalPrecision || scale < 0 ||
          scale > precision) {
        return Problem(TypeFamily::kNumber,
                       fmt::format("decimal({}, {}) is outside precision 1..{} and scale "
                                   "0..precision",
                                   precision, scale, schema::kMaxDecimalPrecision));
      }
      PhysicalType p = Make(TypeFamily::kNumber,
                            *Type::Decimal(static_cast<int>(precision), static_cast<int>(scale)));
      p.problem = std::move(problem);
      return p;
    }
    if (OneOf(base, {"BOOLEAN", "BOOL", "LOGICAL"}) && no_args()) {
      return Make(TypeFamily::kBoolean, Type::Boolean());
    }
    if (base == "DATE" && no_args()) return Make(TypeFamily::kDate, Type::Date());
    if (OneOf(base, {"JSON", "JSONB", "VARIANT", "SUPER", "OBJECT"}) && no_args()) {
      return Make(TypeFamily::kJson, nullptr);
    }
    if (OneOf(base, {"STRUCT", "RECORD", "ROW"}) && no_args()) {
      return Make(TypeFamily::kObject, nullptr);
    }
    if (OneOf(base, {"MAP"}) && no_args()) return Make(TypeFamily::kObject, nullptr);
    if (OneOf(base, {"ARRAY", "LIST"}) && no_args()) return Make(TypeFamily::kArray, nullptr);
    if (OneOf(base, {"VOID", "NULL"}) && no_args()) return Make(TypeFamily::kNull, Type::Null());
  }
  // Timestamps and times, with an optional precision and zone suffix.
  bool with_zone = suffix == "WITH TIME ZONE" || suffix == "WITH LOCAL TIME ZONE";
  bool without_zone = suffix == "WITHOUT TIME ZONE";
  if (!suffix.empty() && !with_zone && !without_zone) return PhysicalType{};
  std::optional<TimeUnit> unit = TimeUnit::kMicros;
  if (has_args) {
    if (args.size() != 1) return Problem(TypeFamily::kTimestamp, "expects one precision");
    unit = UnitForPrecision(args[0]);
    if (!unit)
      return Problem(TypeFamily::kTimestamp, fmt::format("precision {} is not 0..9", args[0]));
  }
  if (base == "TIMESTAMP" || base == "DATETIME" || base == "DATETIME2" || base == "SMALLDATETIME" ||
      base == "DATETIMEOFFSET") {
    if (base == "DATETIMEOFFSET" || with_zone) {
      return Make(TypeFamily::kTimestamp, Type::Timestamp(*unit), true);
    }
    if (base != "TIMESTAMP" || without_zone) {
      return Make(TypeFamily::kTimestamp, Type::TimestampNtz(*unit), true);
    }
    return Make(TypeFamily::kTimestamp, Type::Timestamp(*unit), false);
  }
  if (suffix.empty()) {
    if (OneOf(base, {"TIMESTAMPTZ", "TIMESTAMP_TZ", "TIMESTAMP_LTZ", "TIMESTAMPLTZ"})) {
      return Make(TypeFamily::kTimestamp, Type::Timestamp(*unit), true);
    }
    if (OneOf(base, {"TIMESTAMP_NTZ", "TIMESTAMPNTZ"})) {
      return Make(TypeFamily::kTimestamp, Type::TimestampNtz(*unit), true);
    }
    if (!has_args && base == "TIMESTAMP_MS") {
      return Make(TypeFamily::kTimestamp, Type::TimestampNtz(TimeUnit::kMillis), true);
    }
    if (!has_args && base == "TIMESTAMP_NS") {
      return Make(TypeFamily::kTimestamp, Type::TimestampNtz(TimeUnit::kNanos), true);
    }
    if (!has_args && base == "TIMESTAMP_S") {
      PhysicalType p = Make(TypeFamily::kTimestamp, Type::TimestampNtz(TimeUnit::kMillis), true);
      p.problem = "second precision read as milliseconds";
      return p;
    }
  }
  if (base == "TIME" && !with_zone) return Make(TypeFamily::kTime, Type::Time(*unit));
  if ((base == "TIME" && with_zone) || (base == "TIMETZ" && suffix.empty())) {
    PhysicalType p = Make(TypeFamily::kTime, Type::Time(*unit));
    p.problem = "the time zone of a time of day is dropped";
    return p;
  }
  return PhysicalType{};
}

PhysicalType Parse(std::string_view original, int depth) {
  std::string_view trimmed = TrimWhitespace(original);
  if (trimmed.empty() || depth > schema::kMaxNestingDepth) return PhysicalType{};
  std::string upper = AsciiUpper(trimmed);
  if (StartsWith(upper, "ARRAY<") || StartsWith(upper, "STRUCT<") || StartsWith(upper, "MAP<")) {
    return ParseSparkNested(trimmed);
  }
  // PostgreSQL arrays: INTEGER[], TEXT[][], INT[3].
  if (trimmed.back() == ']') {
    size_t open = trimmed.rfind('[');
    if (open == std::string_view::npos || open == 0) return PhysicalType{};
    std::string_view inside = trimmed.substr(open + 1, trimmed.size() - open - 2);
    for (char c : inside) {
      if (c < '0' || c > '9') return PhysicalType{};
    }
    PhysicalType element = Parse(trimmed.substr(0, open), depth + 1);
    if (element.type == nullptr) return Problem(TypeFamily::kArray, element.problem);
    auto array = Type::Array(element.type);
    if (!array.has_value()) return Problem(TypeFamily::kArray, array.error().message());
    PhysicalType p = Make(TypeFamily::kArray, *array);
    p.problem = element.problem;
    return p;
  }
  std::string norm = Normalize(trimmed);
  std::string base = norm;
  std::string suffix;
  std::vector<int64_t> args;
  bool has_args = false;
  size_t open = norm.find('(');
  if (open != std::string::npos) {
    size_t close = norm.find(')', open);
    if (close == std::string::npos) return PhysicalType{};
    has_args = true;
    base = std::string(TrimWhitespace(std::string_view(norm).substr(0, open)));
    suffix = std::string(TrimWhitespace(std::string_view(norm).substr(close + 1)));
    std::string_view inner = std::string_view(norm).substr(open + 1, close - open - 1);
    if (TrimWhitespace(inner) == "MAX") {
      // VARCHAR(MAX), VARBINARY(MAX): unbounded.
      has_args = false;
    } else {
      for (std::string_view part : SplitString(inner, ',')) {
        part = TrimWhitespace(part);
        int64_t v = 0;
        auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
        if (ec != std::errc() || end != part.data() + part.size() || part.empty()) {
          return PhysicalType{};
        }
        args.push_back(v);
      }
    }
  } else {
    // A zone suffix without parameters: TIMESTAMP WITH TIME ZONE, TIME WITHOUT TIME ZONE.
    for (std::string_view s :
         {std::string_view(" WITH TIME ZONE"), std::string_view(" WITH LOCAL TIME ZONE"),
          std::string_view(" WITHOUT TIME ZONE")}) {
      if (EndsWith(norm, s)) {
        base = norm.substr(0, norm.size() - s.size());
        suffix = std::string(s.substr(1));
        break;
      }
    }
  }
  // Unsigned integers widen by one step; the sign is a constraint the model does not carry.
  if (EndsWith(base, " UNSIGNED") && suffix.empty()) {
    std::string signed_base = base.substr(0, base.size() - 9);
    PhysicalType p = ParseScalar(signed_base, args, has_args, suffix);
    if (p.family == TypeFamily::kInteger && p.type != nullptr) {
      TypeKind k = p.type->kind();
      if (k == TypeKind::kInt8)
        p.type = Type::Int16();
      else if (k == TypeKind::kInt16)
        p.type = Type::Int32();
      else if (k == TypeKind::kInt32)
        p.type = Type::Int64();
      else
        p.problem = "unsigned 64-bit integers may exceed int64";
      return p;
    }
    return PhysicalType{};
  }
  return ParseScalar(base, args, has_args, suffix);
}

}  // namespace

PhysicalType ParsePhysicalType(std::string_view text) { return Parse(text, 0); }

TypeFamily FamilyOf(const schema::Type& type) {
  auto family = schema::Overloaded{
      [](const schema::NullType&) { return TypeFamily::kNull; },
      [](const schema::BooleanType&) { return TypeFamily::kBoolean; },
      [](const schema::IntegerType&) { return TypeFamily::kInteger; },
      [](const schema::FloatingType&) { return TypeFamily::kNumber; },
      [](const schema::DecimalType&) { return TypeFamily::kNumber; },
      [](const schema::StringType&) { return TypeFamily::kString; },
      [](const schema::BinaryType&) { return TypeFamily::kString; },
      [](const schema::UuidType&) { return TypeFamily::kString; },
      [](const schema::DateType&) { return TypeFamily::kDate; },
      [](const schema::TimestampType&) { return TypeFamily::kTimestamp; },
      [](const schema::TimeType&) { return TypeFamily::kTime; },
      [](const schema::StructType&) { return TypeFamily::kObject; },
      [](const schema::MapType&) { return TypeFamily::kObject; },
      [](const schema::ArrayType&) { return TypeFamily::kArray; },
  };
  return schema::VisitType(type, family);
}

std::string_view TypeFamilyName(TypeFamily family) {
  switch (family) {
    case TypeFamily::kUnknown:
      return "unknown";
    case TypeFamily::kString:
      return "string";
    case TypeFamily::kInteger:
      return "integer";
    case TypeFamily::kNumber:
      return "number";
    case TypeFamily::kBoolean:
      return "boolean";
    case TypeFamily::kDate:
      return "date";
    case TypeFamily::kTimestamp:
      return "timestamp";
    case TypeFamily::kTime:
      return "time";
    case TypeFamily::kObject:
      return "object";
    case TypeFamily::kArray:
      return "array";
    case TypeFamily::kJson:
      return "json";
    case TypeFamily::kNull:
      return "null";
  }
  return "unknown";
}

}  // namespace sluice::dialects::contract::internal
