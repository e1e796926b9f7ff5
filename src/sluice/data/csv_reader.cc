#include "sluice/data/csv_reader.h"

#include <fmt/format.h>

#include <bit>
#include <cstdint>
#include <utility>

#include "sluice/base/swar.h"

namespace sluice::data {

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// The position of the first `a`, newline or (kTwo) `b` in text[p, size), or size: eight bytes
// at a time (base/swar.h; little-endian loads).
template <bool kTwo>
inline size_t FindByteOrNewline(std::string_view text, size_t p, char a, char b) {
  const size_t size = text.size();
  while (p + 8 <= size) {
    const uint64_t w = swar::Load8(text.data() + p);
    uint64_t found = swar::BytesEqual(w, static_cast<unsigned char>(a)) | swar::BytesEqual(w, '\n');
    if constexpr (kTwo) found |= swar::BytesEqual(w, static_cast<unsigned char>(b));
    if (found != 0) return p + static_cast<size_t>(std::countr_zero(found) >> 3);
    p += 8;
  }
  while (p < size && text[p] != a && text[p] != '\n' && (!kTwo || text[p] != b)) ++p;
  return p;
}

// A printable description of a byte for messages.
std::string Shown(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02x}", u);
}

}  // namespace

CsvReader::CsvReader(std::string_view text, CsvOptions options, uint64_t first_line,
                     uint64_t base_offset)
    : text_(text), options_(options), line_(first_line), base_offset_(base_offset) {
  if (base_offset == 0 && text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;
}

bool CsvReader::ReadQuoted(CsvRecord& record) {
  const size_t size = text_.size();
  const char quote = options_.quote;
  const char escape = options_.escape;
  const uint64_t open_line = line_;
  size_t first_break = std::string_view::npos;
  while (pos_ < size) {
    char c = text_[pos_];
    if (c == escape && escape != quote && pos_ + 1 < size &&
        (text_[pos_ + 1] == quote || text_[pos_ + 1] == escape)) {
      buffer_ += text_[pos_ + 1];
      pos_ += 2;
    } else if (c == quote) {
      if (pos_ + 1 < size && text_[pos_ + 1] == quote) {
        buffer_ += quote;
        pos_ += 2;
      } else {
        ++pos_;
        return true;
      }
    } else if (c == '\n' && !options_.multi_line) {
      record.error = fmt::format(
          "field {} opens a quote that is not closed before the end of the line (quoted fields "
          "span lines only with multiLine)",
          spans_.size() + 1);
      return false;
    } else if (c == '\n') {
      ++line_;
      if (first_break == std::string_view::npos) first_break = pos_;
      buffer_ += c;
      ++pos_;
    } else {
      // The bytes up to the next quote, escape or line break, at once.
      const size_t run_end = FindByteOrNewline<true>(text_, pos_ + 1, quote, escape);
      buffer_.append(text_.data() + pos_, run_end - pos_);
      pos_ = run_end;
    }
  }
  record.error = fmt::format("field {} opens a quote that is not closed at the end of the input",
                             spans_.size() + 1);
  if (first_break != std::string_view::npos) {
    // The record cannot be told from what follows it; end it at its first line break, so the
    // lines after it are read as records again rather than swallowed.
    pos_ = first_break;
    line_ = open_line;
  }
  return false;
}

void CsvReader::SkipRecord() {
  size_t end = text_.find('\n', pos_);
  pos_ = end == std::string_view::npos ? text_.size() : end;
}

bool CsvReader::Next(CsvRecord& record) {
  const size_t size = text_.size();
  const char sep = options_.sep;
  // Skip empty and comment lines.
  while (pos_ < size) {
    char c = text_[pos_];
    if (c == '\n') {
      ++pos_;
      ++line_;
    } else if (c == '\r' && (pos_ + 1 == size || text_[pos_ + 1] == '\n')) {
      ++pos_;
    } else if (options_.comment.has_value() && c == *options_.comment) {
      size_t end = text_.find('\n', pos_);
      pos_ = end == std::string_view::npos ? size : end;
    } else {
      break;
    }
  }
  if (pos_ >= size) return false;

  const size_t start = pos_;
  record.fields.clear();
  record.error.clear();
  record.line = line_;
  record.offset = base_offset_ + start;
  buffer_.clear();
  spans_.clear();
  bool at_end = false;
  while (!at_end) {
    Span span;
    size_t p = pos_;
    if (options_.ignore_leading_white_space) {
      while (p < size && IsBlank(text_[p])) ++p;
    }
    bool is_quoted = p < size && text_[p] == options_.quote;
    if (is_quoted) {
      pos_ = p + 1;
      span.begin = buffer_.size();
      span.quoted = true;
      if (!ReadQuoted(record)) break;
      span.size = buffer_.size() - span.begin;
      p = pos_;
      if (options_.ignore_trailing_white_space) {
        while (p < size && IsBlank(text_[p])) ++p;
      }
      bool ends = p == size || text_[p] == sep || text_[p] == '\n' ||
                  (text_[p] == '\r' && (p + 1 == size || text_[p + 1] == '\n'));
      if (!ends) {
        record.error = fmt::format("unexpected {} after the closing quote of field {}",
                                   Shown(text_[p]), spans_.size() + 1);
        pos_ = p;
        break;
      }
      pos_ = p;
    } else {
      const size_t end = FindByteOrNewline<false>(text_, p, sep, sep);
      size_t value_end = end;
      if (value_end > p && text_[value_end - 1] == '\r' && (end == size || text_[end] == '\n')) {
        --value_end;
      }
      if (options_.ignore_trailing_white_space) {
        while (value_end > p && IsBlank(text_[value_end - 1])) --value_end;
      }
      span.begin = p;
      span.size = value_end - p;
      pos_ = end;
    }
    spans_.push_back(span);
    if (pos_ < size && text_[pos_] == sep) {
      ++pos_;
      continue;
    }
    // End of the record: skip a CR of a CRLF.
    if (pos_ < size && text_[pos_] == '\r') ++pos_;
    at_end = true;
  }
  if (record.malformed()) SkipRecord();
  size_t end = pos_;
  if (end < size && text_[end] == '\n') {
    ++pos_;
    ++line_;
  }
  size_t raw_end = end;
  if (raw_end > start && text_[raw_end - 1] == '\r') --raw_end;
  record.raw = text_.substr(start, raw_end - start);
  if (!record.malformed()) {
    record.fields.reserve(spans_.size());
    for (const Span& span : spans_) {
      const std::string_view from = span.quoted ? std::string_view(buffer_) : text_;
      record.fields.push_back(CsvField{from.substr(span.begin, span.size), span.quoted});
    }
  }
  return true;
}

}  // namespace sluice::data
