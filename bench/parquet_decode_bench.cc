// Decoding speed of Parquet's value encodings, in bytes of decoded values per second: the
// RLE/bit-packing hybrid's bit unpacking at several widths, PLAIN INT64, DELTA_BINARY_PACKED and
// dictionary lookups. The peer in the same run is memcpy of the same decoded bytes, the ceiling
// any decoder can reach.
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "sluice/parquet/delta.h"
#include "sluice/parquet/dictionary.h"
#include "sluice/parquet/plain.h"
#include "sluice/parquet/rle.h"

namespace pq = sluice::parquet;

namespace {

constexpr size_t kValues = 1 << 20;

// Random values of `bit_width` bits, with no runs, so the stream is all bit-packed groups.
std::string PackedStream(int bit_width) {
  std::mt19937 rng(1);
  const uint32_t mask = bit_width == 32 ? ~0u : (1u << bit_width) - 1;
  pq::RleEncoder encoder(bit_width);
  for (size_t i = 0; i < kValues; ++i) encoder.Put(rng() & mask);
  std::string out;
  encoder.FlushTo(out);
  return out;
}

void BM_Memcpy(benchmark::State& state) {
  std::vector<uint32_t> from(kValues, 7), to(kValues);
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), kValues * 4);
    benchmark::DoNotOptimize(to.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * kValues * 4);
}
BENCHMARK(BM_Memcpy);

void BM_RleUnpack(benchmark::State& state) {
  const int width = int(state.range(0));
  const std::string data = PackedStream(width);
  std::vector<uint32_t> out(kValues);
  for (auto _ : state) {
    auto decoder = pq::RleDecoder::Make(data, width);
    // Batches as a column reader asks for them.
    for (size_t i = 0; i < kValues; i += 4096) {
      if (!decoder->GetExactly(out.data() + i, 4096).has_value()) state.SkipWithError("decode");
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * kValues * 4);
}
BENCHMARK(BM_RleUnpack)->Arg(1)->Arg(3)->Arg(8)->Arg(12)->Arg(17)->Arg(32);

void BM_RleUnpackLevels(benchmark::State& state) {
  const std::string data = PackedStream(2);
  std::vector<int16_t> out(kValues);
  for (auto _ : state) {
    auto decoder = pq::RleDecoder::Make(data, 2);
    for (size_t i = 0; i < kValues; i += 4096) {
      if (!decoder->GetExactly(out.data() + i, 4096).has_value()) state.SkipWithError("decode");
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * kValues * 2);
}
BENCHMARK(BM_RleUnpackLevels);

void BM_PlainInt64(benchmark::State& state) {
  std::vector<int64_t> values(kValues);
  std::mt19937_64 rng(2);
  for (auto& v : values) v = int64_t(rng());
  std::string data;
  pq::PlainEncode(std::span<const int64_t>(values), data);
  pq::DecoderOptions options;
  options.type = pq::PhysicalType::kInt64;
  std::vector<int64_t> out(kValues);
  for (auto _ : state) {
    auto decoder = pq::PlainDecoder<int64_t>::Make(data, options);
    for (size_t i = 0; i < kValues; i += 4096) {
      if (!decoder->Decode(out.data() + i, 4096).has_value()) state.SkipWithError("decode");
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * kValues * 8);
}
BENCHMARK(BM_PlainInt64);

void BM_DeltaInt64(benchmark::State& state) {
  std::mt19937_64 rng(3);
  pq::DeltaBinaryPackedEncoder<int64_t> encoder;
  int64_t v = 1'700'000'000'000;
  for (size_t i = 0; i < kValues; ++i) encoder.Put(v += int64_t(rng() % 1000));
  std::string data;
  encoder.FlushTo(data);
  std::vector<int64_t> out(kValues);
  for (auto _ : state) {
    auto decoder = pq::DeltaBinaryPackedDecoder<int64_t>::Make(data);
    for (size_t i = 0; i < kValues; i += 4096) {
      if (!decoder->Decode(out.data() + i, 4096).has_value()) state.SkipWithError("decode");
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * kValues * 8);
}
BENCHMARK(BM_DeltaInt64);

void BM_DictionaryInt64(benchmark::State& state) {
  std::mt19937_64 rng(4);
  std::vector<int64_t> dictionary(1000);
  for (auto& d : dictionary) d = int64_t(rng());
  std::vector<uint32_t> indexes(kValues);
  for (auto& i : indexes) i = uint32_t(rng() % dictionary.size());
  std::string data;
  pq::EncodeDictionaryIndexes(indexes, 10, data);
  std::vector<int64_t> out(kValues);
  for (auto _ : state) {
    auto decoder = pq::DictionaryDecoder<int64_t>::Make(dictionary, data);
    for (size_t i = 0; i < kValues; i += 4096) {
      if (!decoder->Decode(out.data() + i, 4096).has_value()) state.SkipWithError("decode");
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * kValues * 8);
}
BENCHMARK(BM_DictionaryInt64);

}  // namespace

BENCHMARK_MAIN();
