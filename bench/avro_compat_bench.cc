// Time Avro reader/writer compatibility checks (Java's SchemaCompatibility rules) on the pairs of
// bench/gen_avro_pairs.py: SLUICE_BENCH_AVRO_PAIRS names the random evolution pairs, checked in
// both directions, and SLUICE_BENCH_AVRO_WIDE the 2,000-field v1/v2 pair. Schemas are parsed
// before timing: the check is what is measured, as in the peer (bench/peer_avro_compat.py,
// python3-avro's avro.compatibility), which bench/run runs on the same files.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/dialects/avro/avro_compatibility.h"
#include "sluice/dialects/avro/avro_schema.h"

namespace {

namespace avro = sluice::dialects::avro;

struct Pair {
  avro::AvroSchema a;
  avro::AvroSchema b;
};

// The schema texts of a gen_avro_pairs.py file, without the "ambiguous" slice (Java throws on
// those).
std::vector<std::pair<std::string, std::string>> LoadTexts(const char* env) {
  const char* path = std::getenv(env);
  if (path == nullptr) {
    std::fprintf(stderr, "set %s to a gen_avro_pairs.py file (bench/run does)\n", env);
    std::exit(2);
  }
  std::ifstream in(path);
  std::vector<std::pair<std::string, std::string>> texts;
  std::string line;
  while (std::getline(in, line)) {
    auto j = sluice::ParseJson(line);
    if (!j.has_value()) continue;
    if (j->Find("slice")->as_string() == "ambiguous") continue;
    texts.emplace_back(j->Find("a")->as_string(), j->Find("b")->as_string());
  }
  if (texts.empty()) {
    std::fprintf(stderr, "%s: no pairs\n", path);
    std::exit(2);
  }
  return texts;
}

// The same pairs, parsed.
std::vector<Pair> ParsePairs(const std::vector<std::pair<std::string, std::string>>& texts) {
  std::vector<Pair> pairs;
  pairs.reserve(texts.size());
  for (const auto& [a_text, b_text] : texts) {
    auto a = avro::Parse(a_text);
    auto b = avro::Parse(b_text);
    if (!a || !b) {
      std::fprintf(stderr, "a pair does not parse\n");
      std::exit(2);
    }
    pairs.push_back(Pair{std::move(a).value(), std::move(b).value()});
  }
  return pairs;
}

std::vector<Pair> LoadPairs(const char* env) { return ParsePairs(LoadTexts(env)); }

// Every pair in both directions, `repeat` times in a row, per iteration; the counters give the
// time per check and the number of compatible verdicts, which bench/run compares with the
// peer's. One pass over the 4,000 schemas does not fit in the CPU caches, so repeat 1 measures
// checks on cold schemas; repeat 4 on schemas just used, as a registry checks a schema it has
// just parsed against the latest version it holds.
//
// `explain` adds sluice's fix hints and type descriptions to every incompatibility (the CLI's
// output); without it a check yields what Java and python-avro yield: kinds, messages and
// locations (what a registry answers).
void RandomPairs(benchmark::State& state, int repeat, bool explain) {
  static const std::vector<Pair> pairs = LoadPairs("SLUICE_BENCH_AVRO_PAIRS");
  avro::AvroCompatibilityOptions options;
  options.explain = explain;
  int64_t compatible = 0;
  for (auto _ : state) {
    compatible = 0;
    for (const Pair& p : pairs) {
      for (int k = 0; k < 2 * repeat; ++k) {
        auto r = k % 2 == 0 ? avro::CheckCompatibility(p.b, p.a, options)
                            : avro::CheckCompatibility(p.a, p.b, options);
        if (!r.has_value()) {
          state.SkipWithError(r.error().message().c_str());
          return;
        }
        compatible += r->compatible ? 1 : 0;
        benchmark::DoNotOptimize(r);
      }
    }
  }
  state.counters["checks"] = static_cast<double>(pairs.size() * 2 * repeat);
  state.counters["compatible"] = static_cast<double>(compatible / repeat);
}

void BM_AvroCompatRandomPairs(benchmark::State& state) { RandomPairs(state, 1, false); }
BENCHMARK(BM_AvroCompatRandomPairs)->Unit(benchmark::kMillisecond);

void BM_AvroCompatRandomPairsWarm(benchmark::State& state) { RandomPairs(state, 4, false); }
BENCHMARK(BM_AvroCompatRandomPairsWarm)->Unit(benchmark::kMillisecond);

void BM_AvroCompatRandomPairsExplained(benchmark::State& state) { RandomPairs(state, 1, true); }
BENCHMARK(BM_AvroCompatRandomPairsExplained)->Unit(benchmark::kMillisecond);

// The same pairs on schemas parsed just before and never checked: each check then also packs
// its two schemas into the layout the walk reads (built by a schema's first check). Parsing and
// freeing are outside the timing.
void BM_AvroCompatRandomPairsFirstCheck(benchmark::State& state) {
  static const std::vector<std::pair<std::string, std::string>> texts =
      LoadTexts("SLUICE_BENCH_AVRO_PAIRS");
  avro::AvroCompatibilityOptions options;
  options.explain = false;
  int64_t compatible = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<Pair> pairs = ParsePairs(texts);
    state.ResumeTiming();
    compatible = 0;
    for (const Pair& p : pairs) {
      auto backward = avro::CheckCompatibility(p.b, p.a, options);
      auto forward = avro::CheckCompatibility(p.a, p.b, options);
      if (!backward.has_value() || !forward.has_value()) {
        state.SkipWithError("a check failed");
        return;
      }
      compatible += (backward->compatible ? 1 : 0) + (forward->compatible ? 1 : 0);
      benchmark::DoNotOptimize(backward);
      benchmark::DoNotOptimize(forward);
    }
    state.PauseTiming();
    pairs.clear();
    state.ResumeTiming();
  }
  state.counters["checks"] = static_cast<double>(texts.size() * 2);
  state.counters["compatible"] = static_cast<double>(compatible);
}
BENCHMARK(BM_AvroCompatRandomPairsFirstCheck)->Unit(benchmark::kMillisecond);

// BACKWARD for the wide record: v2 (reader) reads v1 (writer).
void BM_AvroCompatWideRecord(benchmark::State& state) {
  static const std::vector<Pair> pairs = LoadPairs("SLUICE_BENCH_AVRO_WIDE");
  const Pair& p = pairs.front();
  bool compatible = false;
  for (auto _ : state) {
    auto r = avro::CheckCompatibility(p.b, p.a);
    if (!r.has_value()) {
      state.SkipWithError(r.error().message().c_str());
      return;
    }
    compatible = r->compatible;
    benchmark::DoNotOptimize(r);
  }
  state.counters["compatible"] = compatible ? 1 : 0;
  state.counters["fields"] = static_cast<double>(p.b.root().fields().size());
}
BENCHMARK(BM_AvroCompatWideRecord)->Unit(benchmark::kMicrosecond);

// FORWARD for the wide record: v1 reads v2; every int v2 widened to long is a TYPE_MISMATCH.
void BM_AvroCompatWideRecordForward(benchmark::State& state) {
  static const std::vector<Pair> pairs = LoadPairs("SLUICE_BENCH_AVRO_WIDE");
  const Pair& p = pairs.front();
  bool compatible = false;
  for (auto _ : state) {
    auto r = avro::CheckCompatibility(p.a, p.b);
    if (!r.has_value()) {
      state.SkipWithError(r.error().message().c_str());
      return;
    }
    compatible = r->compatible;
    benchmark::DoNotOptimize(r);
  }
  state.counters["compatible"] = compatible ? 1 : 0;
}
BENCHMARK(BM_AvroCompatWideRecordForward)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
