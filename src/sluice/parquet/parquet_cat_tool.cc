// A test tool: print a Parquet file's rows in the canonical JSON form, one per line, for the
// conformance run against other readers' output (tests/parquet/compare.mjs).
//
//   parquet_cat_tool FILE [COLUMN...]
//
// Exit 0 with the rows on standard output; 1 with the error on standard error; 2 for usage.
#include <cstdio>
#include <string>

#include "sluice/base/file_system.h"
#include "sluice/parquet/file_reader.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: parquet_cat_tool FILE [COLUMN...]\n");
    return 2;
  }
  sluice::parquet::Projection projection;
  for (int i = 2; i < argc; ++i) projection.columns.emplace_back(argv[i]);
  auto reader = sluice::parquet::FileReader::Open(sluice::LocalFileSystem(), argv[1]);
  if (!reader) {
    std::fprintf(stderr, "%s\n", reader.error().ToString().c_str());
    return 1;
  }
  std::string out;
  auto flush = [&] {
    std::fwrite(out.data(), 1, out.size(), stdout);
    out.clear();
  };
  auto s = (*reader)->ReadAllRows(projection, [&](std::string_view row) -> sluice::Status {
    out.append(row);
    out.push_back('\n');
    if (out.size() > (1u << 20)) flush();
    return sluice::Ok();
  });
  flush();
  if (!s) {
    std::fprintf(stderr, "%s\n", s.error().ToString().c_str());
    return 1;
  }
  return 0;
}
