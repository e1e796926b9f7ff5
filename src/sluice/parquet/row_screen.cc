#include "sluice/parquet/row_screen.h"

#include <charconv>
#include <cmath>
#include <unordered_map>

#include "sluice/base/powers_of_ten.h"

namespace sluice::parquet {
namespace {

using Kind = AssemblyNode::Kind;
using schema::TypeKind;

// The check a leaf of `type` needs; false for types the screen does not vouch for.
bool LeafCheck(const schema::Type& type, AssemblyNode& n) {
  switch (type.kind()) {
    case TypeKind::kBoolean:
    case TypeKind::kInt32:
    case TypeKind::kInt64:
      n.screen.check = ScreenCheck::kNone;
      return true;
    case TypeKind::kInt8:
      n.screen.check = ScreenCheck::kInt8;
      return true;
    case TypeKind::kInt16:
      n.screen.check = ScreenCheck::kInt16;
      return true;
    case TypeKind::kFloat32:
      n.screen.check = ScreenCheck::kNoExponent;
      return true;
    case TypeKind::kFloat64:
      n.screen.check = ScreenCheck::kNone;
      return true;
    case TypeKind::kDecimal:
      if (type.precision() <= 0 || type.precision() > 38) return false;
      n.screen.check = ScreenCheck::kDigits;
      n.screen.arg = static_cast<uint8_t>(type.precision());
      return true;
    case TypeKind::kString:
      if (type.string_length() != schema::StringLength::kUnbounded) return false;
      n.screen.check = ScreenCheck::kNone;
      return true;
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
      n.screen.check = ScreenCheck::kFourDigitYear;
      return true;
    case TypeKind::kNull:
    case TypeKind::kBinary:
    case TypeKind::kTime:
    case TypeKind::kUuid:
    case TypeKind::kStruct:
    case TypeKind::kArray:
    case TypeKind::kMap:
      return false;
  }
  return false;
}

class Planner {
 public:
  Planner(const ReadSchema& schema, AssemblyPlan& plan) : schema_(schema), plan_(plan) {}

  // Node `i` of the plan holds values of the file's type `file`, judged against `want`.
  bool Node(uint32_t i, const schema::Type& file, const schema::Type& want, bool nullable) {
    AssemblyNode& n = plan_.nodes[i];
    n.screen_null = !nullable;
    switch (n.kind) {
      case Kind::kLeaf:
        return !file.is_nested() && file.Equals(want, false) && LeafCheck(want, n);
      case Kind::kList: {
        if (!file.is_array() || !want.is_array() || n.children.size() != 1) return false;
        return Node(n.children[0], *file.element_type(), *want.element_type(),
                    want.contains_null());
      }
      case Kind::kStruct:
        return file.is_struct() && want.is_struct() && Struct(i, file, want, "");
      case Kind::kMap:
      case Kind::kAbsent:
        return false;
    }
    return false;
  }

  // Struct node `i`: every field of `want` once, nothing else but `null_only` (last).
  bool Struct(uint32_t i, const schema::Type& file, const schema::Type& want,
              const std::string& null_only) {
    const std::vector<uint32_t>& children = plan_.nodes[i].children;
    if (children.size() != file.fields().size()) return false;
    std::unordered_map<std::string_view, size_t> wanted;
    for (size_t k = 0; k < want.fields().size(); ++k) wanted.emplace(want.fields()[k].name(), k);
    if (wanted.size() != want.fields().size()) return false;
    size_t matched = 0;
    for (size_t k = 0; k < children.size(); ++k) {
      const std::string& name = schema_.names[children[k]];
      if (name != file.fields()[k].name()) return false;
      auto it = wanted.find(name);
      if (it == wanted.end()) {
        if (null_only.empty() || name != null_only || k + 1 != children.size()) return false;
        if (file.fields()[k].type()->kind() != TypeKind::kString) return false;
        AssemblyNode& n = plan_.nodes[children[k]];
        if (n.kind != Kind::kLeaf) return false;
        n.screen.check = ScreenCheck::kNull;
        holds_null_only_ = true;
        continue;
      }
      const schema::Field& w = want.fields()[it->second];
      if (!Node(children[k], *file.fields()[k].type(), *w.type(), w.nullable())) return false;
      ++matched;
    }
    return matched == want.fields().size();
  }

  bool holds_null_only() const { return holds_null_only_; }

 private:
  const ReadSchema& schema_;
  AssemblyPlan& plan_;
  bool holds_null_only_ = false;
};

}  // namespace

std::optional<ScreenedPlan> PlanRowScreen(const ReadSchema& schema, const RowScreen& screen) {
  if (screen.type == nullptr || !screen.type->is_struct()) return std::nullopt;
  if (screen.type->FindField(screen.null_only) != nullptr) return std::nullopt;
  ScreenedPlan out;
  out.plan = schema.plan;
  Planner planner(schema, out.plan);
  const schema::Type& file = *schema.parquet->model()->struct_type();
  if (!planner.Struct(0, file, *screen.type, screen.null_only)) return std::nullopt;
  out.holds_null_only = planner.holds_null_only();
  return out;
}

bool PassesScreen(ScreenCheck check, uint8_t arg, const char* text, size_t size) {
  switch (check) {
    case ScreenCheck::kNone:
      return true;
    case ScreenCheck::kNoExponent:
      for (size_t i = 0; i < size; ++i) {
        if (text[i] == 'e' || text[i] == 'E') return false;
      }
      return true;
    case ScreenCheck::kDigits: {
      size_t digits = 0;
      for (size_t i = 0; i < size; ++i) digits += text[i] >= '0' && text[i] <= '9';
      return digits <= arg;
    }
    case ScreenCheck::kInt8:
    case ScreenCheck::kInt16: {
      int64_t v = 0;
      const auto [end, ec] = std::from_chars(text, text + size, v);
      if (ec != std::errc() || end != text + size) return false;
      const int64_t limit = check == ScreenCheck::kInt8 ? 128 : 32768;
      return v >= -limit && v < limit;
    }
    case ScreenCheck::kFourDigitYear: {
      if (size < 6 || text[0] != '"' || text[5] != '-') return false;
      for (size_t i = 1; i < 5; ++i) {
        if (text[i] < '0' || text[i] > '9') return false;
      }
      return true;
    }
    case ScreenCheck::kNull:
      return false;
  }
  return false;
}

namespace {

using FormatKind = ValueFormat::Kind;

// Days from 1970-01-01 to 0000-01-01 and to 9999-12-31: the dates printed with four digits.
constexpr int64_t kFirstDay = -719528;
constexpr int64_t kLastDay = 2932896;
constexpr int64_t kMicrosPerDay = int64_t{86400} * 1000000;

// |v| < 10^digits.
bool FitsDigits(int64_t v, uint8_t digits) {
  if (digits >= 19) return true;
  const uint64_t limit = kPowersOfTen[digits];
  const uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  return magnitude < limit;
}

bool FourDigitYear(int64_t v, TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kMillis:
      return v >= kFirstDay * (kMicrosPerDay / 1000) && v < (kLastDay + 1) * (kMicrosPerDay / 1000);
    case TimeUnit::kMicros:
      return v >= kFirstDay * kMicrosPerDay && v < (kLastDay + 1) * kMicrosPerDay;
    case TimeUnit::kNanos:
      return true;  // 1677 to 2262
  }
  return false;
}

}  // namespace

bool PassesScreen(const ValueFormat&, const ValueScreen& screen, bool) {
  return screen.check == ScreenCheck::kNone;
}

bool PassesScreen(const ValueFormat& format, const ValueScreen& screen, int32_t v) {
  switch (screen.check) {
    case ScreenCheck::kNone:
      return format.kind == FormatKind::kInt32 || format.kind == FormatKind::kUint32;
    case ScreenCheck::kInt8:
      return format.kind == FormatKind::kInt32 && v >= -128 && v <= 127;
    case ScreenCheck::kInt16:
      return format.kind == FormatKind::kInt32 && v >= -32768 && v <= 32767;
    case ScreenCheck::kFourDigitYear:
      return format.kind == FormatKind::kDate && v >= kFirstDay && v <= kLastDay;
    case ScreenCheck::kDigits:
      return format.kind == FormatKind::kDecimal && FitsDigits(v, screen.arg);
    case ScreenCheck::kNoExponent:
    case ScreenCheck::kNull:
      return false;
  }
  return false;
}

bool PassesScreen(const ValueFormat& format, const ValueScreen& screen, int64_t v) {
  switch (screen.check) {
    case ScreenCheck::kNone:
      return format.kind == FormatKind::kInt64;
    case ScreenCheck::kFourDigitYear:
      return format.kind == FormatKind::kTimestamp && FourDigitYear(v, format.unit);
    case ScreenCheck::kDigits:
      return format.kind == FormatKind::kDecimal && FitsDigits(v, screen.arg);
    case ScreenCheck::kInt8:
    case ScreenCheck::kInt16:
    case ScreenCheck::kNoExponent:
    case ScreenCheck::kNull:
      return false;
  }
  return false;
}

bool PassesScreen(const ValueFormat&, const ValueScreen&, const Int96&) { return false; }

bool PassesScreen(const ValueFormat& format, const ValueScreen& screen, float v) {
  // Only numbers far from float32's ends print without an exponent that reads back out of range.
  if (format.kind != FormatKind::kFloat || screen.check != ScreenCheck::kNoExponent) return false;
  const float a = std::fabs(v);
  return !std::isfinite(v) || a == 0.0f || (a >= 1e-30f && a <= 1e30f);
}

bool PassesScreen(const ValueFormat& format, const ValueScreen& screen, double) {
  return format.kind == FormatKind::kDouble && screen.check == ScreenCheck::kNone;
}

bool PassesScreen(const ValueFormat& format, const ValueScreen& screen, std::string_view v) {
  if (screen.check == ScreenCheck::kNone) return format.kind == FormatKind::kString;
  // A decimal in bytes: big-endian two's complement, read when it fits 64 bits.
  if (screen.check != ScreenCheck::kDigits || format.kind != FormatKind::kDecimal) return false;
  if (v.empty() || v.size() > 8) return false;
  uint64_t u = static_cast<unsigned char>(v[0]) >= 0x80 ? ~uint64_t{0} : 0;
  for (char c : v) u = (u << 8) | static_cast<unsigned char>(c);
  return FitsDigits(static_cast<int64_t>(u), screen.arg);
}

}  // namespace sluice::parquet
