#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "sluice/base/strings.h"
#include "sluice/data/json_infer_internal.h"

namespace sluice::data::internal {

InferOutcome JsonTypeRules::String(std::string_view s, InferredType* out) const {
  if (s.empty()) {
    *out = InferredType::Null();
    return InferOutcome::kOk;
  }
  const JsonInferOptions& o = *options;
  if (o.prefers_decimal) {
    DecimalShape d;
    // DecimalType(precision, scale) throws for scale > precision or precision > 38 and, in
    // non-legacy mode, negative scales; allCatch then falls through to the next rule.
    if (ParseLocaleDecimalJson(s, locale, &d) && d.precision <= 38 && d.scale >= 0 &&
        d.scale <= d.precision) {
      *out = InferredType::Decimal(d.precision, d.scale);
      return InferOutcome::kOk;
    }
  }
  if (o.infer_timestamp) {
    DateTimeFields f;
    if (o.timestamp_type_ntz) {
      const bool ok = timestamp_ntz_pattern ? timestamp_ntz_pattern->Parse(s, &f)
                                            : ParseLenientTimestamp(s, &f);
      if (ok && !f.has_zone) {
        *out = InferredType::TimestampNtz();
        return InferOutcome::kOk;
      }
    }
    const bool ok =
        timestamp_pattern ? timestamp_pattern->Parse(s, &f) : ParseLenientTimestamp(s, &f);
    if (ok) {
      *out = InferredType::Timestamp();
      return InferOutcome::kOk;
    }
  }
  *out = InferredType::String();
  return InferOutcome::kOk;
}

InferOutcome JsonTypeRules::Number(std::string_view token, InferredType* out) {
  if (ShortLong(token)) {
    *out = options->primitives_as_string ? InferredType::String() : InferredType::Long();
    return InferOutcome::kOk;
  }
  DecimalShape d;
  const JsonNumberClass c = ClassifyJsonNumber(token, &d);
  if (c == JsonNumberClass::kInvalid) {
    return Fail(InferOutcome::kMalformed,
                fmt::format("invalid number \"{}\"", EscapeForMessage(token, 40)));
  }
  if (options->primitives_as_string) {
    *out = InferredType::String();
    return InferOutcome::kOk;
  }
  switch (c) {
    case JsonNumberClass::kLong:
      *out = InferredType::Long();
      return InferOutcome::kOk;
    case JsonNumberClass::kBigInteger:
      *out = d.precision <= 38 ? InferredType::Decimal(d.precision, 0) : InferredType::Double();
      return InferOutcome::kOk;
    case JsonNumberClass::kFloat: {
      if (!options->prefers_decimal) {
        *out = InferredType::Double();
        return InferOutcome::kOk;
      }
      const int p = std::max(d.precision, d.scale);
      if (p > 38) {
        *out = InferredType::Double();
        return InferOutcome::kOk;
      }
      if (d.scale < 0) {
        return Fail(InferOutcome::kFatal,
                    fmt::format("number {} would need decimal({},{}): Spark rejects negative "
                                "decimal scales and fails the inference",
                                EscapeForMessage(token, 40), p, d.scale));
      }
      *out = InferredType::Decimal(p, d.scale);
      return InferOutcome::kOk;
    }
    case JsonNumberClass::kNonNumeric:
      if (options->prefers_decimal) {
        // Jackson's getDecimalValue throws NumberFormatException: a corrupt record.
        return Fail(InferOutcome::kMalformed, fmt::format("{} has no decimal value", token));
      }
      *out = InferredType::Double();
      return InferOutcome::kOk;
    case JsonNumberClass::kInvalid:
      break;
  }
  return Fail(InferOutcome::kMalformed, "invalid number");
}

InferOutcome JsonTypeRules::NonNumeric(std::string_view raw, InferredType* acc, const char* error) {
  DecimalShape d;
  if (ClassifyJsonNumber(raw, &d) != JsonNumberClass::kNonNumeric) {
    return Fail(InferOutcome::kMalformed, error);
  }
  InferredType t;
  if (InferOutcome o = Number(raw, &t); o != InferOutcome::kOk) return o;
  Merge(acc, t);
  return InferOutcome::kOk;
}

InferOutcome JsonTypeRules::CheckDepth(uint32_t depth) {
  if (depth > options->max_depth) {
    return Fail(InferOutcome::kMalformed,
                fmt::format("nesting deeper than {} levels", options->max_depth));
  }
  return InferOutcome::kOk;
}

FieldSlots::Level& FieldSlots::Grow(uint32_t depth) {
  while (levels_.size() <= depth) levels_.push_back(std::make_unique<Level>());
  return *levels_[depth];
}

void FieldSlots::Begin(uint32_t depth) {
  Level& level = At(depth);
  level.added.clear();
  if (!level.added_index.empty()) level.added_index = StringMap<uint32_t>();
}

size_t FieldSlots::Search(const std::vector<InferredField>& fields, Level& level, uint32_t ordinal,
                          std::string_view key) {
  auto it = std::lower_bound(
      fields.begin(), fields.end(), key,
      [](const InferredField& f, std::string_view k) { return JavaStringCompare(f.name, k) < 0; });
  if (it == fields.end() || it->name != key) return fields.size();
  std::vector<uint32_t>& hints = level.hints;
  if (hints.size() <= ordinal) hints.resize(ordinal + 1);
  hints[ordinal] = static_cast<uint32_t>(it - fields.begin());
  return hints[ordinal];
}

InferredType* FieldSlots::Slot(std::vector<InferredField>& fields, uint32_t depth, uint32_t ordinal,
                               std::string_view key) {
  Level& level = At(depth);
  if (const size_t i = Locate(fields, level, ordinal, key); i < fields.size()) {
    return &fields[i].type;
  }
  // New in this record; or seen earlier in this object (a duplicate key, merged into one).
  std::vector<InferredField>& added = level.added;
  constexpr size_t kIndexFrom = 8;
  if (added.size() < kIndexFrom) {
    for (InferredField& f : added) {
      if (f.name == key) return &f.type;
    }
  } else {
    if (level.added_index.empty()) {
      for (size_t i = 0; i < added.size(); ++i) {
        level.added_index.emplace(added[i].name, static_cast<uint32_t>(i));
      }
    }
    if (auto found = level.added_index.find(key); found != level.added_index.end()) {
      return &added[found->second].type;
    }
    level.added_index.emplace(std::string(key), static_cast<uint32_t>(added.size()));
  }
  added.push_back(InferredField{std::string(key), InferredType::Null()});
  return &added.back().type;
}

void FieldSlots::End(std::vector<InferredField>& fields, uint32_t depth) {
  Level& level = At(depth);
  std::vector<InferredField>& added = level.added;
  if (added.empty()) return;
  std::vector<uint32_t> order(added.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return JavaStringCompare(added[a].name, added[b].name) < 0;
  });
  std::vector<InferredField> merged;
  merged.reserve(fields.size() + added.size());
  size_t i = 0;
  for (uint32_t k : order) {
    while (i < fields.size() && JavaStringCompare(fields[i].name, added[k].name) < 0) {
      merged.push_back(std::move(fields[i++]));
    }
    merged.push_back(std::move(added[k]));
  }
  while (i < fields.size()) merged.push_back(std::move(fields[i++]));
  fields = std::move(merged);
  added.clear();
  if (!level.added_index.empty()) level.added_index = StringMap<uint32_t>();
}

}  // namespace sluice::data::internal
