// Parse + canonicalize + fingerprint a wide Avro schema (bench/run generates it; the path comes
// from SLUICE_BENCH_AVRO). The peer, python3-avro on the same file, runs in bench/run.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "sluice/base/hash.h"
#include "sluice/dialects/avro/avro_convert.h"
#include "sluice/dialects/avro/avro_schema.h"
#include "sluice/schema/canonical.h"

namespace {

std::string LoadSchemaText() {
  const char* path = std::getenv("SLUICE_BENCH_AVRO");
  if (path == nullptr) {
    std::fprintf(stderr, "set SLUICE_BENCH_AVRO to the schema file (bench/run does)\n");
    std::exit(2);
  }
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string& Text() {
  static const std::string text = LoadSchemaText();
  return text;
}

// What a registry does on every registration: parse, Parsing Canonical Form, SHA-256 of it.
void BM_AvroParseCanonicalFingerprint(benchmark::State& state) {
  const std::string& text = Text();
  for (auto _ : state) {
    auto s = sluice::dialects::avro::Parse(text);
    if (!s.has_value()) {
      state.SkipWithError(s.error().message().c_str());
      break;
    }
    std::string pcf = sluice::dialects::avro::ParsingCanonicalForm(*s);
    std::string digest = sluice::Sha256Hex(pcf);
    benchmark::DoNotOptimize(digest);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * Text().size()));
}
BENCHMARK(BM_AvroParseCanonicalFingerprint)->Unit(benchmark::kMillisecond);

// The same plus conversion to the model and sluice's own fingerprint.
void BM_AvroToModelFingerprint(benchmark::State& state) {
  const std::string& text = Text();
  for (auto _ : state) {
    auto m = sluice::dialects::avro::ReadSchema(text);
    if (!m.has_value()) {
      state.SkipWithError(m.error().message().c_str());
      break;
    }
    std::string digest = sluice::schema::Fingerprint(*m->value);
    benchmark::DoNotOptimize(digest);
  }
}
BENCHMARK(BM_AvroToModelFingerprint)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
