// Fuzz the CSV record reader: the first byte picks the options (multiLine, whitespace trimming,
// a comment character, `;` as separator), the rest is the input. Every record must lie inside
// the input, in order, with line numbers that never go back, and reading must end.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sluice/data/csv_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  sluice::data::CsvOptions options;
  options.multi_line = (data[0] & 1) != 0;
  options.ignore_leading_white_space = (data[0] & 2) != 0;
  options.ignore_trailing_white_space = (data[0] & 4) != 0;
  if ((data[0] & 8) != 0) options.comment = '#';
  if ((data[0] & 16) != 0) options.sep = ';';
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  sluice::data::CsvReader reader(text, options);
  sluice::data::CsvRecord record;
  uint64_t last_offset = 0;
  uint64_t last_line = 0;
  size_t records = 0;
  while (reader.Next(record)) {
    if (++records > text.size() + 1) std::abort();  // every record consumes input
    if (record.offset < last_offset || record.line < last_line) std::abort();
    if (record.raw.data() < text.data() ||
        record.raw.data() + record.raw.size() > text.data() + text.size()) {
      std::abort();
    }
    if (record.malformed() && !record.fields.empty()) std::abort();
    last_offset = record.offset + 1;
    last_line = record.line;
  }
  return 0;
}
