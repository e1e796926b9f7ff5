// A test tool: print a Parquet file's rows in the canonical JSON form, one per line, for the
// conformance run against other readers' output (tests/parquet/compare.mjs), or its metadata.
//
//   parquet_cat_tool [--threads N] [--meta text|json] [--count] FILE [COLUMN...]
//
// --count prints the number of rows read on standard error at the end.
//
// Exit 0 with the rows on standard output; 1 with the error on standard error; 2 for usage.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sluice/base/file_system.h"
#include "sluice/parquet/file_reader.h"
#include "sluice/parquet/file_summary.h"
#include "sluice/report/parquet_render.h"

namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: parquet_cat_tool [--threads N] [--meta text|json] FILE [COLUMN...]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  sluice::parquet::ReaderOptions options;
  std::string meta;
  bool count = false;
  int i = 1;
  for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--count") {
      count = true;
      --i;
    } else if (flag == "--threads") {
      options.threads = std::atoi(argv[i + 1]);
    } else if (flag == "--meta") {
      meta = argv[i + 1];
    } else {
      return Usage();
    }
  }
  if (i >= argc) return Usage();
  const char* path = argv[i++];
  sluice::parquet::Projection projection;
  for (; i < argc; ++i) projection.columns.emplace_back(argv[i]);
  auto reader = sluice::parquet::FileReader::Open(sluice::LocalFileSystem(), path, options);
  if (!reader) {
    std::fprintf(stderr, "%s\n", reader.error().ToString().c_str());
    return 1;
  }
  if (!meta.empty()) {
    auto format = sluice::report::ParseFormat(meta);
    if (!format) return Usage();
    auto text = sluice::report::Render(sluice::parquet::Summarize(**reader), *format);
    if (!text) {
      std::fprintf(stderr, "%s\n", text.error().ToString().c_str());
      return 1;
    }
    std::fwrite(text->data(), 1, text->size(), stdout);
    return 0;
  }
  size_t rows_read = 0;
  auto s = (*reader)->ReadAllRowBatches(projection, [&](std::string_view rows, size_t n) {
    std::fwrite(rows.data(), 1, rows.size(), stdout);
    rows_read += n;
    return sluice::Ok();
  });
  if (count) std::fprintf(stderr, "%zu\n", rows_read);
  if (!s) {
    std::fprintf(stderr, "%s\n", s.error().ToString().c_str());
    return 1;
  }
  return 0;
}
