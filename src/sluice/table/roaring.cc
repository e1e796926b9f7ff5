#include "sluice/table/roaring.h"

#include <fmt/format.h>

#include <bit>
#include <vector>

#include "sluice/table/row_index_set_internal.h"

namespace sluice::table {
namespace {

using internal::RowIndexSetAccess;
using Chunk = RowIndexSetAccess::Chunk;
using ChunkKind = RowIndexSetAccess::ChunkKind;

// RoaringFormatSpec's cookies and the container count from which offsets are always written.
constexpr uint32_t kCookieNoRuns = 12346;
constexpr uint32_t kCookieRuns = 12347;
constexpr uint32_t kNoOffsetThreshold = 4;
constexpr uint32_t kMaxContainers = 1u << 16;
constexpr uint32_t kMaxArrayValues = 4096;
constexpr size_t kBitmapWords = 1024;
// The fewest bytes a container takes: its 4-byte header and one 2-byte value or run count.
constexpr size_t kMinContainerBytes = 6;
// The fewest bytes a bucket takes: its key and an empty bitmap (cookie and count).
constexpr size_t kMinBucketBytes = 12;

// Reads numbers from a byte range; every failure names the origin and absolute byte offset.
class ByteReader {
 public:
  ByteReader(std::string_view bytes, std::string_view origin, uint64_t base)
      : bytes_(bytes), origin_(origin), base_(base) {}

  size_t pos() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }

  Unexpected<Error> FailAt(size_t pos, std::string_view what) const {
    return InvalidArgument(fmt::format("{} at byte {}: {}", origin_, base_ + pos, what));
  }
  Unexpected<Error> Fail(std::string_view what) const { return FailAt(pos_, what); }

  Status Need(size_t n, std::string_view what) const {
    if (n > remaining()) {
      return Fail(fmt::format("{} needs {} bytes but only {} are left", what, n, remaining()));
    }
    return Ok();
  }

  template <class T>
  Result<T> Read(std::string_view what, bool big_endian = false) {
    SLUICE_TRY(Need(sizeof(T), what));
    T v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
      const auto b = static_cast<uint8_t>(bytes_[pos_ + (big_endian ? i : sizeof(T) - 1 - i)]);
      v = static_cast<T>((v << 8) | b);
    }
    pos_ += sizeof(T);
    return v;
  }

  // The next `n` bytes; the caller checked Need(n).
  std::string_view Take(size_t n) {
    std::string_view s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }

  // A reader over the next `n` bytes (checked), which this one skips.
  ByteReader Sub(size_t n) {
    ByteReader sub(bytes_.substr(pos_, n), origin_, base_ + pos_);
    pos_ += n;
    return sub;
  }

 private:
  std::string_view bytes_;
  std::string_view origin_;
  uint64_t base_;
  size_t pos_ = 0;
};

uint16_t Le16(std::string_view b, size_t i) {
  return static_cast<uint16_t>(static_cast<uint8_t>(b[i]) |
                               (static_cast<uint16_t>(static_cast<uint8_t>(b[i + 1])) << 8));
}

struct ContainerHeader {
  uint16_t key;
  uint32_t cardinality;
  bool run;
};

// One run container: (start, length - 1) pairs, ascending and apart, within 16 bits, adding up
// to the cardinality the header declared.
Status ReadRunContainer(ByteReader& r, const ContainerHeader& h, Chunk& c) {
  const size_t at = r.pos();
  SLUICE_ASSIGN_OR_RETURN(const uint16_t runs, r.Read<uint16_t>("a run container's run count"));
  SLUICE_TRY(r.Need(4 * size_t{runs}, fmt::format("a run container of {} runs", runs)));
  std::string_view b = r.Take(4 * size_t{runs});
  c.kind = ChunkKind::kRun;
  c.data.resize(2 * size_t{runs});
  uint64_t total = 0;
  int64_t previous_last = -1;
  for (size_t i = 0; i < runs; ++i) {
    const uint16_t start = Le16(b, 4 * i);
    const uint16_t length_minus_one = Le16(b, 4 * i + 2);
    const int64_t last = int64_t{start} + length_minus_one;
    if (start <= previous_last || last > 0xFFFF) {
      return r.FailAt(at + 2 + 4 * i,
                      fmt::format("run {} of container {} ({} +{}) overlaps the one before it or "
                                  "passes 65535",
                                  i, h.key, start, length_minus_one));
    }
    previous_last = last;
    total += uint64_t{length_minus_one} + 1;
    c.data[2 * i] = start;
    c.data[2 * i + 1] = length_minus_one;
  }
  if (total != h.cardinality) {
    return r.FailAt(at, fmt::format("run container {} holds {} values but its header says {}",
                                    h.key, total, h.cardinality));
  }
  return Ok();
}

Status ReadArrayContainer(ByteReader& r, const ContainerHeader& h, Chunk& c) {
  const size_t at = r.pos();
  SLUICE_TRY(r.Need(2 * size_t{h.cardinality},
                    fmt::format("an array container of {} values", h.cardinality)));
  std::string_view b = r.Take(2 * size_t{h.cardinality});
  c.kind = ChunkKind::kArray;
  c.data.resize(h.cardinality);
  for (size_t i = 0; i < h.cardinality; ++i) {
    c.data[i] = Le16(b, 2 * i);
    if (i > 0 && c.data[i] <= c.data[i - 1]) {
      return r.FailAt(at + 2 * i, fmt::format("array container {}: value {} after {}", h.key,
                                              c.data[i], c.data[i - 1]));
    }
  }
  return Ok();
}

Status ReadBitmapContainer(ByteReader& r, const ContainerHeader& h, Chunk& c) {
  const size_t at = r.pos();
  SLUICE_TRY(r.Need(8 * kBitmapWords, "a bitmap container"));
  std::string_view b = r.Take(8 * kBitmapWords);
  c.kind = ChunkKind::kBitmap;
  c.bits.resize(kBitmapWords);
  uint64_t total = 0;
  for (size_t w = 0; w < kBitmapWords; ++w) {
    uint64_t word = 0;
    for (size_t i = 8; i-- > 0;) word = (word << 8) | static_cast<uint8_t>(b[8 * w + i]);
    c.bits[w] = word;
    total += static_cast<uint64_t>(std::popcount(word));
  }
  if (total != h.cardinality) {
    return r.FailAt(at, fmt::format("bitmap container {} holds {} values but its header says {}",
                                    h.key, total, h.cardinality));
  }
  return Ok();
}

// One standard 32-bit Roaring bitmap whose values get `high` as their top 32 bits.
Status ReadBitmap32(ByteReader& r, uint64_t high, std::vector<Chunk>& out) {
  const size_t start = r.pos();
  SLUICE_ASSIGN_OR_RETURN(const uint32_t cookie, r.Read<uint32_t>("a Roaring bitmap's cookie"));
  uint32_t count = 0;
  bool has_runs = false;
  std::string_view run_flags;
  if ((cookie & 0xFFFF) == kCookieRuns) {
    has_runs = true;
    count = (cookie >> 16) + 1;
    SLUICE_TRY(r.Need((count + 7) / 8, "the run container flags"));
    run_flags = r.Take((count + 7) / 8);
  } else if (cookie == kCookieNoRuns) {
    SLUICE_ASSIGN_OR_RETURN(count, r.Read<uint32_t>("the container count"));
    if (count > kMaxContainers) {
      return r.FailAt(r.pos() - 4, fmt::format("{} containers (at most 65536)", count));
    }
  } else {
    return r.FailAt(start, fmt::format("cookie 0x{:08X} starts no Roaring bitmap", cookie));
  }
  if (size_t{count} * kMinContainerBytes > r.remaining()) {
    return r.Fail(
        fmt::format("{} containers cannot fit in the {} bytes left", count, r.remaining()));
  }
  std::vector<ContainerHeader> headers(count);
  std::string_view desc = r.Take(4 * size_t{count});
  for (uint32_t i = 0; i < count; ++i) {
    ContainerHeader& h = headers[i];
    h.key = Le16(desc, 4 * size_t{i});
    h.cardinality = uint32_t{Le16(desc, 4 * size_t{i} + 2)} + 1;
    h.run = has_runs && ((static_cast<uint8_t>(run_flags[i / 8]) >> (i % 8)) & 1);
    if (i > 0 && h.key <= headers[i - 1].key) {
      return r.FailAt(r.pos() - 4 * size_t{count} + 4 * size_t{i},
                      fmt::format("container key {} after key {}: keys must ascend", h.key,
                                  headers[i - 1].key));
    }
  }
  // The offsets only speed up random access; the containers follow one another anyway.
  if (!has_runs || count >= kNoOffsetThreshold) {
    SLUICE_TRY(r.Need(4 * size_t{count}, "the container offsets"));
    r.Take(4 * size_t{count});
  }
  for (const ContainerHeader& h : headers) {
    Chunk c;
    c.key = (high << 16) | h.key;
    c.cardinality = h.cardinality;
    if (h.run) {
      SLUICE_TRY(ReadRunContainer(r, h, c));
    } else if (h.cardinality <= kMaxArrayValues) {
      SLUICE_TRY(ReadArrayContainer(r, h, c));
    } else {
      SLUICE_TRY(ReadBitmapContainer(r, h, c));
    }
    out.push_back(std::move(c));
  }
  return Ok();
}

Status ReadPortable(ByteReader& r, std::vector<Chunk>& chunks) {
  SLUICE_ASSIGN_OR_RETURN(const uint64_t buckets, r.Read<uint64_t>("the bucket count"));
  if (buckets > r.remaining() / kMinBucketBytes) {
    return r.FailAt(r.pos() - 8, fmt::format("{} buckets cannot fit in the {} bytes left", buckets,
                                             r.remaining()));
  }
  int64_t previous = -1;
  for (uint64_t i = 0; i < buckets; ++i) {
    SLUICE_ASSIGN_OR_RETURN(const uint32_t key, r.Read<uint32_t>("a bucket key"));
    // Delta requires the top bit clear: Java reads keys as signed ints.
    if (key & 0x80000000u) {
      return r.FailAt(r.pos() - 4, fmt::format("bucket key 0x{:08X} has its top bit set", key));
    }
    if (int64_t{key} <= previous) {
      return r.FailAt(r.pos() - 4,
                      fmt::format("bucket key {} after key {}: keys must ascend", key, previous));
    }
    previous = key;
    SLUICE_TRY(ReadBitmap32(r, key, chunks));
  }
  return Ok();
}

// The native format: bitmaps by position, each after its byte size.
Status ReadNative(ByteReader& r, bool big_endian, std::vector<Chunk>& chunks) {
  SLUICE_ASSIGN_OR_RETURN(const uint32_t count, r.Read<uint32_t>("the bitmap count", big_endian));
  if (count > 0x7FFFFFFFu || count > r.remaining() / kMinBucketBytes) {
    return r.FailAt(r.pos() - 4, fmt::format("{} bitmaps cannot fit in the {} bytes left", count,
                                             r.remaining()));
  }
  for (uint32_t key = 0; key < count; ++key) {
    SLUICE_ASSIGN_OR_RETURN(const uint32_t size, r.Read<uint32_t>("a bitmap size", big_endian));
    SLUICE_TRY(r.Need(size, fmt::format("bitmap {}", key)));
    ByteReader sub = r.Sub(size);
    SLUICE_TRY(ReadBitmap32(sub, key, chunks));
    if (sub.remaining() != 0) {
      return sub.Fail(fmt::format("bitmap {} ends {} bytes before its declared size of {}", key,
                                  sub.remaining(), size));
    }
  }
  return Ok();
}

uint32_t ByteSwap32(uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}

void PutLe(std::string& out, uint64_t v, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

size_t ContainerBytes(const Chunk& c) {
  switch (c.kind) {
    case ChunkKind::kArray:
      return 2 * c.data.size();
    case ChunkKind::kBitmap:
      return 8 * kBitmapWords;
    case ChunkKind::kRun:
      return 2 + 2 * c.data.size();
  }
  return 0;
}

// The chunks [begin, end), which share their top 32 bits, as one standard 32-bit bitmap.
void WriteBitmap32(const std::vector<Chunk>& chunks, size_t begin, size_t end, std::string& out) {
  const size_t count = end - begin;
  bool has_runs = false;
  for (size_t i = begin; i < end; ++i) has_runs |= chunks[i].kind == ChunkKind::kRun;
  size_t header = 0;
  if (has_runs) {
    PutLe(out, kCookieRuns | (static_cast<uint32_t>(count - 1) << 16), 4);
    std::string flags((count + 7) / 8, '\0');
    for (size_t i = 0; i < count; ++i) {
      if (chunks[begin + i].kind == ChunkKind::kRun) {
        flags[i / 8] = static_cast<char>(flags[i / 8] | (1 << (i % 8)));
      }
    }
    out += flags;
    header = 4 + flags.size() + 4 * count;
  } else {
    PutLe(out, kCookieNoRuns, 4);
    PutLe(out, count, 4);
    header = 8 + 4 * count;
  }
  for (size_t i = begin; i < end; ++i) {
    PutLe(out, chunks[i].key & 0xFFFF, 2);
    PutLe(out, chunks[i].cardinality - 1, 2);
  }
  if (!has_runs || count >= kNoOffsetThreshold) {
    size_t offset = header + 4 * count;
    for (size_t i = begin; i < end; ++i) {
      PutLe(out, offset, 4);
      offset += ContainerBytes(chunks[i]);
    }
  }
  for (size_t i = begin; i < end; ++i) {
    const Chunk& c = chunks[i];
    switch (c.kind) {
      case ChunkKind::kArray:
        for (uint16_t v : c.data) PutLe(out, v, 2);
        break;
      case ChunkKind::kBitmap:
        for (uint64_t w : c.bits) PutLe(out, w, 8);
        break;
      case ChunkKind::kRun:
        PutLe(out, c.data.size() / 2, 2);
        for (uint16_t v : c.data) PutLe(out, v, 2);
        break;
    }
  }
}

}  // namespace

Result<RowIndexSet> ReadRoaringBitmapArray(std::string_view bytes, std::string_view origin,
                                           uint64_t base_offset) {
  ByteReader r(bytes, origin, base_offset);
  SLUICE_ASSIGN_OR_RETURN(const uint32_t magic, r.Read<uint32_t>("the magic number"));
  std::vector<Chunk> chunks;
  if (magic == kPortableRoaringMagic) {
    SLUICE_TRY(ReadPortable(r, chunks));
  } else if (magic == kNativeRoaringMagic) {
    SLUICE_TRY(ReadNative(r, /*big_endian=*/false, chunks));
  } else if (ByteSwap32(magic) == kNativeRoaringMagic) {
    // PROTOCOL.md's inline example writes the native framing big-endian (the 32-bit bitmaps stay
    // little-endian). Delta's reader refuses it; the magic makes it unambiguous, so read it.
    SLUICE_TRY(ReadNative(r, /*big_endian=*/true, chunks));
  } else {
    return r.FailAt(0, fmt::format("magic number {} is no RoaringBitmapArray (expected {})", magic,
                                   kPortableRoaringMagic));
  }
  if (r.remaining() != 0) {
    return r.Fail(fmt::format("{} bytes follow the bitmap", r.remaining()));
  }
  return RowIndexSetAccess::FromChunks(std::move(chunks));
}

Result<std::string> WriteRoaringBitmapArray(const RowIndexSet& rows) {
  if (!rows.empty() && rows.Max() > kMaxDeletionVectorRow) {
    return InvalidArgument(
        fmt::format("row index {} is past the largest a deletion vector holds ({})", rows.Max(),
                    kMaxDeletionVectorRow));
  }
  const std::vector<Chunk>& chunks = RowIndexSetAccess::Chunks(rows);
  std::string out;
  PutLe(out, kPortableRoaringMagic, 4);
  uint64_t buckets = 0;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (i == 0 || (chunks[i].key >> 16) != (chunks[i - 1].key >> 16)) ++buckets;
  }
  PutLe(out, buckets, 8);
  for (size_t begin = 0; begin < chunks.size();) {
    const uint64_t high = chunks[begin].key >> 16;
    size_t end = begin;
    while (end < chunks.size() && (chunks[end].key >> 16) == high) ++end;
    PutLe(out, high, 4);
    WriteBitmap32(chunks, begin, end, out);
    begin = end;
  }
  return out;
}

}  // namespace sluice::table
