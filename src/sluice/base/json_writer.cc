#include "sluice/base/json_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "sluice/base/strings.h"
#include "sluice/base/swar.h"

namespace sluice {

namespace {

// Decode one UTF-8 sequence at s[i] (already validated by the parser, but be defensive).
uint32_t DecodeUtf8(std::string_view s, size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  if (len == 1 || i + len > s.size()) {
    ++i;
    return 0xFFFD;
  }
  uint32_t cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += len;
  return cp;
}

void AppendUnicodeEscape(std::string& out, uint32_t unit) { out += fmt::format("\\u{:04x}", unit); }

// The end of the run from `i` of bytes a JSON string keeps as they are: not a control
// character, quote or backslash, and ASCII when `ascii_only`. Eight bytes at a time while
// none of them is special.
size_t PlainRunEnd(std::string_view s, size_t i, bool ascii_only) {
  while (i + 8 <= s.size()) {
    const uint64_t w = swar::Load8(s.data() + i);
    const uint64_t special =
        swar::BytesBelow(w, 0x20) | swar::BytesEqual(w, '"') | swar::BytesEqual(w, '\\');
    if ((special | (ascii_only ? swar::BytesNonAscii(w) : 0)) != 0) break;
    i += 8;
  }
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == '"' || c == '\\' || (ascii_only && c >= 0x80)) break;
    ++i;
  }
  return i;
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view s, bool ascii_only) {
  out += '"';
  size_t i = 0;
  while (i < s.size()) {
    if (const size_t run = PlainRunEnd(s, i, ascii_only); run > i) {
      out.append(s.data() + i, run - i);
      i = run;
      if (i == s.size()) break;
    }
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        ++i;
        continue;
      case '\\':
        out += "\\\\";
        ++i;
        continue;
      case '\n':
        out += "\\n";
        ++i;
        continue;
      case '\r':
        out += "\\r";
        ++i;
        continue;
      case '\t':
        out += "\\t";
        ++i;
        continue;
      case '\b':
        out += "\\b";
        ++i;
        continue;
      case '\f':
        out += "\\f";
        ++i;
        continue;
      default:
        break;
    }
    if (c < 0x20) {
      AppendUnicodeEscape(out, c);
      ++i;
    } else if (c < 0x80 || !ascii_only) {
      out += static_cast<char>(c);
      ++i;
    } else {
      uint32_t cp = DecodeUtf8(s, i);
      if (cp >= 0x10000) {
        cp -= 0x10000;
        AppendUnicodeEscape(out, 0xD800 + (cp >> 10));
        AppendUnicodeEscape(out, 0xDC00 + (cp & 0x3FF));
      } else {
        AppendUnicodeEscape(out, cp);
      }
    }
  }
  out += '"';
}

namespace {

void AppendNumber(std::string& out, const JsonValue& v, const JsonFormat& f) {
  if (f.python_numbers && !v.is_integer_text()) {
    out += FormatDouble(std::strtod(v.number_text().c_str(), nullptr));
  } else {
    out += v.number_text();
  }
}

void WriteValue(JsonWriter& w, const JsonValue& v, const JsonFormat& f) {
  switch (v.kind()) {
    case JsonValue::Kind::kNull:
      w.Null();
      break;
    case JsonValue::Kind::kBool:
      w.Bool(v.as_bool());
      break;
    case JsonValue::Kind::kNumber: {
      std::string n;
      AppendNumber(n, v, f);
      w.Raw(n);
      break;
    }
    case JsonValue::Kind::kString:
      w.String(v.as_string());
      break;
    case JsonValue::Kind::kArray:
      w.BeginArray();
      for (const JsonValue& item : v.items()) WriteValue(w, item, f);
      w.EndArray();
      break;
    case JsonValue::Kind::kObject: {
      w.BeginObject();
      if (f.sort_keys) {
        std::vector<const JsonMember*> sorted;
        sorted.reserve(v.members().size());
        for (const JsonMember& m : v.members()) sorted.push_back(&m);
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const JsonMember* a, const JsonMember* b) { return a->key < b->key; });
        for (const JsonMember* m : sorted) {
          w.Key(m->key);
          WriteValue(w, m->value, f);
        }
      } else {
        for (const JsonMember& m : v.members()) {
          w.Key(m.key);
          WriteValue(w, m.value, f);
        }
      }
      w.EndObject();
      break;
    }
  }
}

}  // namespace

std::string ToJson(const JsonValue& value, const JsonFormat& format) {
  JsonWriter w(format);
  WriteValue(w, value, format);
  return w.Take();
}

void JsonWriter::Newline(size_t depth) {
  out_ += '\n';
  out_.append(depth * static_cast<size_t>(format_.indent), ' ');
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (stack_.empty()) return;
  Level& top = stack_.back();
  if (top.count > 0) out_ += ',';
  if (format_.indent > 0) Newline(stack_.size());
  ++top.count;
}

JsonWriter& JsonWriter::BeginObject() {
  BeforeValue();
  out_ += '{';
  stack_.push_back(Level{true, 0});
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  size_t count = stack_.back().count;
  stack_.pop_back();
  if (format_.indent > 0 && count > 0) Newline(stack_.size());
  out_ += '}';
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  BeforeValue();
  out_ += '[';
  stack_.push_back(Level{false, 0});
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  size_t count = stack_.back().count;
  stack_.pop_back();
  if (format_.indent > 0 && count > 0) Newline(stack_.size());
  out_ += ']';
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  BeforeValue();
  AppendJsonString(out_, key, format_.ascii_only);
  out_ += format_.indent > 0 ? ": " : ":";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view s) {
  BeforeValue();
  AppendJsonString(out_, s, format_.ascii_only);
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t v) {
  BeforeValue();
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::Uint(uint64_t v) {
  BeforeValue();
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::Double(double v) {
  BeforeValue();
  out_ += FormatDouble(v);
  return *this;
}

JsonWriter& JsonWriter::Bool(bool v) {
  BeforeValue();
  out_ += v ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::Value(const JsonValue& v) {
  WriteValue(*this, v, format_);
  return *this;
}

JsonWriter& JsonWriter::Raw(std::string_view json) {
  BeforeValue();
  out_ += json;
  return *this;
}

}  // namespace sluice
