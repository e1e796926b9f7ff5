// A test tool: print a Parquet file's rows in the canonical JSON form, one per line, for the
// conformance run against other readers' output (tests/parquet/compare.mjs).
//
//   parquet_cat_tool [--threads N] FILE [COLUMN...]
//
// Exit 0 with the rows on standard output; 1 with the error on standard error; 2 for usage.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sluice/base/file_system.h"
#include "sluice/parquet/file_reader.h"

int main(int argc, char** argv) {
  sluice::parquet::ReaderOptions options;
  int first = 1;
  if (argc > 2 && std::string(argv[1]) == "--threads") {
    options.threads = std::atoi(argv[2]);
    first = 3;
  }
  if (argc <= first) {
    std::fprintf(stderr, "usage: parquet_cat_tool [--threads N] FILE [COLUMN...]\n");
    return 2;
  }
  sluice::parquet::Projection projection;
  for (int i = first + 1; i < argc; ++i) projection.columns.emplace_back(argv[i]);
  auto reader = sluice::parquet::FileReader::Open(sluice::LocalFileSystem(), argv[first], options);
  if (!reader) {
    std::fprintf(stderr, "%s\n", reader.error().ToString().c_str());
    return 1;
  }
  auto s = (*reader)->ReadAllRowBatches(projection, [](std::string_view rows, size_t) {
    std::fwrite(rows.data(), 1, rows.size(), stdout);
    return sluice::Ok();
  });
  if (!s) {
    std::fprintf(stderr, "%s\n", s.error().ToString().c_str());
    return 1;
  }
  return 0;
}
