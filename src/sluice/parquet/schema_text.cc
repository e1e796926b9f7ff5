// The parquet-mr text form of a schema: writing it, and a recursive-descent parser bounded in
// depth that names the byte offset of every error.
#include "sluice/parquet/schema_text.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <limits>

#include "sluice/base/json.h"
#include "sluice/base/strings.h"
#include "sluice/parquet/schema_map_internal.h"

namespace sluice::parquet {

namespace {

using internal::kMaxElementDepth;

bool IsDelimiter(char c) {
  switch (c) {
    case '{':
    case '}':
    case '(':
    case ')':
    case ';':
    case '=':
    case ',':
    case '`':
      return true;
    default:
      return false;
  }
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool IsBareNameChar(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x20 && u != 0x7f && !IsSpace(c) && !IsDelimiter(c);
}

std::string NameText(std::string_view name) {
  bool bare = !name.empty() && !StartsWith(name, "//");
  for (char c : name) bare = bare && IsBareNameChar(c);
  if (bare) return std::string(name);
  std::string out = "`";
  for (char c : name) {
    out += c;
    if (c == '`') out += '`';
  }
  out += '`';
  return out;
}

std::string_view RepetitionText(const std::optional<Repetition>& r) {
  if (r == Repetition::kOptional) return "optional";
  if (r == Repetition::kRepeated) return "repeated";
  return "required";
}

void AppendTail(const SchemaElement& e, std::string& out) {
  const std::string annotation = internal::AnnotationText(e);
  if (!annotation.empty()) fmt::format_to(std::back_inserter(out), " ({})", annotation);
  if (e.field_id) fmt::format_to(std::back_inserter(out), " = {}", *e.field_id);
}

}  // namespace

std::string MessageTypeText(const std::vector<SchemaElement>& elements) {
  if (elements.empty()) return "";
  std::string out = "message " + NameText(elements[0].name);
  const std::string root_annotation = internal::AnnotationText(elements[0]);
  if (!root_annotation.empty()) out += " (" + root_annotation + ")";
  out += " {\n";
  // The children each open group still has to print; the root is open[0].
  std::vector<int64_t> open = {elements[0].num_children.value_or(0)};
  auto close_finished = [&] {
    while (!open.empty() && open.back() <= 0) {
      open.pop_back();
      out.append(2 * open.size(), ' ');
      out += "}\n";
    }
  };
  close_finished();
  for (size_t i = 1; i < elements.size() && !open.empty(); ++i) {
    const SchemaElement& e = elements[i];
    out.append(2 * open.size(), ' ');
    if (static_cast<int>(open.size()) > kMaxElementDepth) {
      out += "...\n";
      break;
    }
    --open.back();
    out += RepetitionText(e.repetition);
    if (e.type) {
      out += ' ';
      out += internal::PhysicalTypeTextName(*e.type);
      if (*e.type == PhysicalType::kFixedLenByteArray) {
        fmt::format_to(std::back_inserter(out), "({})", e.type_length.value_or(0));
      }
      out += ' ';
      out += NameText(e.name);
      AppendTail(e, out);
      out += ";\n";
    } else {
      out += " group ";
      out += NameText(e.name);
      AppendTail(e, out);
      out += " {\n";
      open.push_back(e.num_children.value_or(0));
    }
    close_finished();
  }
  // A tree whose counts run past its elements: close what is open.
  while (!open.empty()) {
    open.pop_back();
    out.append(2 * open.size(), ' ');
    out += "}\n";
  }
  return out;
}

namespace {

class MessageTypeParser {
 public:
  explicit MessageTypeParser(std::string_view text) : text_(text) {}

  Result<std::vector<SchemaElement>> Parse() {
    SkipSpace();
    const size_t start = pos_;
    SLUICE_ASSIGN_OR_RETURN(std::string keyword, Word("'message'"));
    if (!EqualsIgnoreCase(keyword, "message")) return FailAt(start, "expected 'message'");
    SchemaElement root;
    SLUICE_ASSIGN_OR_RETURN(root.name, Word("the message name"));
    SLUICE_TRY(MaybeAnnotation(root));
    SLUICE_TRY(Expect('{', "'{'"));
    elements_.push_back(std::move(root));
    SLUICE_TRY(Fields(0, 1));
    SkipSpace();
    if (Peek(';')) ++pos_;
    SkipSpace();
    if (pos_ < text_.size()) return FailAt(pos_, "unexpected text after the message");
    return std::move(elements_);
  }

 private:
  Unexpected<Error> FailAt(size_t offset, std::string_view what) const {
    return InvalidArgument(fmt::format("Parquet message type, offset {} ({}): {}", offset,
                                       DescribeOffset(text_, offset), what));
  }

  // Whitespace and `//` comments.
  void SkipSpace() {
    while (pos_ < text_.size()) {
      if (IsSpace(text_[pos_])) {
        ++pos_;
      } else if (text_.substr(pos_, 2) == "//") {
        const size_t eol = text_.find('\n', pos_);
        pos_ = eol == std::string_view::npos ? text_.size() : eol + 1;
      } else {
        break;
      }
    }
  }

  bool Peek(char c) {
    SkipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }

  Status Expect(char c, std::string_view what) {
    if (!Peek(c)) return FailAt(pos_, fmt::format("expected {}", what));
    ++pos_;
    return Ok();
  }

  // A bare word or a backquoted name.
  Result<std::string> Word(std::string_view what) {
    SkipSpace();
    const size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '`') {
      std::string out;
      ++pos_;
      while (true) {
        if (pos_ >= text_.size()) return FailAt(start, "unterminated quoted name");
        const char c = text_[pos_++];
        if (c == '`') {
          if (pos_ < text_.size() && text_[pos_] == '`') {
            out += '`';
            ++pos_;
            continue;
          }
          break;
        }
        out += c;
      }
      return out;
    }
    while (pos_ < text_.size() && IsBareNameChar(text_[pos_])) ++pos_;
    if (pos_ == start) return FailAt(start, fmt::format("expected {}", what));
    return std::string(text_.substr(start, pos_ - start));
  }

  Result<int32_t> Integer(std::string_view what) {
    SkipSpace();
    const size_t start = pos_;
    SLUICE_ASSIGN_OR_RETURN(std::string word, Word(what));
    int32_t value = 0;
    const char* end = word.data() + word.size();
    auto [ptr, ec] = std::from_chars(word.data(), end, value);
    if (ec != std::errc() || ptr != end) {
      return FailAt(start, fmt::format("expected {}: an integer that fits in 32 bits", what));
    }
    return value;
  }

  Result<bool> Boolean(std::string_view what) {
    SkipSpace();
    const size_t start = pos_;
    SLUICE_ASSIGN_OR_RETURN(std::string word, Word(what));
    if (EqualsIgnoreCase(word, "true")) return true;
    if (EqualsIgnoreCase(word, "false")) return false;
    return FailAt(start, fmt::format("expected {}: true or false", what));
  }

  Status Fields(size_t group, int depth) {
    int32_t count = 0;
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size()) return FailAt(pos_, "expected '}' or a field");
      if (text_[pos_] == '}') {
        ++pos_;
        break;
      }
      if (count == std::numeric_limits<int32_t>::max()) return FailAt(pos_, "too many fields");
      SLUICE_TRY(Field(depth));
      ++count;
    }
    elements_[group].num_children = count;
    return Ok();
  }

  Status Field(int depth) {
    SkipSpace();
    const size_t start = pos_;
    SchemaElement e;
    SLUICE_ASSIGN_OR_RETURN(std::string repetition, Word("a repetition"));
    if (EqualsIgnoreCase(repetition, "required")) {
      e.repetition = Repetition::kRequired;
    } else if (EqualsIgnoreCase(repetition, "optional")) {
      e.repetition = Repetition::kOptional;
    } else if (EqualsIgnoreCase(repetition, "repeated")) {
      e.repetition = Repetition::kRepeated;
    } else {
      return FailAt(start, "expected required, optional or repeated");
    }
    SkipSpace();
    const size_t type_at = pos_;
    SLUICE_ASSIGN_OR_RETURN(std::string type, Word("a type or 'group'"));
    if (EqualsIgnoreCase(type, "group")) {
      if (depth >= kMaxElementDepth) {
        return FailAt(start, fmt::format("groups nest deeper than {} levels", kMaxElementDepth));
      }
      SLUICE_ASSIGN_OR_RETURN(e.name, Word("a name"));
      SLUICE_TRY(MaybeAnnotation(e));
      SLUICE_TRY(MaybeFieldId(e));
      SLUICE_TRY(Expect('{', "'{'"));
      const size_t index = elements_.size();
      elements_.push_back(std::move(e));
      SLUICE_TRY(Fields(index, depth + 1));
      // The examples in LogicalTypes.md close some groups with "};".
      if (Peek(';')) ++pos_;
      return Ok();
    }
    SLUICE_ASSIGN_OR_RETURN(e.type, Physical(type, type_at));
    if (e.type == PhysicalType::kFixedLenByteArray) {
      SLUICE_TRY(Expect('(', "'(' and the length of a fixed_len_byte_array"));
      SLUICE_ASSIGN_OR_RETURN(e.type_length, Integer("the length"));
      SLUICE_TRY(Expect(')', "')'"));
    }
    SLUICE_ASSIGN_OR_RETURN(e.name, Word("a name"));
    SLUICE_TRY(MaybeAnnotation(e));
    SLUICE_TRY(MaybeFieldId(e));
    SLUICE_TRY(Expect(';', "';'"));
    elements_.push_back(std::move(e));
    return Ok();
  }

  Result<PhysicalType> Physical(std::string_view word, size_t at) const {
    static constexpr std::array<PhysicalType, 8> kTypes = {
        PhysicalType::kBoolean,   PhysicalType::kInt32,
        PhysicalType::kInt64,     PhysicalType::kInt96,
        PhysicalType::kFloat,     PhysicalType::kDouble,
        PhysicalType::kByteArray, PhysicalType::kFixedLenByteArray};
    for (PhysicalType t : kTypes) {
      if (EqualsIgnoreCase(word, internal::PhysicalTypeTextName(t))) return t;
    }
    return FailAt(at, fmt::format("unknown type \"{}\"", EscapeForMessage(word)));
  }

  Status MaybeFieldId(SchemaElement& e) {
    if (!Peek('=')) return Ok();
    ++pos_;
    SLUICE_ASSIGN_OR_RETURN(e.field_id, Integer("a field id"));
    return Ok();
  }

  Status MaybeAnnotation(SchemaElement& e) {
    if (!Peek('(')) return Ok();
    ++pos_;
    SkipSpace();
    const size_t at = pos_;
    SLUICE_ASSIGN_OR_RETURN(std::string name, Word("an annotation"));
    SLUICE_TRY(Annotation(AsciiUpper(name), at, e));
    return Expect(')', "')' after the annotation");
  }

  // Parameters of the annotations that have none in parquet-mr's output but may in newer
  // ones (VARIANT(1), GEOMETRY(OGC:CRS84)); they have no place in SchemaElement.
  Status SkipParameters() {
    if (!Peek('(')) return Ok();
    ++pos_;
    while (!Peek(')')) {
      if (pos_ >= text_.size()) return FailAt(pos_, "expected ')'");
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      SLUICE_ASSIGN_OR_RETURN(std::string ignored, Word("a parameter"));
      (void)ignored;
    }
    ++pos_;
    return Ok();
  }

  // (precision[,scale]) of DECIMAL.
  Result<LogicalType> DecimalParameters() {
    LogicalType t{.kind = LogicalType::Kind::kDecimal};
    SLUICE_TRY(Expect('(', "'(' and the precision of DECIMAL"));
    SLUICE_ASSIGN_OR_RETURN(t.decimal_precision, Integer("the precision"));
    if (Peek(',')) {
      ++pos_;
      SLUICE_ASSIGN_OR_RETURN(t.decimal_scale, Integer("the scale"));
    }
    SLUICE_TRY(Expect(')', "')'"));
    return t;
  }

  // (unit,isAdjustedToUTC) of TIME and TIMESTAMP.
  Result<LogicalType> TemporalParameters(LogicalType::Kind kind) {
    LogicalType t{.kind = kind};
    SLUICE_TRY(Expect('(', "'(' and the unit"));
    SkipSpace();
    const size_t unit_at = pos_;
    SLUICE_ASSIGN_OR_RETURN(std::string unit, Word("a unit"));
    if (EqualsIgnoreCase(unit, "MILLIS")) {
      t.unit = TimeUnit::kMillis;
    } else if (EqualsIgnoreCase(unit, "MICROS")) {
      t.unit = TimeUnit::kMicros;
    } else if (EqualsIgnoreCase(unit, "NANOS")) {
      t.unit = TimeUnit::kNanos;
    } else {
      return FailAt(unit_at, "expected MILLIS, MICROS or NANOS");
    }
    SLUICE_TRY(Expect(',', "','"));
    SLUICE_ASSIGN_OR_RETURN(t.adjusted_to_utc, Boolean("isAdjustedToUTC"));
    SLUICE_TRY(Expect(')', "')'"));
    return t;
  }

  // (bitWidth,isSigned) of INTEGER.
  Result<LogicalType> IntegerParameters() {
    LogicalType t{.kind = LogicalType::Kind::kInteger};
    SLUICE_TRY(Expect('(', "'(' and the bit width"));
    SkipSpace();
    const size_t bits_at = pos_;
    SLUICE_ASSIGN_OR_RETURN(int32_t bits, Integer("the bit width"));
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
      return FailAt(bits_at, "the bit width must be 8, 16, 32 or 64");
    }
    t.bit_width = static_cast<int8_t>(bits);
    SLUICE_TRY(Expect(',', "','"));
    SLUICE_ASSIGN_OR_RETURN(t.is_signed, Boolean("isSigned"));
    SLUICE_TRY(Expect(')', "')'"));
    return t;
  }

  Status Annotation(const std::string& name, size_t at, SchemaElement& e) {
    using K = LogicalType::Kind;
    using C = ConvertedType;
    auto logical = [&](LogicalType t) {
      e.logical_type = t;
      e.converted_type = internal::LegacyConvertedType(t);
      return Ok();
    };
    auto converted = [&](C c) {
      e.converted_type = c;
      return Ok();
    };
    static constexpr std::array<std::pair<std::string_view, K>, 10> kPlain = {{
        {"STRING", K::kString},
        {"MAP", K::kMap},
        {"LIST", K::kList},
        {"ENUM", K::kEnum},
        {"DATE", K::kDate},
        {"JSON", K::kJson},
        {"BSON", K::kBson},
        {"UUID", K::kUuid},
        {"FLOAT16", K::kFloat16},
        {"UNKNOWN", K::kUnknown},
    }};
    for (const auto& [text, kind] : kPlain) {
      if (name == text) return logical(LogicalType{.kind = kind});
    }
    static constexpr std::array<std::pair<std::string_view, C>, 15> kConverted = {{
        {"UTF8", C::kUtf8},
        {"MAP_KEY_VALUE", C::kMapKeyValue},
        {"TIME_MILLIS", C::kTimeMillis},
        {"TIME_MICROS", C::kTimeMicros},
        {"TIMESTAMP_MILLIS", C::kTimestampMillis},
        {"TIMESTAMP_MICROS", C::kTimestampMicros},
        {"UINT_8", C::kUint8},
        {"UINT_16", C::kUint16},
        {"UINT_32", C::kUint32},
        {"UINT_64", C::kUint64},
        {"INT_8", C::kInt8},
        {"INT_16", C::kInt16},
        {"INT_32", C::kInt32},
        {"INT_64", C::kInt64},
        {"INTERVAL", C::kInterval},
    }};
    for (const auto& [text, c] : kConverted) {
      if (name == text) return converted(c);
    }
    if (name == "VARIANT" || name == "GEOMETRY" || name == "GEOGRAPHY") {
      SLUICE_TRY(SkipParameters());
      const K kind = name == "VARIANT"    ? K::kVariant
                     : name == "GEOMETRY" ? K::kGeometry
                                          : K::kGeography;
      return logical(LogicalType{.kind = kind});
    }
    if (name == "DECIMAL") {
      SLUICE_ASSIGN_OR_RETURN(LogicalType t, DecimalParameters());
      e.precision = t.decimal_precision;
      e.scale = t.decimal_scale;
      return logical(t);
    }
    if (name == "TIME" || name == "TIMESTAMP") {
      SLUICE_ASSIGN_OR_RETURN(LogicalType t,
                              TemporalParameters(name == "TIME" ? K::kTime : K::kTimestamp));
      return logical(t);
    }
    if (name == "INTEGER") {
      SLUICE_ASSIGN_OR_RETURN(LogicalType t, IntegerParameters());
      return logical(t);
    }
    return FailAt(at, fmt::format("unknown annotation \"{}\"", EscapeForMessage(name)));
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::vector<SchemaElement> elements_;
};

}  // namespace

Result<std::vector<SchemaElement>> ParseMessageType(std::string_view text) {
  return MessageTypeParser(text).Parse();
}

}  // namespace sluice::parquet
