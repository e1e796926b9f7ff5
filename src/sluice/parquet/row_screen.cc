#include "sluice/parquet/row_screen.h"

#include <charconv>
#include <unordered_map>

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
      n.screen = ScreenCheck::kNone;
      return true;
    case TypeKind::kInt8:
      n.screen = ScreenCheck::kInt8;
      return true;
    case TypeKind::kInt16:
      n.screen = ScreenCheck::kInt16;
      return true;
    case TypeKind::kFloat32:
      n.screen = ScreenCheck::kNoExponent;
      return true;
    case TypeKind::kFloat64:
      n.screen = ScreenCheck::kNone;
      return true;
    case TypeKind::kDecimal:
      if (type.precision() <= 0 || type.precision() > 38) return false;
      n.screen = ScreenCheck::kDigits;
      n.screen_arg = static_cast<uint8_t>(type.precision());
      return true;
    case TypeKind::kString:
      if (type.string_length() != schema::StringLength::kUnbounded) return false;
      n.screen = ScreenCheck::kNone;
      return true;
    case TypeKind::kDate:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampNtz:
      n.screen = ScreenCheck::kFourDigitYear;
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
        n.screen = ScreenCheck::kNull;
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

}  // namespace sluice::parquet
