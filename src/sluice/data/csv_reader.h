// Splitting CSV text into records and fields, per RFC 4180 with Spark's CSV options (the ones
// that decide how bytes become fields; type conversion and nullValue/emptyValue are the
// caller's, since they depend on the schema).
//
// Choices, where Spark's parser (univocity) and RFC 4180 leave room:
//  * Inside a quoted field, both a doubled quote (`""`, RFC 4180) and the escape character
//    before a quote (`\"`, Spark's default `escape`) are a literal quote; the escape character
//    before itself is one escape character (Spark's `charToEscapeQuoteEscaping` default).
//  * Records end at LF; a CR before it is dropped (CRLF files). A UTF-8 byte order mark at the
//    start of the input is skipped.
//  * With `multi_line` off (Spark's default), a quoted field cannot span lines: a quote still
//    open at the end of the line makes the record malformed. With it on, the record runs on.
//  * A character other than the separator or the end of the record after a closing quote makes
//    the record malformed (univocity would glue it to the value; sluice quarantines instead, so
//    nothing is silently changed).
// A malformed record is a value, not an error: it carries its line, byte offset, the reason and
// its raw bytes, so the caller can quarantine it and go on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::data {

struct CsvOptions {
  char sep = ',';
  char quote = '"';
  /// Spark's `escape`: the character that escapes a quote inside a quoted field.
  char escape = '\\';
  /// Spark's `comment`: lines starting with it are skipped. Unset: no comment lines.
  std::optional<char> comment;
  /// Spark's `ignoreLeadingWhiteSpace` / `ignoreTrailingWhiteSpace` (for reading both default to
  /// false): spaces and tabs around unquoted values are dropped.
  bool ignore_leading_white_space = false;
  bool ignore_trailing_white_space = false;
  /// Spark's `multiLine`: quoted fields may hold line breaks.
  bool multi_line = false;
};

struct CsvField {
  /// The value, quotes removed and escapes resolved. Valid until the next CsvReader::Next.
  std::string_view value;
  /// Whether the value was quoted: Spark reads an unquoted empty value as nullValue and a
  /// quoted one ("") as emptyValue.
  bool quoted = false;
};

struct CsvRecord {
  std::vector<CsvField> fields;
  /// 1-based line number of the record's first line.
  uint64_t line = 0;
  /// Byte offset of the record's first byte in the input.
  uint64_t offset = 0;
  /// The record's bytes as they are in the input, without the line break that ends it.
  std::string_view raw;
  /// Why the record is malformed; empty when it is well formed.
  std::string error;

  bool malformed() const { return !error.empty(); }
};

/// Reads records one at a time from a CSV text held in memory (a file or a chunk of one that
/// starts at a record boundary). Empty lines are skipped, as Spark skips them. Not thread-safe;
/// one reader per thread.
class CsvReader {
 public:
  /// `text` must outlive the reader; `first_line` and `base_offset` place a chunk in its file.
  CsvReader(std::string_view text, CsvOptions options, uint64_t first_line = 1,
            uint64_t base_offset = 0);

  /// Fill `record` with the next record; false at the end of the input. The fields point into
  /// the input or into the reader's buffer, so they are valid until the next call.
  bool Next(CsvRecord& record);

 private:
  // Read a quoted field starting after its opening quote at pos_; append its value to buffer_.
  // Return false (with record.error set) when the record is malformed.
  bool ReadQuoted(CsvRecord& record);
  // Skip to the end of the line after an error.
  void SkipRecord();

  std::string_view text_;
  CsvOptions options_;
  size_t pos_ = 0;
  uint64_t line_ = 1;
  uint64_t base_offset_ = 0;
  // Quoted values, with their quotes removed and escapes resolved.
  std::string buffer_;
  // Where each field's value lies: an unquoted one in the input, a quoted one in buffer_;
  // resolved into views once the record is complete (buffer_ may move while it grows).
  struct Span {
    size_t begin = 0;
    size_t size = 0;
    bool quoted = false;  // and so in buffer_
  };
  std::vector<Span> spans_;
};

}  // namespace sluice::data
