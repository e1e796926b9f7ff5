// Seeded generator of wide flat records for the data-plane benchmark, the second shape beside
// the orders:
//   bench_gen_wide OUT N SEED     N records of JSON lines
//   bench_gen_wide --ddl          the schema, as Spark DDL (for sluice validate --schema)
//   bench_gen_wide --duckdb       the schema for DuckDB's read_json: {"columns": "{name: 'TYPE',
//                                 ...}", "names": [...]}
// Each record has 60 top-level columns cycling over seven kinds: strings (3-24 characters, an
// escape now and then), longs, doubles, DECIMAL(12,2) numbers, dates and timestamps as strings,
// booleans; every value is null one time in ten. About 1,300 bytes a record. The same N and SEED
// give the same bytes on any machine.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>

#include "gen_common.h"

namespace {

using bench::Money;
using bench::Num;
using bench::Rng;

constexpr int kColumns = 60;

enum Kind { kString, kLong, kDouble, kDecimal, kDate, kTimestamp, kBoolean, kKinds };

struct KindInfo {
  const char* prefix;
  const char* spark;
  const char* duckdb;
};
constexpr KindInfo kInfo[kKinds] = {
    {"str", "STRING", "VARCHAR"},   {"lng", "BIGINT", "BIGINT"},
    {"dbl", "DOUBLE", "DOUBLE"},    {"dec", "DECIMAL(12,2)", "DECIMAL(12,2)"},
    {"dt", "DATE", "DATE"},         {"ts", "TIMESTAMP", "TIMESTAMP"},
    {"flag", "BOOLEAN", "BOOLEAN"},
};

Kind KindOf(int column) { return static_cast<Kind>(column % kKinds); }

std::string Name(int column) {
  std::string name = kInfo[KindOf(column)].prefix;
  name += '_';
  Num(name, static_cast<uint64_t>(column), 2);
  return name;
}

const char* kWords[] = {"alpha", "bravo",  "charlie", "delta",   "echo",   "foxtrot", "golf",
                        "hotel", "india",  "juliett", "kilo",    "lima",   "mike",    "november",
                        "oscar", "papa",   "quebec",  "romeo",   "sierra", "tango",   "uniform",
                        "x-ray", "yankee", "zulu",    "EU-west", "42",     "Zurich"};

void Text(std::string& out, Rng& rng) {
  out += '"';
  const size_t start = out.size();
  const size_t target = 3 + rng.Below(22);
  while (out.size() - start < target) {
    if (out.size() > start) out += ' ';
    out += kWords[rng.Below(std::size(kWords))];
  }
  out.resize(start + target);
  if (out.back() == ' ') out.back() = '.';
  const uint64_t escape = rng.Below(50);
  if (escape == 0) out += "\\\"q\\\"";
  if (escape == 1) out += " caf\\u00e9";
  out += '"';
}

void Date(std::string& out, Rng& rng) {
  out += "\"20";
  Num(out, 10 + rng.Below(17), 2);
  out += '-';
  Num(out, 1 + rng.Below(12), 2);
  out += '-';
  Num(out, 1 + rng.Below(28), 2);
}

void Value(std::string& out, Kind kind, Rng& rng) {
  if (rng.Below(10) == 0) {
    out += "null";
    return;
  }
  switch (kind) {
    case kString:
      return Text(out, rng);
    case kLong:
      if (rng.Below(8) == 0) out += '-';
      Num(out, rng.Below(uint64_t{1} << (8 + rng.Below(40))));
      return;
    case kDouble: {
      if (rng.Below(8) == 0) out += '-';
      Num(out, rng.Below(1000000));
      out += '.';
      const int digits = 1 + static_cast<int>(rng.Below(6));
      uint64_t limit = 1;
      for (int i = 0; i < digits; ++i) limit *= 10;
      Num(out, rng.Below(limit), digits);
      return;
    }
    case kDecimal:
      if (rng.Below(8) == 0) out += '-';
      Money(out, rng.Below(uint64_t{100000000000}));
      return;
    case kDate:
      Date(out, rng);
      out += '"';
      return;
    case kTimestamp:
      Date(out, rng);
      out += 'T';
      Num(out, rng.Below(24), 2);
      out += ':';
      Num(out, rng.Below(60), 2);
      out += ':';
      Num(out, rng.Below(60), 2);
      out += '.';
      Num(out, rng.Below(1000000), 6);
      out += "Z\"";
      return;
    case kBoolean:
      out += rng.Below(2) == 0 ? "true" : "false";
      return;
    case kKinds:
      break;
  }
}

int PrintDdl() {
  std::string ddl;
  for (int c = 0; c < kColumns; ++c) {
    if (c > 0) ddl += ", ";
    ddl += Name(c) + " " + kInfo[KindOf(c)].spark;
  }
  std::printf("%s\n", ddl.c_str());
  return 0;
}

int PrintDuckdb() {
  std::string columns = "{";
  std::string names = "[";
  for (int c = 0; c < kColumns; ++c) {
    if (c > 0) {
      columns += ", ";
      names += ", ";
    }
    columns += Name(c) + ": '" + kInfo[KindOf(c)].duckdb + "'";
    names += "\"" + Name(c) + "\"";
  }
  std::printf("{\"columns\": \"%s}\", \"names\": %s]}\n", columns.c_str(), names.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--ddl") == 0) return PrintDdl();
  if (argc == 2 && std::strcmp(argv[1], "--duckdb") == 0) return PrintDuckdb();
  if (argc != 4) {
    std::fprintf(stderr, "usage: bench_gen_wide OUT N SEED | --ddl | --duckdb\n");
    return 2;
  }
  const uint64_t n = std::strtoull(argv[2], nullptr, 10);
  Rng rng{std::strtoull(argv[3], nullptr, 10)};
  std::string names[kColumns];
  for (int c = 0; c < kColumns; ++c) names[c] = "\"" + Name(c) + "\":";
  return bench::WriteRecords(argv[1], n, [&](std::string& out) {
    out += '{';
    for (int c = 0; c < kColumns; ++c) {
      if (c > 0) out += ',';
      out += names[c];
      Value(out, KindOf(c), rng);
    }
    out += "}\n";
  });
}
