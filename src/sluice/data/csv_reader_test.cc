#include "sluice/data/csv_reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace sluice::data {
namespace {

struct Row {
  std::vector<std::string> values;
  std::vector<bool> quoted;
  uint64_t line = 0;
  uint64_t offset = 0;
  std::string raw;
  std::string error;
};

std::vector<Row> ReadAll(std::string_view text, CsvOptions options = {}) {
  CsvReader reader(text, options);
  CsvRecord record;
  std::vector<Row> rows;
  while (reader.Next(record)) {
    Row row;
    for (const CsvField& f : record.fields) {
      row.values.emplace_back(f.value);
      row.quoted.push_back(f.quoted);
    }
    row.line = record.line;
    row.offset = record.offset;
    row.raw = std::string(record.raw);
    row.error = record.error;
    rows.push_back(std::move(row));
  }
  return rows;
}

using Values = std::vector<std::string>;

TEST(CsvReaderTest, SplitsRfc4180RecordsWithQuotesAndDoubledQuotes) {
  auto rows = ReadAll("id,name,note\n1,\"Smith, J\",\"said \"\"hi\"\"\"\n2,Bo,\n");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].values, (Values{"id", "name", "note"}));
  EXPECT_EQ(rows[1].values, (Values{"1", "Smith, J", "said \"hi\""}));
  EXPECT_EQ(rows[1].quoted, (std::vector<bool>{false, true, true}));
  EXPECT_EQ(rows[2].values, (Values{"2", "Bo", ""}));
  EXPECT_EQ(rows[2].line, 3u);
  EXPECT_EQ(rows[2].offset, 40u);
  EXPECT_EQ(rows[2].raw, "2,Bo,");
}

TEST(CsvReaderTest, SparkDefaultEscapeIsABackslashBeforeAQuote) {
  auto rows = ReadAll("\"a \\\"b\\\" c\",\"back\\\\slash\"\n");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].values, (Values{"a \"b\" c", "back\\slash"}));
  // A backslash before anything else is kept.
  rows = ReadAll("\"C:\\dir\",x\n");
  EXPECT_EQ(rows[0].values, (Values{"C:\\dir", "x"}));
}

TEST(CsvReaderTest, QuotedEmptyDiffersFromUnquotedEmpty) {
  auto rows = ReadAll("a,\"\",,\"x\"");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].values, (Values{"a", "", "", "x"}));
  EXPECT_EQ(rows[0].quoted, (std::vector<bool>{false, true, false, true}));
}

TEST(CsvReaderTest, CrlfBomAndEmptyLines) {
  auto rows = ReadAll("\xEF\xBB\xBFid,v\r\n\r\n1,a\r\n\n2,\"b\"\r\n");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].values, (Values{"id", "v"}));
  EXPECT_EQ(rows[1].values, (Values{"1", "a"}));
  EXPECT_EQ(rows[1].line, 3u);
  EXPECT_EQ(rows[2].values, (Values{"2", "b"}));
  EXPECT_EQ(rows[2].line, 5u);
  EXPECT_EQ(rows[2].raw, "2,\"b\"");
}

TEST(CsvReaderTest, MultiLineQuotedFieldsOnlyWithMultiLine) {
  const std::string text = "id,note\n1,\"two\nlines\"\n2,ok\n";
  auto strict = ReadAll(text);
  ASSERT_EQ(strict.size(), 4u);
  EXPECT_EQ(strict[1].line, 2u);
  EXPECT_NE(strict[1].error.find("not closed before the end of the line"), std::string::npos)
      << strict[1].error;
  EXPECT_EQ(strict[1].raw, "1,\"two");
  // The rest of the file is read on: nothing after the bad line is lost.
  EXPECT_EQ(strict[2].line, 3u);
  EXPECT_EQ(strict[3].values, (Values{"2", "ok"}));
  EXPECT_EQ(strict[3].line, 4u);

  CsvOptions multi;
  multi.multi_line = true;
  auto rows = ReadAll(text, multi);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].values, (Values{"1", "two\nlines"}));
  EXPECT_EQ(rows[1].raw, "1,\"two\nlines\"");
  EXPECT_EQ(rows[2].line, 4u);
}

TEST(CsvReaderTest, MalformedRecordsCarryLineOffsetAndRawBytes) {
  auto rows = ReadAll("a,b\n\"x\"y,z\n\"open,q\n");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].error, "unexpected 'y' after the closing quote of field 1");
  EXPECT_EQ(rows[1].line, 2u);
  EXPECT_EQ(rows[1].offset, 4u);
  EXPECT_EQ(rows[1].raw, "\"x\"y,z");
  EXPECT_TRUE(rows[2].error.find("not closed") != std::string::npos) << rows[2].error;
  EXPECT_EQ(rows[2].raw, "\"open,q");
  CsvOptions multi;
  multi.multi_line = true;
  auto eof = ReadAll("1,\"never closed\n2,3\n", multi);
  ASSERT_EQ(eof.size(), 2u);
  EXPECT_EQ(eof[0].error, "field 2 opens a quote that is not closed at the end of the input");
  EXPECT_EQ(eof[0].raw, "1,\"never closed");
  // The lines after it are records again.
  EXPECT_EQ(eof[1].values, (Values{"2", "3"}));
  EXPECT_EQ(eof[1].line, 2u);
}

TEST(CsvReaderTest, SparkOptionsSepQuoteCommentAndWhitespace) {
  CsvOptions o;
  o.sep = ';';
  o.quote = '\'';
  o.comment = '#';
  o.ignore_leading_white_space = true;
  o.ignore_trailing_white_space = true;
  auto rows = ReadAll("# header comment\n  a ; 'b;c'  ;  d\t\n", o);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].values, (Values{"a", "b;c", "d"}));
  EXPECT_EQ(rows[0].line, 2u);
  // Without the whitespace options, blanks are part of the values and a quote after a blank is
  // literal.
  CsvOptions plain;
  rows = ReadAll(" a , \"b\"\n", plain);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].values, (Values{" a ", " \"b\""}));
}

// Unquoted values end at the separator or the line's end found eight bytes at a time: a
// separator and a line break at every pair of positions of lines up to 40 bytes (with '\t' and
// ';' as separators too, and bytes of 0x80 and above around them), in heap copies of exactly
// that size, cut where a byte-by-byte reading cuts them.
TEST(CsvReaderTest, ValuesEndAtEverySeparatorPosition) {
  for (const char sep : {',', '\t', ';'}) {
    CsvOptions options;
    options.sep = sep;
    for (size_t len = 1; len <= 40; ++len) {
      for (size_t at = 0; at < len; ++at) {
        for (size_t nl = at; nl <= len; ++nl) {
          std::string text;
          for (size_t i = 0; i < len; ++i)
            text += static_cast<char>(i % 3 == 0 ? '\xc3' : 'a' + i % 26);
          text[at] = sep;
          if (nl < len) text[nl] = '\n';
          auto copy = std::make_unique<char[]>(text.size());
          std::memcpy(copy.get(), text.data(), text.size());
          const std::vector<Row> rows = ReadAll(std::string_view(copy.get(), text.size()), options);
          // What a byte-by-byte split gives: lines at '\n', values at the separator.
          std::vector<Values> want;
          size_t line_start = 0;
          for (size_t i = 0; i <= text.size(); ++i) {
            if (i == text.size() || text[i] == '\n') {
              const std::string line = text.substr(line_start, i - line_start);
              if (!line.empty()) {
                Values values;
                size_t v = 0;
                for (size_t k = 0; k <= line.size(); ++k) {
                  if (k == line.size() || line[k] == sep) {
                    values.push_back(line.substr(v, k - v));
                    v = k + 1;
                  }
                }
                want.push_back(values);
              }
              line_start = i + 1;
            }
          }
          ASSERT_EQ(rows.size(), want.size()) << "len " << len << " sep at " << at;
          for (size_t r = 0; r < rows.size(); ++r) {
            ASSERT_EQ(rows[r].values, want[r]) << "len " << len << " sep at " << at << " nl " << nl;
          }
        }
      }
    }
  }
}

// A quoted value's plain bytes are copied in runs up to the next quote, escape or line break:
// an escaped quote, a doubled quote, a lone backslash and (with multiLine) a line break at
// every position of values up to 40 bytes come out as a byte-by-byte reading gives them.
TEST(CsvReaderTest, QuotedValuesResolveEscapesAtEveryPosition) {
  struct Piece {
    std::string_view written;
    std::string_view value;
  };
  const Piece pieces[] = {{"\\\"", "\""}, {"\"\"", "\""}, {"\\a", "\\a"}, {"\n", "\n"}};
  CsvOptions options;
  options.multi_line = true;
  for (size_t len = 0; len <= 40; ++len) {
    for (size_t at = 0; at <= len; ++at) {
      for (const Piece& piece : pieces) {
        const std::string before(at, 'x');
        const std::string after(len - at, 'y');
        const std::string text = "1,\"" + before + std::string(piece.written) + after + "\",2\n";
        auto copy = std::make_unique<char[]>(text.size());
        std::memcpy(copy.get(), text.data(), text.size());
        const std::vector<Row> rows = ReadAll(std::string_view(copy.get(), text.size()), options);
        ASSERT_EQ(rows.size(), 1u) << text;
        ASSERT_EQ(rows[0].values, (Values{"1", before + std::string(piece.value) + after, "2"}))
            << text;
      }
    }
  }
}

TEST(CsvReaderTest, ChunksReportFilePositions) {
  CsvReader reader("7,8\n9,10\n", CsvOptions{}, 101, 5000);
  CsvRecord record;
  ASSERT_TRUE(reader.Next(record));
  EXPECT_EQ(record.line, 101u);
  EXPECT_EQ(record.offset, 5000u);
  ASSERT_TRUE(reader.Next(record));
  EXPECT_EQ(record.line, 102u);
  EXPECT_EQ(record.offset, 5004u);
  EXPECT_FALSE(reader.Next(record));
}

TEST(CsvReaderTest, HostileBytesNeverCrash) {
  std::string text;
  for (int i = 0; i < 4096; ++i) text += static_cast<char>((i * 7919) % 256);
  text += std::string(1000, '"');
  text += std::string("\0,\0\n", 4);
  CsvReader reader(text, CsvOptions{});
  CsvRecord record;
  size_t bytes = 0;
  int records = 0;
  while (reader.Next(record)) {
    ++records;
    bytes += record.raw.size();
    ASSERT_LT(records, 100000);
  }
  EXPECT_GT(records, 0);
  EXPECT_LE(bytes, text.size());
}

}  // namespace
}  // namespace sluice::data
