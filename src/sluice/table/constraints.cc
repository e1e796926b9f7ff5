#include "sluice/table/constraints.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/table/expression.h"

namespace sluice::table {

struct TableConstraints::Compiled {
  std::string name;
  std::string text;
  bool invariant = false;
  BoundExpression expression;
};

namespace {

Result<BoundExpression> Compile(std::string_view what, std::string_view text,
                                const schema::Schema& schema) {
  Result<ExpressionPtr> parsed = ParseExpression(text);
  if (!parsed.has_value()) {
    return InvalidArgument(fmt::format("{} ({}): {}", what, text, parsed.error().message()));
  }
  Result<BoundExpression> bound = Bind(**parsed, schema);
  if (!bound.has_value()) {
    return InvalidArgument(fmt::format("{} ({}): {}", what, text, bound.error().message()));
  }
  return std::move(*bound);
}

// The value at a struct path of a record, as JSON text ("null" where absent).
std::string ValueAt(const JsonValue& row, const schema::FieldPath& path) {
  const JsonValue* v = &row;
  for (const schema::PathSegment& s : path.segments()) {
    if (s.kind != schema::PathSegment::Kind::kField || !v->is_object()) return "null";
    const JsonValue* next = v->Find(s.name);
    if (next == nullptr) {
      // Columns resolve ignoring case, as Spark does.
      for (const JsonMember& m : v->members()) {
        if (AsciiLower(m.key) == AsciiLower(s.name)) next = &m.value;
      }
    }
    if (next == nullptr) return "null";
    v = next;
  }
  return ToJson(*v);
}

// Invariants: `delta.invariants` field metadata holds {"expression":{"expression":"x > 3"}} as a
// JSON string.
Status CollectInvariants(const schema::Schema& schema,
                         std::vector<std::pair<std::string, std::string>>& out) {
  Status status = Ok();
  schema::VisitFields(schema, [&](const schema::FieldPath& path, const schema::Field& field) {
    const JsonValue* inv = field.metadata().Find("delta.invariants");
    if (inv == nullptr || !status.has_value()) return;
    Result<JsonValue> parsed = inv->is_string() ? ParseJson(inv->as_string()) : *inv;
    const JsonValue* outer = parsed.has_value() ? parsed->Find("expression") : nullptr;
    const JsonValue* inner = outer != nullptr ? outer->Find("expression") : nullptr;
    if (inner == nullptr || !inner->is_string()) {
      status = InvalidArgument(
          fmt::format("{}: delta.invariants must be {{\"expression\":{{\"expression\":\"...\"}}}}",
                      path.ToString()));
      return;
    }
    out.emplace_back(path.ToString(), inner->as_string());
  });
  return status;
}

}  // namespace

TableConstraints::TableConstraints() = default;
TableConstraints::~TableConstraints() = default;
TableConstraints::TableConstraints(TableConstraints&&) noexcept = default;
TableConstraints& TableConstraints::operator=(TableConstraints&&) noexcept = default;

std::string ConstraintKey(std::string_view name) { return "delta.constraints." + AsciiLower(name); }

Status CheckConstraintExpression(std::string_view expression, const schema::Schema& schema) {
  SLUICE_TRY(Compile("CHECK constraint", expression, schema));
  return Ok();
}

Result<TableConstraints> TableConstraints::Compile(const Metadata& metadata,
                                                   const schema::Schema& schema) {
  TableConstraints out;
  constexpr std::string_view kPrefix = "delta.constraints.";
  for (const auto& [key, text] : metadata.configuration) {
    if (!key.starts_with(kPrefix)) continue;
    std::string name = key.substr(kPrefix.size());
    SLUICE_ASSIGN_OR_RETURN(BoundExpression bound,
                            table::Compile(fmt::format("CHECK constraint {}", name), text, schema));
    out.checks_.push_back(
        std::make_shared<Compiled>(Compiled{name, text, false, std::move(bound)}));
  }
  std::vector<std::pair<std::string, std::string>> invariants;
  SLUICE_TRY(CollectInvariants(schema, invariants));
  for (auto& [path, text] : invariants) {
    SLUICE_ASSIGN_OR_RETURN(BoundExpression bound,
                            table::Compile(fmt::format("invariant of {}", path), text, schema));
    out.checks_.push_back(std::make_shared<Compiled>(Compiled{path, text, true, std::move(bound)}));
  }
  return out;
}

Result<std::optional<ConstraintViolation>> TableConstraints::Check(const JsonValue& row) const {
  for (const auto& c : checks_) {
    SLUICE_ASSIGN_OR_RETURN(Truth truth, c->expression.Evaluate(row));
    if (!Violates(truth)) continue;
    ConstraintViolation v;
    v.name = c->name;
    v.expression = c->text;
    v.invariant = c->invariant;
    for (const schema::FieldPath& p : c->expression.referenced_columns()) {
      v.values.emplace_back(p.ToString(), ValueAt(row, p));
    }
    return std::optional<ConstraintViolation>(std::move(v));
  }
  return std::optional<ConstraintViolation>();
}

std::string ConstraintViolation::Message() const {
  std::string out;
  if (invariant) {
    out = fmt::format(
        "[DELTA_VIOLATE_CONSTRAINT_WITH_VALUES] Invariant {} violated by row with "
        "values:",
        expression);
  } else {
    out = fmt::format(
        "[DELTA_VIOLATE_CONSTRAINT_WITH_VALUES] CHECK constraint {} {} violated by "
        "row with values:",
        name, expression);
  }
  for (const auto& [column, value] : values) out += fmt::format("\n - {} : {}", column, value);
  return out;
}

}  // namespace sluice::table
