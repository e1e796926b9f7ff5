#include "sluice/data/inferred_type.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace sluice::data {

namespace {

// The first UTF-16 code unit of the code point at s[*i] and the second one (0 when there is
// none); advances *i. Bad bytes stand for themselves so the order stays total.
void NextUtf16(std::string_view s, size_t* i, uint32_t* first, uint32_t* second) {
  const auto b0 = static_cast<unsigned char>(s[*i]);
  uint32_t cp = b0;
  size_t len = 1;
  if (b0 >= 0xF0 && b0 <= 0xF4 && *i + 3 < s.size()) {
    cp = ((b0 & 0x07u) << 18) | ((static_cast<unsigned char>(s[*i + 1]) & 0x3Fu) << 12) |
         ((static_cast<unsigned char>(s[*i + 2]) & 0x3Fu) << 6) |
         (static_cast<unsigned char>(s[*i + 3]) & 0x3Fu);
    len = 4;
  } else if (b0 >= 0xE0 && b0 <= 0xEF && *i + 2 < s.size()) {
    cp = ((b0 & 0x0Fu) << 12) | ((static_cast<unsigned char>(s[*i + 1]) & 0x3Fu) << 6) |
         (static_cast<unsigned char>(s[*i + 2]) & 0x3Fu);
    len = 3;
  } else if (b0 >= 0xC2 && b0 <= 0xDF && *i + 1 < s.size()) {
    cp = ((b0 & 0x1Fu) << 6) | (static_cast<unsigned char>(s[*i + 1]) & 0x3Fu);
    len = 2;
  }
  *i += len;
  if (cp >= 0x10000) {
    const uint32_t v = cp - 0x10000;
    *first = 0xD800 + (v >> 10);
    *second = 0xDC00 + (v & 0x3FF);
  } else {
    *first = cp;
    *second = 0;
  }
}

InferredType DecimalForIntegral(const InferredType& t) {
  // DecimalType.forType: IntegerType -> decimal(10,0), LongType -> decimal(20,0).
  return InferredType::Decimal(t.kind() == InferredKind::kInt ? 10 : 20, 0);
}

int Rank(InferredKind k) {
  switch (k) {
    case InferredKind::kInt:
      return 1;
    case InferredKind::kLong:
      return 2;
    case InferredKind::kDouble:
      return 3;
    case InferredKind::kNull:
    case InferredKind::kBoolean:
    case InferredKind::kDecimal:
    case InferredKind::kString:
    case InferredKind::kDate:
    case InferredKind::kTimestamp:
    case InferredKind::kTimestampNtz:
    case InferredKind::kStruct:
    case InferredKind::kArray:
      return 0;
  }
  return 0;
}

bool IsDatetime(InferredKind k) {
  return k == InferredKind::kDate || k == InferredKind::kTimestamp ||
         k == InferredKind::kTimestampNtz;
}

}  // namespace

InferredType InferredType::Decimal(int precision, int scale) {
  InferredType t(InferredKind::kDecimal);
  t.precision_ = static_cast<int16_t>(precision);
  t.scale_ = static_cast<int16_t>(scale);
  return t;
}

InferredType InferredType::Struct(std::vector<InferredField> fields) {
  InferredType t(InferredKind::kStruct);
  std::stable_sort(fields.begin(), fields.end(),
                   [](const InferredField& a, const InferredField& b) {
                     return JavaStringCompare(a.name, b.name) < 0;
                   });
  t.fields_ = std::move(fields);
  return t;
}

InferredType InferredType::Array(InferredType element, bool contains_null) {
  InferredType t(InferredKind::kArray);
  t.contains_null_ = contains_null;
  t.element_.push_back(std::move(element));
  return t;
}

bool InferredType::operator==(const InferredType& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case InferredKind::kDecimal:
      return precision_ == other.precision_ && scale_ == other.scale_;
    case InferredKind::kStruct:
      return fields_ == other.fields_;
    case InferredKind::kArray:
      return contains_null_ == other.contains_null_ && element_ == other.element_;
    case InferredKind::kNull:
    case InferredKind::kBoolean:
    case InferredKind::kInt:
    case InferredKind::kLong:
    case InferredKind::kDouble:
    case InferredKind::kString:
    case InferredKind::kDate:
    case InferredKind::kTimestamp:
    case InferredKind::kTimestampNtz:
      return true;
  }
  return true;
}

std::string InferredType::ToString() const {
  switch (kind_) {
    case InferredKind::kNull:
      return "void";
    case InferredKind::kBoolean:
      return "boolean";
    case InferredKind::kInt:
      return "int";
    case InferredKind::kLong:
      return "bigint";
    case InferredKind::kDouble:
      return "double";
    case InferredKind::kDecimal:
      return fmt::format("decimal({},{})", precision_, scale_);
    case InferredKind::kString:
      return "string";
    case InferredKind::kDate:
      return "date";
    case InferredKind::kTimestamp:
      return "timestamp";
    case InferredKind::kTimestampNtz:
      return "timestamp_ntz";
    case InferredKind::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i > 0) out += ',';
        out += fields_[i].name;
        out += ':';
        out += fields_[i].type.ToString();
      }
      out += '>';
      return out;
    }
    case InferredKind::kArray:
      return "array<" + element_.front().ToString() + ">";
  }
  return "";
}

int JavaStringCompare(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  size_t k = 0;
  while (k < n && a[k] == b[k]) ++k;
  if (k == n) {
    if (a.size() == b.size()) return 0;
    return a.size() < b.size() ? -1 : 1;
  }
  const auto ca = static_cast<unsigned char>(a[k]);
  const auto cb = static_cast<unsigned char>(b[k]);
  // Below U+E000 (lead bytes up to 0xED) byte order and UTF-16 order agree, as they do for
  // any two ASCII bytes; only the U+E000..U+FFFF versus supplementary case needs decoding.
  if (ca < 0xEE && cb < 0xEE) return ca < cb ? -1 : 1;
  // Back up to the start of the code point that holds the first difference.
  size_t start = k;
  while (start > 0 && (static_cast<unsigned char>(a[start]) & 0xC0) == 0x80) --start;
  size_t i = start;
  size_t j = start;
  while (i < a.size() && j < b.size()) {
    uint32_t a1 = 0, a2 = 0, b1 = 0, b2 = 0;
    NextUtf16(a, &i, &a1, &a2);
    NextUtf16(b, &j, &b1, &b2);
    if (a1 != b1) return a1 < b1 ? -1 : 1;
    // Equal first units cannot mix a BMP character with a pair, so the second units compare
    // like for like.
    if (a2 != b2) return a2 < b2 ? -1 : 1;
  }
  if (i >= a.size() && j >= b.size()) return 0;
  return i >= a.size() ? -1 : 1;
}

InferredType WidenDecimals(int p1, int s1, int p2, int s2) {
  const int scale = std::max(s1, s2);
  const int range = std::max(p1 - s1, p2 - s2);
  if (range + scale > schema::kMaxDecimalPrecision) return InferredType::Double();
  return InferredType::Decimal(range + scale, scale);
}

bool FindTightestCommonType(const InferredType& a, const InferredType& b, InferredType* out) {
  if (a == b) {
    *out = a;
    return true;
  }
  if (a.is_null()) {
    *out = b;
    return true;
  }
  if (b.is_null()) {
    *out = a;
    return true;
  }
  // Integral + a decimal wide enough for it (DecimalType.isWiderThan).
  if (a.is_integral() && b.kind() == InferredKind::kDecimal) {
    const InferredType d = DecimalForIntegral(a);
    if (b.precision() - b.scale() >= d.precision() - d.scale() && b.scale() >= 0) {
      *out = b;
      return true;
    }
    return false;
  }
  if (b.is_integral() && a.kind() == InferredKind::kDecimal) {
    return FindTightestCommonType(b, a, out);
  }
  const int ra = Rank(a.kind());
  const int rb = Rank(b.kind());
  if (ra > 0 && rb > 0) {
    *out = ra >= rb ? a : b;
    return true;
  }
  if (IsDatetime(a.kind()) && IsDatetime(b.kind())) {
    // findWiderDateTimeType: any TimestampType wins, then TimestampNTZType.
    if (a.kind() == InferredKind::kTimestamp || b.kind() == InferredKind::kTimestamp) {
      *out = InferredType::Timestamp();
    } else {
      *out = InferredType::TimestampNtz();
    }
    return true;
  }
  // Structs with the same field names in order, and arrays, recurse; all else has no tightest
  // type. Spark's struct/array rules only matter here for equal shapes, which the JSON fallback
  // below handles identically, so they are left to it.
  return false;
}

void MergeInto(InferredType* into, const InferredType& other) {
  if (other.is_null()) return;
  if (into->is_null()) {
    *into = other;
    return;
  }
  if (into->is_struct() && other.is_struct()) {
    std::vector<InferredField>& mine = into->mutable_fields();
    const std::vector<InferredField>& theirs = other.fields();
    // Sorted merge; new fields are collected and spliced in once to keep this linear.
    std::vector<InferredField> merged;
    merged.reserve(mine.size() + theirs.size());
    size_t i = 0;
    size_t j = 0;
    while (i < mine.size() && j < theirs.size()) {
      const int c = JavaStringCompare(mine[i].name, theirs[j].name);
      if (c == 0) {
        MergeInto(&mine[i].type, theirs[j].type);
        merged.push_back(std::move(mine[i]));
        ++i;
        ++j;
      } else if (c < 0) {
        merged.push_back(std::move(mine[i]));
        ++i;
      } else {
        merged.push_back(theirs[j]);
        ++j;
      }
    }
    for (; i < mine.size(); ++i) merged.push_back(std::move(mine[i]));
    for (; j < theirs.size(); ++j) {
      merged.push_back(theirs[j]);
    }
    mine = std::move(merged);
    return;
  }
  if (into->is_array() && other.is_array()) {
    MergeInto(&into->mutable_element(), other.element());
    into->set_contains_null(into->contains_null() || other.contains_null());
    return;
  }
  *into = CompatibleType(*into, other);
}

InferredType CompatibleType(const InferredType& a, const InferredType& b) {
  if (a.is_struct() && b.is_struct()) {
    InferredType out = a;
    MergeInto(&out, b);
    return out;
  }
  if (a.is_array() && b.is_array()) {
    InferredType out = a;
    MergeInto(&out, b);
    return out;
  }
  InferredType tight;
  if (FindTightestCommonType(a, b, &tight)) return tight;
  const InferredKind ka = a.kind();
  const InferredKind kb = b.kind();
  if ((ka == InferredKind::kDouble && kb == InferredKind::kDecimal) ||
      (ka == InferredKind::kDecimal && kb == InferredKind::kDouble)) {
    return InferredType::Double();
  }
  if (ka == InferredKind::kDecimal && kb == InferredKind::kDecimal) {
    return WidenDecimals(a.precision(), a.scale(), b.precision(), b.scale());
  }
  if (a.is_integral() && kb == InferredKind::kDecimal) {
    const InferredType d = DecimalForIntegral(a);
    return WidenDecimals(d.precision(), d.scale(), b.precision(), b.scale());
  }
  if (ka == InferredKind::kDecimal && b.is_integral()) {
    const InferredType d = DecimalForIntegral(b);
    return WidenDecimals(a.precision(), a.scale(), d.precision(), d.scale());
  }
  // TimestampNTZ + Timestamp is handled by findTightestCommonType above; every other pair
  // (boolean + number, struct + array, anything + string, date + number) is a string.
  return InferredType::String();
}

Result<schema::TypePtr> ToSchemaType(const InferredType& type) {
  using schema::Type;
  switch (type.kind()) {
    case InferredKind::kNull:
      return Type::Null();
    case InferredKind::kBoolean:
      return Type::Boolean();
    case InferredKind::kInt:
      return Type::Int32();
    case InferredKind::kLong:
      return Type::Int64();
    case InferredKind::kDouble:
      return Type::Float64();
    case InferredKind::kDecimal:
      return Type::Decimal(type.precision(), type.scale());
    case InferredKind::kString:
      return Type::String();
    case InferredKind::kDate:
      return Type::Date();
    case InferredKind::kTimestamp:
      return Type::Timestamp();
    case InferredKind::kTimestampNtz:
      return Type::TimestampNtz();
    case InferredKind::kStruct: {
      std::vector<schema::Field> fields;
      fields.reserve(type.fields().size());
      for (const InferredField& f : type.fields()) {
        SLUICE_ASSIGN_OR_RETURN(schema::TypePtr t, ToSchemaType(f.type));
        fields.emplace_back(f.name, std::move(t), true);
      }
      return Type::Struct(std::move(fields));
    }
    case InferredKind::kArray: {
      SLUICE_ASSIGN_OR_RETURN(schema::TypePtr e, ToSchemaType(type.element()));
      return Type::Array(std::move(e), type.contains_null());
    }
  }
  return Internal("unknown inferred type kind");
}

Result<InferredType> FromSchemaType(const schema::Type& type) {
  using schema::TypeKind;
  switch (type.kind()) {
    case TypeKind::kNull:
      return InferredType::Null();
    case TypeKind::kBoolean:
      return InferredType::Boolean();
    case TypeKind::kInt32:
      return InferredType::Int();
    case TypeKind::kInt64:
      return InferredType::Long();
    case TypeKind::kFloat64:
      return InferredType::Double();
    case TypeKind::kDecimal:
      return InferredType::Decimal(type.precision(), type.scale());
    case TypeKind::kString:
      return InferredType::String();
    case TypeKind::kDate:
      return InferredType::Date();
    case TypeKind::kTimestamp:
      return InferredType::Timestamp();
    case TypeKind::kTimestampNtz:
      return InferredType::TimestampNtz();
    case TypeKind::kStruct: {
      std::vector<InferredField> fields;
      for (const schema::Field& f : type.fields()) {
        SLUICE_ASSIGN_OR_RETURN(InferredType t, FromSchemaType(*f.type()));
        fields.push_back(InferredField{f.name(), std::move(t)});
      }
      return InferredType::Struct(std::move(fields));
    }
    case TypeKind::kArray: {
      SLUICE_ASSIGN_OR_RETURN(InferredType e, FromSchemaType(*type.element_type()));
      return InferredType::Array(std::move(e), type.contains_null());
    }
    case TypeKind::kInt8:
    case TypeKind::kInt16:
    case TypeKind::kFloat32:
    case TypeKind::kBinary:
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kMap:
      break;
  }
  return InvalidArgument(
      fmt::format("type {} is never produced by schema inference", type.ToString()));
}

}  // namespace sluice::data
