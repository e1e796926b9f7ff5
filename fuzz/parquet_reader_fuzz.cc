// Fuzz the Parquet reader over whole files: the bytes are a file in a MemoryFileSystem, opened,
// summarized and read row by row, then read again with the first column alone and with two
// threads. Opening and reading must end with rows or an error: an error is invalid_argument or
// unimplemented (never internal) with a message naming the file; every row is one JSON object;
// a read that succeeds gives the footer's row count, the same count with a projection, and the
// same rows with two threads. The limits are small so that no input makes a run slow for its
// allocations.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/parquet/file_reader.h"
#include "sluice/parquet/file_summary.h"
#include "sluice/schema/field_path.h"

namespace pq = sluice::parquet;

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckError(const sluice::Error& e) {
  Check(e.code() == sluice::ErrorCode::kInvalidArgument ||
        e.code() == sluice::ErrorCode::kUnimplemented);
  Check(e.message().find("f.parquet") != std::string::npos);
}

// Read every row (at most `limit`); nullopt after an error, which is checked.
std::optional<std::vector<std::string>> ReadAll(pq::FileReader& reader,
                                                const pq::Projection& projection, size_t limit) {
  std::vector<std::string> rows;
  auto s = reader.ReadAllRows(projection, [&](std::string_view row) -> sluice::Status {
    if (rows.size() >= limit) return sluice::Fail(sluice::ErrorCode::kInternal, "enough");
    auto json = sluice::ParseJson(row);
    Check(json.has_value() && json->is_object());
    rows.emplace_back(row);
    return sluice::Ok();
  });
  if (!s) {
    if (s.error().message() == "enough") return std::nullopt;
    CheckError(s.error());
    return std::nullopt;
  }
  return rows;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto fs = std::make_shared<sluice::MemoryFileSystem>();
  Check(fs->WriteFile("f.parquet", std::string_view(reinterpret_cast<const char*>(data), size))
            .has_value());
  pq::ReaderOptions options;
  options.max_page_size = size_t{1} << 22;
  options.max_row_entries = size_t{1} << 18;
  options.max_decoded_bytes = size_t{1} << 22;
  options.metadata.max_total_bytes = size_t{1} << 22;
  options.metadata.max_list_size = size_t{1} << 16;
  options.max_dictionary_entries = size_t{1} << 16;
  auto reader = pq::FileReader::Open(fs, "f.parquet", options);
  if (!reader) {
    CheckError(reader.error());
    return 0;
  }
  const pq::ParquetFileSummary summary = pq::Summarize(**reader);
  Check(summary.row_groups.size() == static_cast<size_t>((*reader)->num_row_groups()));

  // Hostile footers may declare billions of rows of nothing; read a bounded number.
  constexpr size_t kMaxRows = 20000;
  auto rows = ReadAll(**reader, {}, kMaxRows);
  if (!rows) return 0;
  Check(static_cast<int64_t>(rows->size()) == (*reader)->num_rows());

  const auto& root = (*reader)->schema()->fields();
  if (!root.empty()) {
    auto first = ReadAll(**reader, {{sluice::schema::QuoteFieldName(root[0].name())}}, kMaxRows);
    Check(first.has_value() && first->size() == rows->size());
  }
  options.threads = 2;
  auto threaded = pq::FileReader::Open(fs, "f.parquet", options);
  Check(threaded.has_value());
  auto again = ReadAll(**threaded, {}, kMaxRows);
  Check(again.has_value() && *again == *rows);
  return 0;
}
