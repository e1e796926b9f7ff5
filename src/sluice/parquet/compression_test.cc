#include "sluice/parquet/compression.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>
#include <string>
#include <thread>
#include <vector>

// The largest single allocation through operator new while tracking is on: a decompression
// bomb must not make Decompress allocate what the data claims.
namespace {
std::atomic<bool> g_tracking{false};
std::atomic<size_t> g_largest{0};
}  // namespace

void* operator new(size_t size) {
  if (g_tracking.load(std::memory_order_relaxed)) {
    size_t seen = g_largest.load(std::memory_order_relaxed);
    while (size > seen && !g_largest.compare_exchange_weak(seen, size)) {
    }
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

namespace sluice::parquet {
namespace {

std::string Name(Codec codec) { return "codec " + std::to_string(static_cast<int>(codec)); }

constexpr Codec kCodecs[] = {Codec::kUncompressed, Codec::kSnappy, Codec::kGzip, Codec::kZstd,
                             Codec::kLz4Raw};

// Text-like bytes that compress, with stretches of noise that do not.
std::string Sample(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s;
  s.reserve(size);
  const std::string words[] = {"parquet ", "column ", "page ", "row group ", "dictionary "};
  while (s.size() < size) {
    if (rng() % 100 == 0) {
      for (int i = 0; i < 64; ++i) s.push_back(static_cast<char>(rng()));
    } else {
      s += words[rng() % 5];
    }
  }
  s.resize(size);
  return s;
}

std::string MustCompress(Codec codec, std::string_view in, int level = 0) {
  std::string out;
  auto status = Compress(codec, in, out, level);
  EXPECT_TRUE(status.has_value()) << status.error().message();
  return out;
}

TEST(CompressionTest, EveryCodecRoundTripsEmptySmallAndLargePages) {
  const std::string inputs[] = {"", "a", Sample(1000, 1), Sample(10 << 20, 2)};
  for (Codec codec : kCodecs) {
    for (const std::string& in : inputs) {
      const std::string compressed = MustCompress(codec, in);
      if (in.size() > 1000 && codec != Codec::kUncompressed) {
        EXPECT_LT(compressed.size(), in.size() / 2) << Name(codec);
      }
      std::string out = "prefix";
      auto status = Decompress(codec, compressed, in.size(), out);
      ASSERT_TRUE(status.has_value()) << Name(codec) << ": " << status.error().message();
      ASSERT_EQ(out.size(), 6 + in.size());
      ASSERT_TRUE(out.compare(6, std::string::npos, in) == 0) << Name(codec);
    }
  }
}

TEST(CompressionTest, DecompressingIntoAGrowingBufferGivesExactlyTheDeclaredSize) {
  // A buffer that must grow, but by less than it had: the string's own growth policy then
  // allocates more than asked, and the page must still be exactly its declared size. SNAPPY's
  // buffer is the one grown without zeroing; every codec is held to the same.
  for (Codec codec : kCodecs) {
    for (size_t n : {17, 40, 100, 1000, 4097}) {
      const std::string in = Sample(n, 4);
      const std::string compressed = MustCompress(codec, in);
      std::string out;
      out.reserve(n * 2 / 3);
      out = "ab";
      ASSERT_TRUE(Decompress(codec, compressed, n, out).has_value()) << Name(codec);
      ASSERT_EQ(out.size(), n + 2) << Name(codec) << ", " << n << " bytes";
      EXPECT_EQ(out.substr(2), in) << Name(codec);
    }
  }
}

TEST(CompressionTest, LevelsAreChecked) {
  const std::string in = Sample(100'000, 3);
  for (auto [codec, level] : {std::pair{Codec::kZstd, 1},
                              {Codec::kZstd, 19},
                              {Codec::kZstd, -5},
                              {Codec::kGzip, 1},
                              {Codec::kGzip, 9},
                              {Codec::kLz4Raw, 9}}) {
    const std::string compressed = MustCompress(codec, in, level);
    std::string out;
    ASSERT_TRUE(Decompress(codec, compressed, in.size(), out).has_value());
    EXPECT_EQ(out, in);
  }
  // Higher levels compress smaller.
  EXPECT_LT(MustCompress(Codec::kZstd, in, 19).size(), MustCompress(Codec::kZstd, in, 1).size());
  std::string out;
  for (auto [codec, level] : {std::pair{Codec::kGzip, 10},
                              {Codec::kGzip, -1},
                              {Codec::kZstd, 100},
                              {Codec::kLz4Raw, 13}}) {
    auto status = Compress(codec, in, out, level);
    ASSERT_FALSE(status.has_value());
    EXPECT_EQ(status.error().code(), ErrorCode::kInvalidArgument);
  }
  EXPECT_TRUE(out.empty());
}

TEST(CompressionTest, GzipIsGzipFramed) {
  const std::string compressed = MustCompress(Codec::kGzip, "hello");
  ASSERT_GE(compressed.size(), 2u);
  EXPECT_EQ(static_cast<uint8_t>(compressed[0]), 0x1f);  // RFC 1952's magic bytes
  EXPECT_EQ(static_cast<uint8_t>(compressed[1]), 0x8b);
}

TEST(CompressionTest, GzipReadsSeveralMembersAndZlibFraming) {
  const std::string both = MustCompress(Codec::kGzip, "first,") + MustCompress(Codec::kGzip, "");
  const std::string three = both + MustCompress(Codec::kGzip, "second");
  std::string out;
  ASSERT_TRUE(Decompress(Codec::kGzip, three, 12, out).has_value());
  EXPECT_EQ(out, "first,second");
  // An empty member after the output is full is fine; a non-empty one is too much.
  out.clear();
  ASSERT_TRUE(Decompress(Codec::kGzip, both, 6, out).has_value());
  auto status = Decompress(Codec::kGzip, three, 6, out);
  ASSERT_FALSE(status.has_value());
  EXPECT_NE(status.error().message().find("past its declared size of 6 bytes"), std::string::npos);

  const std::string text = Sample(5000, 4);
  std::string zlib(compressBound(text.size()), '\0');
  uLongf size = zlib.size();
  ASSERT_EQ(compress(reinterpret_cast<Bytef*>(zlib.data()), &size,
                     reinterpret_cast<const Bytef*>(text.data()), text.size()),
            Z_OK);
  zlib.resize(size);
  out.clear();
  ASSERT_TRUE(Decompress(Codec::kGzip, zlib, text.size(), out).has_value());
  EXPECT_EQ(out, text);
}

// 100 MB of zeros compress to a few hundred kilobytes; declared as 1 MiB, each codec must stop
// at 1 MiB with an error, and allocate nothing near 100 MB.
TEST(CompressionTest, DataThatInflatesPastItsDeclaredSizeFailsWithoutABigAllocation) {
  const std::string zeros(100 << 20, '\0');
  const size_t declared = 1 << 20;
  for (Codec codec : {Codec::kSnappy, Codec::kGzip, Codec::kZstd, Codec::kLz4Raw}) {
    const std::string bomb = MustCompress(codec, zeros, codec == Codec::kGzip ? 1 : 0);
    std::string out = "kept";
    g_largest = 0;
    g_tracking = true;
    auto status = Decompress(codec, bomb, declared, out);
    g_tracking = false;
    ASSERT_FALSE(status.has_value()) << Name(codec);
    EXPECT_EQ(status.error().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(status.error().message().find("decompresses past its declared size of 1048576 bytes"),
              std::string::npos)
        << status.error().message();
    EXPECT_LE(g_largest.load(), declared + 4096) << Name(codec);
    EXPECT_EQ(out, "kept");
  }
}

TEST(CompressionTest, DataShortOfItsDeclaredSizeFails) {
  const std::string in = Sample(4000, 5);
  for (Codec codec : kCodecs) {
    std::string out;
    auto status = Decompress(codec, MustCompress(codec, in), in.size() + 1, out);
    ASSERT_FALSE(status.has_value()) << Name(codec);
    EXPECT_NE(status.error().message().find("declared size of 4001 bytes"), std::string::npos)
        << status.error().message();
    EXPECT_TRUE(out.empty());
  }
}

TEST(CompressionTest, TruncatedAndCorruptDataNeverCrashes) {
  const std::string in = Sample(3000, 6);
  std::mt19937 rng(7);
  for (Codec codec : {Codec::kSnappy, Codec::kGzip, Codec::kZstd, Codec::kLz4Raw}) {
    const std::string compressed = MustCompress(codec, in);
    for (size_t cut = 0; cut < compressed.size(); ++cut) {
      std::string out;
      const std::string data = compressed.substr(0, cut);
      auto status = Decompress(codec, data, in.size(), out);
      // A cut stream cannot produce every byte (LZ4 and snappy may end with literal bytes the
      // cut leaves whole only when nothing is missing).
      ASSERT_FALSE(status.has_value()) << Name(codec) << " cut " << cut;
      ASSERT_TRUE(out.empty());
    }
    for (int trial = 0; trial < 300; ++trial) {
      std::string data = compressed;
      data[rng() % data.size()] ^= static_cast<char>(1 + rng() % 255);
      std::string out;
      auto status = Decompress(codec, data, in.size(), out);
      ASSERT_EQ(out.size(), status.has_value() ? in.size() : 0u);
    }
  }
}

std::string BigEndian32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

TEST(CompressionTest, ReadsHadoopFramedAndBareLz4) {
  const std::string a = Sample(3000, 8), b = Sample(2000, 9);
  const std::string ca = MustCompress(Codec::kLz4Raw, a), cb = MustCompress(Codec::kLz4Raw, b);
  const std::string framed = BigEndian32(3000) + BigEndian32(uint32_t(ca.size())) + ca +
                             BigEndian32(2000) + BigEndian32(uint32_t(cb.size())) + cb;
  std::string out;
  ASSERT_TRUE(Decompress(Codec::kLz4, framed, 5000, out).has_value());
  EXPECT_EQ(out, a + b);
  out.clear();
  ASSERT_TRUE(Decompress(Codec::kLz4, ca, 3000, out).has_value());
  EXPECT_EQ(out, a);
  out.clear();
  auto status = Decompress(Codec::kLz4, framed, 4000, out);
  ASSERT_FALSE(status.has_value());
  EXPECT_TRUE(out.empty());
  // Writing it is not supported: LZ4_RAW replaces it.
  EXPECT_EQ(Compress(Codec::kLz4, a, out).error().code(), ErrorCode::kUnimplemented);
}

TEST(CompressionTest, BrotliAndLzoAreUnimplemented) {
  std::string out;
  for (Codec codec : {Codec::kBrotli, Codec::kLzo}) {
    auto c = Compress(codec, "x", out);
    ASSERT_FALSE(c.has_value());
    EXPECT_EQ(c.error().code(), ErrorCode::kUnimplemented);
    EXPECT_EQ(c.error().message(), codec == Codec::kBrotli ? "the BROTLI codec is not supported"
                                                           : "the LZO codec is not supported");
    auto d = Decompress(codec, "x", 1, out);
    EXPECT_EQ(d.error().code(), ErrorCode::kUnimplemented);
    EXPECT_FALSE(CanCompress(codec));
    EXPECT_FALSE(CanDecompress(codec));
  }
  EXPECT_TRUE(CanDecompress(Codec::kLz4));
  EXPECT_FALSE(CanCompress(Codec::kLz4));
  EXPECT_EQ(Decompress(static_cast<Codec>(42), "x", 1, out).error().code(),
            ErrorCode::kInvalidArgument);
}

TEST(CompressionTest, DeclaredSizesAboveTheFormatsLimitFail) {
  std::string out;
  auto status = Decompress(Codec::kZstd, "x", size_t{1} << 31, out);
  ASSERT_FALSE(status.has_value());
  EXPECT_EQ(status.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_LT(out.capacity(), 1024u);
}

TEST(CompressionTest, UncompressedSizeMustMatch) {
  std::string out;
  EXPECT_FALSE(Decompress(Codec::kUncompressed, "abc", 2, out).has_value());
  EXPECT_FALSE(Decompress(Codec::kUncompressed, "abc", 4, out).has_value());
  ASSERT_TRUE(Decompress(Codec::kUncompressed, "abc", 3, out).has_value());
  EXPECT_EQ(out, "abc");
}

TEST(CompressionTest, ThreadsCompressAndDecompressAtOnce) {
  const std::string in = Sample(200'000, 10);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        std::string compressed, out;
        if (!Compress(Codec::kZstd, in, compressed).has_value() ||
            !Decompress(Codec::kZstd, compressed, in.size(), out).has_value() || out != in) {
          ++failures;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace sluice::parquet
