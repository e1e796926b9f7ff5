#include "sluice/base/json.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <unordered_map>

#include "sluice/base/strings.h"

namespace sluice {

JsonValue JsonValue::Bool(bool b) {
  JsonValue v;
  v.kind_ = Kind::kBool;
  v.bool_ = b;
  return v;
}

JsonValue JsonValue::Int(int64_t i) {
  JsonValue v;
  v.kind_ = Kind::kNumber;
  v.number_ = static_cast<double>(i);
  v.text_ = std::to_string(i);
  return v;
}

JsonValue JsonValue::Double(double d) {
  JsonValue v;
  v.kind_ = Kind::kNumber;
  v.number_ = d;
  v.text_ = FormatDouble(d);
  return v;
}

JsonValue JsonValue::NumberText(std::string text) {
  JsonValue v;
  v.kind_ = Kind::kNumber;
  v.number_ = std::strtod(text.c_str(), nullptr);
  v.text_ = std::move(text);
  return v;
}

JsonValue JsonValue::String(std::string s) {
  JsonValue v;
  v.kind_ = Kind::kString;
  v.text_ = std::move(s);
  return v;
}

JsonValue JsonValue::Array() { return Array(std::vector<JsonValue>{}); }
JsonValue JsonValue::Object() { return Object(std::vector<JsonMember>{}); }

JsonValue JsonValue::Array(std::vector<JsonValue> items) {
  JsonValue v;
  v.kind_ = Kind::kArray;
  v.items_ = std::move(items);
  return v;
}

JsonValue JsonValue::Object(std::vector<JsonMember> members) {
  JsonValue v;
  v.kind_ = Kind::kObject;
  v.members_ = std::move(members);
  return v;
}

bool JsonValue::is_integer_text() const {
  if (!is_number()) return false;
  const std::string& t = number_text();
  return t.find_first_of(".eE") == std::string::npos;
}

std::optional<int64_t> JsonValue::as_int64() const {
  if (!is_integer_text()) return std::nullopt;
  const std::string& t = number_text();
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  if (ec != std::errc() || ptr != t.data() + t.size()) return std::nullopt;
  return out;
}

const JsonValue* JsonValue::Find(std::string_view key) const {
  if (!is_object()) return nullptr;
  for (const JsonMember& m : members()) {
    if (m.key == key) return &m.value;
  }
  return nullptr;
}

void JsonValue::Set(std::string key, JsonValue value) {
  auto& ms = mutable_members();
  for (JsonMember& m : ms) {
    if (m.key == key) {
      m.value = std::move(value);
      return;
    }
  }
  ms.push_back(JsonMember{std::move(key), std::move(value)});
}

bool JsonValue::Remove(std::string_view key) {
  if (!is_object()) return false;
  auto& ms = mutable_members();
  for (auto it = ms.begin(); it != ms.end(); ++it) {
    if (it->key == key) {
      ms.erase(it);
      return true;
    }
  }
  return false;
}

void JsonValue::Append(JsonValue value) { mutable_items().push_back(std::move(value)); }

size_t JsonValue::size() const {
  if (is_array()) return items().size();
  if (is_object()) return members().size();
  return 0;
}

bool JsonValue::Equals(const JsonValue& other) const {
  if (kind() != other.kind()) return false;
  switch (kind()) {
    case Kind::kNull:
      return true;
    case Kind::kBool:
      return as_bool() == other.as_bool();
    case Kind::kNumber: {
      auto a = as_int64();
      auto b = other.as_int64();
      if (a && b) return *a == *b;
      if (number_text() == other.number_text()) return true;
      return as_double() == other.as_double();
    }
    case Kind::kString:
      return as_string() == other.as_string();
    case Kind::kArray: {
      const auto& a = items();
      const auto& b = other.items();
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!a[i].Equals(b[i])) return false;
      }
      return true;
    }
    case Kind::kObject: {
      if (size() != other.size()) return false;
      for (const JsonMember& m : members()) {
        const JsonValue* o = other.Find(m.key);
        if (o == nullptr || !m.value.Equals(*o)) return false;
      }
      return true;
    }
  }
  return false;
}

std::string_view JsonValue::KindName(Kind kind) {
  switch (kind) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return "boolean";
    case Kind::kNumber:
      return "number";
    case Kind::kString:
      return "string";
    case Kind::kArray:
      return "array";
    case Kind::kObject:
      return "object";
  }
  return "unknown";
}

std::string DescribeOffset(std::string_view text, size_t offset) {
  size_t line = 1;
  size_t col = 1;
  size_t end = offset < text.size() ? offset : text.size();
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return fmt::format("line {}, column {}", line, col);
}

namespace {

class Parser {
 public:
  Parser(std::string_view text, const JsonParseOptions& options) : text_(text), opt_(options) {}

  Result<JsonValue> ParseDocument() {
    SkipWhitespace();
    JsonValue v;
    SLUICE_TRY(ParseValue(v, 0));
    SkipWhitespace();
    if (pos_ != text_.size()) return Error("unexpected text after the JSON document");
    return v;
  }

 private:
  Unexpected<sluice::Error> Error(std::string_view what) const { return ErrorAt(pos_, what); }
  Unexpected<sluice::Error> ErrorAt(size_t at, std::string_view what) const {
    return ParseError(fmt::format("{} (offset {}): {}", DescribeOffset(text_, at), at, what));
  }

  void SkipWhitespace() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else {
        break;
      }
    }
  }

  Status ParseValue(JsonValue& out, size_t depth) {
    if (depth >= opt_.max_depth) {
      return Error(fmt::format("nesting deeper than {} levels", opt_.max_depth));
    }
    if (pos_ >= text_.size()) return Error("unexpected end of input, expected a value");
    size_t start = pos_;
    char c = text_[pos_];
    switch (c) {
      case '{':
        SLUICE_TRY(ParseObject(out, depth));
        break;
      case '[':
        SLUICE_TRY(ParseArray(out, depth));
        break;
      case '"': {
        std::string s;
        SLUICE_TRY(ParseString(s));
        out = JsonValue::String(std::move(s));
        break;
      }
      case 't':
        SLUICE_TRY(ExpectLiteral("true"));
        out = JsonValue::Bool(true);
        break;
      case 'f':
        SLUICE_TRY(ExpectLiteral("false"));
        out = JsonValue::Bool(false);
        break;
      case 'n':
        SLUICE_TRY(ExpectLiteral("null"));
        out = JsonValue::Null();
        break;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          SLUICE_TRY(ParseNumber(out));
        } else {
          return Error(fmt::format("unexpected character {}, expected a value", DescribeChar(c)));
        }
    }
    out.set_offset(start);
    return Ok();
  }

  static std::string DescribeChar(char c) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return fmt::format("'{}'", c);
    return fmt::format("byte 0x{:02x}", u);
  }

  Status ExpectLiteral(std::string_view lit) {
    if (text_.substr(pos_, lit.size()) != lit) {
      return Error(fmt::format("invalid literal, expected '{}'", lit));
    }
    pos_ += lit.size();
    return Ok();
  }

  Status ParseNumber(JsonValue& out) {
    size_t start = pos_;
    if (text_[pos_] == '-') ++pos_;
    if (pos_ >= text_.size()) return Error("unexpected end of input inside a number");
    if (text_[pos_] == '0') {
      ++pos_;
    } else if (text_[pos_] >= '1' && text_[pos_] <= '9') {
      while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
    } else {
      return Error("invalid number: expected a digit");
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (pos_ >= text_.size() || !IsDigit(text_[pos_])) {
        return Error("invalid number: expected a digit after '.'");
      }
      while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ >= text_.size() || !IsDigit(text_[pos_])) {
        return Error("invalid number: expected a digit in the exponent");
      }
      while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
    }
    out = JsonValue::NumberText(std::string(text_.substr(start, pos_ - start)));
    return Ok();
  }

  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

  Result<uint32_t> ParseHex4() {
    if (pos_ + 4 > text_.size()) return Error("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_ + i];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return ErrorAt(pos_ + i, "invalid hex digit in \\u escape");
      }
    }
    pos_ += 4;
    return v;
  }

  Status ParseString(std::string& out) {
    ++pos_;  // opening quote
    while (true) {
      // Copy a run of plain bytes at once; validate UTF-8 on the run.
      size_t run = pos_;
      while (pos_ < text_.size()) {
        unsigned char c = static_cast<unsigned char>(text_[pos_]);
        if (c == '"' || c == '\\' || c < 0x20) break;
        ++pos_;
      }
      if (pos_ > run) {
        std::string_view chunk = text_.substr(run, pos_ - run);
        size_t bad = FindInvalidUtf8(chunk);
        if (bad != std::string_view::npos) return ErrorAt(run + bad, "invalid UTF-8 in string");
        out.append(chunk);
      }
      if (pos_ >= text_.size()) return Error("unterminated string");
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return Ok();
      }
      if (c != '\\') return Error("control character in string (must be escaped)");
      ++pos_;
      if (pos_ >= text_.size()) return Error("unterminated escape in string");
      char e = text_[pos_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          size_t esc_start = pos_ - 2;
          SLUICE_ASSIGN_OR_RETURN(uint32_t cp, ParseHex4());
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (text_.substr(pos_, 2) != "\\u") {
              return ErrorAt(esc_start, "unpaired UTF-16 surrogate in \\u escape");
            }
            pos_ += 2;
            SLUICE_ASSIGN_OR_RETURN(uint32_t lo, ParseHex4());
            if (lo < 0xDC00 || lo > 0xDFFF) {
              return ErrorAt(esc_start, "unpaired UTF-16 surrogate in \\u escape");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return ErrorAt(esc_start, "unpaired UTF-16 surrogate in \\u escape");
          }
          AppendUtf8(out, cp);
          break;
        }
        default:
          return ErrorAt(pos_ - 1, fmt::format("invalid escape \\{}", DescribeChar(e)));
      }
    }
  }

  Status ParseArray(JsonValue& out, size_t depth) {
    ++pos_;
    std::vector<JsonValue> items;
    SkipWhitespace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      out = JsonValue::Array(std::move(items));
      return Ok();
    }
    while (true) {
      SkipWhitespace();
      if (opt_.allow_trailing_commas && !items.empty() && pos_ < text_.size() &&
          text_[pos_] == ']') {
        ++pos_;
        break;
      }
      JsonValue item;
      SLUICE_TRY(ParseValue(item, depth + 1));
      items.push_back(std::move(item));
      SkipWhitespace();
      if (pos_ >= text_.size()) return Error("unexpected end of input, expected ',' or ']'");
      char c = text_[pos_];
      if (c == ',') {
        ++pos_;
        continue;
      }
      if (c == ']') {
        ++pos_;
        break;
      }
      return Error(fmt::format("expected ',' or ']' but found {}", DescribeChar(c)));
    }
    out = JsonValue::Array(std::move(items));
    return Ok();
  }

  Status ParseObject(JsonValue& out, size_t depth) {
    ++pos_;
    std::vector<JsonMember> members;
    std::unordered_map<std::string, size_t> index;
    SkipWhitespace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      out = JsonValue::Object(std::move(members));
      return Ok();
    }
    while (true) {
      SkipWhitespace();
      if (pos_ >= text_.size()) return Error("unexpected end of input, expected a key");
      if (opt_.allow_trailing_commas && !members.empty() && text_[pos_] == '}') {
        ++pos_;
        break;
      }
      if (text_[pos_] != '"') {
        return Error(fmt::format("expected a string key but found {}", DescribeChar(text_[pos_])));
      }
      size_t key_at = pos_;
      std::string key;
      SLUICE_TRY(ParseString(key));
      SkipWhitespace();
      if (pos_ >= text_.size() || text_[pos_] != ':') return Error("expected ':' after key");
      ++pos_;
      SkipWhitespace();
      JsonValue value;
      SLUICE_TRY(ParseValue(value, depth + 1));
      // Small objects (nearly all of a schema) are scanned; large ones get an index so that a
      // hostile object with many keys stays linear.
      size_t existing = members.size();
      if (members.size() < kIndexThreshold) {
        for (size_t i = 0; i < members.size(); ++i) {
          if (members[i].key == key) {
            existing = i;
            break;
          }
        }
      } else {
        if (index.empty()) {
          for (size_t i = 0; i < members.size(); ++i) index.emplace(members[i].key, i);
        }
        auto it = index.find(key);
        if (it != index.end()) existing = it->second;
      }
      if (existing != members.size()) {
        if (!opt_.allow_duplicate_keys) {
          return ErrorAt(key_at, fmt::format("duplicate key \"{}\"", EscapeForMessage(key)));
        }
        members[existing].value = std::move(value);
      } else {
        if (!index.empty()) index.emplace(key, members.size());
        members.push_back(JsonMember{std::move(key), std::move(value)});
      }
      SkipWhitespace();
      if (pos_ >= text_.size()) return Error("unexpected end of input, expected ',' or '}'");
      char c = text_[pos_];
      if (c == ',') {
        ++pos_;
        continue;
      }
      if (c == '}') {
        ++pos_;
        break;
      }
      return Error(fmt::format("expected ',' or '}}' but found {}", DescribeChar(c)));
    }
    out = JsonValue::Object(std::move(members));
    return Ok();
  }

  static constexpr size_t kIndexThreshold = 16;

  std::string_view text_;
  const JsonParseOptions& opt_;
  size_t pos_ = 0;
};

}  // namespace

Result<JsonValue> ParseJson(std::string_view text, const JsonParseOptions& options) {
  Parser p(text, options);
  return p.ParseDocument();
}

}  // namespace sluice
