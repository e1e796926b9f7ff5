#include "sluice/data/avro_container.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "sluice/base/hash.h"
#include "sluice/base/std_io.h"
#include "sluice/base/strings.h"
#include "sluice/data/avro_codecs_internal.h"

namespace sluice::data {

namespace avro = dialects::avro;

std::string_view AvroCodecName(AvroCodec codec) {
  switch (codec) {
    case AvroCodec::kNull:
      return "null";
    case AvroCodec::kDeflate:
      return "deflate";
    case AvroCodec::kSnappy:
      return "snappy";
    case AvroCodec::kZstandard:
      return "zstandard";
  }
  return "null";
}

bool IsAvroContainer(const std::string& path, std::string_view head) {
  return EndsWith(AsciiLower(path), ".avro") || head.substr(0, kAvroMagic.size()) == kAvroMagic;
}

// The file's bytes through a buffer, with the offset of the next byte. Reads are sized by what
// the file holds, never by what a length in it claims: a hostile size costs only the bytes that
// are really there before it fails as truncated.
class AvroContainerReader::Input {
 public:
  explicit Input(std::unique_ptr<SequentialFile> file) : file_(std::move(file)) {}

  uint64_t offset() const { return offset_; }

  // True when no byte is left.
  Result<bool> AtEnd() {
    SLUICE_TRY(Fill(1));
    return pos_ == buf_.size();
  }

  // One byte, or nullopt at the end of the file.
  Result<std::optional<uint8_t>> Byte() {
    SLUICE_TRY(Fill(1));
    if (pos_ == buf_.size()) return std::nullopt;
    ++offset_;
    return static_cast<uint8_t>(buf_[pos_++]);
  }

  // Append `n` bytes to `out` (or drop them when `out` is null); false if the file ends first,
  // with what there was consumed.
  Result<bool> Take(uint64_t n, std::string* out) {
    while (n > 0) {
      SLUICE_TRY(Fill(1));
      const size_t have = buf_.size() - pos_;
      if (have == 0) return false;
      const size_t k = static_cast<size_t>(std::min<uint64_t>(n, have));
      if (out != nullptr) out->append(buf_, pos_, k);
      pos_ += k;
      offset_ += k;
      n -= k;
    }
    return true;
  }

 private:
  static constexpr size_t kChunk = size_t{1} << 16;

  // Make at least `n` (<= kChunk) bytes available unless the file ends first.
  Status Fill(size_t n) {
    if (buf_.size() - pos_ >= n || eof_) return Ok();
    buf_.erase(0, pos_);
    pos_ = 0;
    while (buf_.size() < n && !eof_) {
      const size_t have = buf_.size();
      buf_.resize(have + kChunk);
      SLUICE_ASSIGN_OR_RETURN(size_t got, file_->Read(buf_.data() + have, kChunk));
      buf_.resize(have + got);
      if (got == 0) eof_ = true;
    }
    return Ok();
  }

  std::unique_ptr<SequentialFile> file_;
  std::string buf_;
  size_t pos_ = 0;
  uint64_t offset_ = 0;
  bool eof_ = false;
};

AvroContainerReader::AvroContainerReader(std::string path, const AvroContainerLimits& limits,
                                         std::unique_ptr<Input> in)
    : path_(std::move(path)), limits_(limits), in_(std::move(in)) {}

AvroContainerReader::~AvroContainerReader() = default;

Unexpected<Error> AvroContainerReader::Corrupt(uint64_t offset, std::string_view message) const {
  return ParseError(fmt::format("{}: byte {}: {}", path_, offset, message));
}

Result<std::unique_ptr<AvroContainerReader>> AvroContainerReader::Open(
    FileSystem& fs, const std::string& path, const AvroContainerLimits& limits) {
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<SequentialFile> file, OpenInput(fs, path));
  std::unique_ptr<AvroContainerReader> reader(
      new AvroContainerReader(path, limits, std::make_unique<Input>(std::move(file))));
  SLUICE_TRY(reader->ReadHeader());
  return reader;
}

Result<int64_t> AvroContainerReader::ReadLong(std::string_view what) {
  const uint64_t at = in_->offset();
  uint64_t acc = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<uint8_t> b, in_->Byte());
    if (!b) return Corrupt(at, fmt::format("the file ends inside {}", what));
    // The tenth byte holds the long's last bit: anything above it is not a long.
    if (shift == 63 && (*b & 0xfe) != 0) break;
    acc |= uint64_t{*b & 0x7fu} << shift;
    if ((*b & 0x80) == 0) {
      return static_cast<int64_t>(acc >> 1) ^ -static_cast<int64_t>(acc & 1);
    }
  }
  return Corrupt(at, fmt::format("{} is a varint longer than 10 bytes or out of range", what));
}

Status AvroContainerReader::ReadMetadataBytes(std::string_view what, size_t& budget,
                                              std::string& out) {
  const uint64_t at = in_->offset();
  SLUICE_ASSIGN_OR_RETURN(int64_t n, ReadLong(fmt::format("the length of a metadata {}", what)));
  if (n < 0) return Corrupt(at, fmt::format("a metadata {} has a negative length {}", what, n));
  if (static_cast<uint64_t>(n) > budget) {
    return Corrupt(
        at, fmt::format("the metadata is over the limit of {} bytes", limits_.max_metadata_bytes));
  }
  budget -= static_cast<size_t>(n);
  SLUICE_ASSIGN_OR_RETURN(bool got, in_->Take(static_cast<uint64_t>(n), &out));
  if (!got) {
    return Corrupt(at, fmt::format("the header ends inside a metadata {} of {} bytes", what, n));
  }
  return Ok();
}

Status AvroContainerReader::ReadMetadata() {
  // A map of bytes, in blocks; a negative count is followed by the block's byte size.
  size_t budget = limits_.max_metadata_bytes;
  while (true) {
    const uint64_t at = in_->offset();
    SLUICE_ASSIGN_OR_RETURN(int64_t count, ReadLong("the metadata map's count"));
    if (count == 0) return Ok();
    if (count < 0) {
      if (count == std::numeric_limits<int64_t>::min()) {
        return Corrupt(at, "the metadata map's count is out of range");
      }
      count = -count;
      SLUICE_ASSIGN_OR_RETURN(int64_t size, ReadLong("the metadata map's block size"));
      if (size < 0) return Corrupt(at, "the metadata map's block size is negative");
    }
    // Each entry takes at least its two length bytes.
    if (static_cast<uint64_t>(count) > budget / 2 + 1) {
      return Corrupt(at, fmt::format("the metadata map claims {} entries, more than its limit "
                                     "of {} bytes can hold",
                                     count, limits_.max_metadata_bytes));
    }
    for (int64_t i = 0; i < count; ++i) {
      const uint64_t key_at = in_->offset();
      std::string key;
      std::string value;
      SLUICE_TRY(ReadMetadataBytes("key", budget, key));
      SLUICE_TRY(ReadMetadataBytes("value", budget, value));
      budget -= std::min<size_t>(budget, 2);
      for (const auto& [k, v] : metadata_) {
        if (k == key) {
          return Corrupt(key_at, fmt::format("the metadata key \"{}\" appears twice",
                                             EscapeForMessage(key, 80)));
        }
      }
      metadata_.emplace_back(std::move(key), std::move(value));
    }
  }
}

Result<AvroCodec> AvroContainerReader::CodecNamed(std::string_view name) const {
  for (AvroCodec c :
       {AvroCodec::kNull, AvroCodec::kDeflate, AvroCodec::kSnappy, AvroCodec::kZstandard}) {
    if (name == AvroCodecName(c)) return c;
  }
  if (name == "bzip2" || name == "xz") {
    return Unimplemented(fmt::format(
        "{}: unsupported codec \"{}\" (sluice reads null, deflate, snappy and zstandard)", path_,
        name));
  }
  return Corrupt(4, fmt::format("unknown codec \"{}\" in avro.codec", EscapeForMessage(name, 80)));
}

Status AvroContainerReader::ReadHeader() {
  std::string magic;
  SLUICE_ASSIGN_OR_RETURN(bool whole, in_->Take(kAvroMagic.size(), &magic));
  if (!whole || magic != kAvroMagic) {
    return Corrupt(0, "not an Avro container file: it does not start with the magic \"Obj\\x01\"");
  }
  SLUICE_TRY(ReadMetadata());
  const uint64_t sync_at = in_->offset();
  SLUICE_ASSIGN_OR_RETURN(bool got_sync, in_->Take(kAvroSyncSize, &sync_));
  if (!got_sync) return Corrupt(sync_at, "the header ends inside the 16-byte sync marker");

  const std::string* schema_text = nullptr;
  std::string_view codec = "null";
  for (const auto& [k, v] : metadata_) {
    if (k == "avro.schema") schema_text = &v;
    if (k == "avro.codec") codec = v;
  }
  SLUICE_ASSIGN_OR_RETURN(codec_, CodecNamed(codec));
  if (schema_text == nullptr) return Corrupt(4, "the header has no avro.schema");
  auto parsed = avro::Parse(*schema_text);
  if (!parsed.has_value()) return Fail(parsed.error().WithContext(path_ + ": avro.schema"));
  schema_.emplace(std::move(parsed).value());
  AvroDecodeOptions options;
  options.max_depth = limits_.max_depth;
  options.max_zero_byte_items = limits_.max_empty_records;
  auto decoder = AvroDecoder::Make(*schema_, options);
  if (!decoder.has_value()) return Fail(decoder.error().WithContext(path_ + ": avro.schema"));
  decoder_.emplace(std::move(decoder).value());
  return Ok();
}

Result<bool> AvroContainerReader::ReadBlockFrame(bool skip) {
  SLUICE_ASSIGN_OR_RETURN(bool end, in_->AtEnd());
  if (end) return false;
  block_offset_ = in_->offset();
  ++block_number_;
  SLUICE_ASSIGN_OR_RETURN(int64_t count,
                          ReadLong(fmt::format("block {}'s record count", block_number_)));
  const uint64_t size_at = in_->offset();
  SLUICE_ASSIGN_OR_RETURN(int64_t size,
                          ReadLong(fmt::format("block {}'s byte size", block_number_)));
  if (count < 0) {
    return Corrupt(block_offset_,
                   fmt::format("block {} has a negative record count {}", block_number_, count));
  }
  if (size < 0) {
    return Corrupt(size_at, fmt::format("block {} has a negative size {}", block_number_, size));
  }
  if (static_cast<uint64_t>(size) > limits_.max_block_bytes) {
    return Corrupt(size_at, fmt::format("block {} claims {} bytes, over the limit of {}",
                                        block_number_, size, limits_.max_block_bytes));
  }
  stored_.clear();
  const uint64_t data_at = in_->offset();
  SLUICE_ASSIGN_OR_RETURN(bool whole,
                          in_->Take(static_cast<uint64_t>(size), skip ? nullptr : &stored_));
  if (!whole) {
    return Corrupt(data_at, fmt::format("block {} claims {} bytes but the file ends after {}",
                                        block_number_, size, in_->offset() - data_at));
  }
  const uint64_t sync_at = in_->offset();
  std::string sync;
  SLUICE_ASSIGN_OR_RETURN(bool got_sync, in_->Take(kAvroSyncSize, &sync));
  if (!got_sync) {
    return Corrupt(sync_at,
                   fmt::format("the file ends inside block {}'s sync marker", block_number_));
  }
  if (sync != sync_) {
    return Corrupt(sync_at, fmt::format("block {}'s sync marker differs from the header's (the "
                                        "file is damaged, or its block size is wrong)",
                                        block_number_));
  }
  block_count_ = static_cast<uint64_t>(count);
  return true;
}

Status AvroContainerReader::LoadBlock() {
  if (codec_ == AvroCodec::kNull) {
    block_ = stored_;
  } else {
    Status s = internal::AvroDecompress(codec_, stored_, limits_.max_block_bytes, decompressed_);
    if (!s.has_value()) {
      return Corrupt(block_offset_,
                     fmt::format("block {}: {}", block_number_, s.error().message()));
    }
    block_ = decompressed_;
  }
  block_pos_ = 0;
  records_read_ = 0;
  empty_records_ = 0;
  // Every record takes a byte at least, but for those that take none, which are bounded apart.
  if (block_count_ > block_.size() + limits_.max_empty_records) {
    return Corrupt(block_offset_, fmt::format("block {} claims {} records in {} bytes",
                                              block_number_, block_count_, block_.size()));
  }
  return CheckBlockEnd();
}

Result<std::optional<JsonValue>> AvroContainerReader::Next() {
  while (records_read_ == block_count_) {
    SLUICE_ASSIGN_OR_RETURN(bool more, ReadBlockFrame(false));
    if (!more) return std::nullopt;
    SLUICE_TRY(LoadBlock());
  }
  size_t used = 0;
  auto value = decoder_->DecodePrefix(block_.substr(block_pos_), &used);
  if (!value.has_value()) {
    return Corrupt(
        block_offset_,
        fmt::format("block {}, record {} (at byte {} of the block's {}data): {}", block_number_,
                    records_read_ + 1, block_pos_,
                    codec_ == AvroCodec::kNull ? "" : "decompressed ", value.error().message()));
  }
  if (used == 0 && ++empty_records_ > limits_.max_empty_records) {
    return Corrupt(block_offset_,
                   fmt::format("block {} holds more than {} records that take no bytes",
                               block_number_, limits_.max_empty_records));
  }
  block_pos_ += used;
  ++records_read_;
  SLUICE_TRY(CheckBlockEnd());
  return std::optional<JsonValue>(std::move(value).value());
}

Status AvroContainerReader::CheckBlockEnd() const {
  if (records_read_ < block_count_ || block_pos_ == block_.size()) return Ok();
  const size_t extra = block_.size() - block_pos_;
  return Corrupt(block_offset_,
                 fmt::format("block {} has {} byte{} after its {} record{}", block_number_, extra,
                             extra == 1 ? "" : "s", block_count_, block_count_ == 1 ? "" : "s"));
}

Result<uint64_t> AvroContainerReader::CountRemaining() {
  uint64_t total = block_count_ - records_read_;
  records_read_ = block_count_;
  block_ = {};
  block_pos_ = 0;
  while (true) {
    SLUICE_ASSIGN_OR_RETURN(bool more, ReadBlockFrame(true));
    if (!more) break;
    total += block_count_;
  }
  records_read_ = block_count_;
  return total;
}

namespace {

void AppendLong(std::string& out, int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out.push_back(static_cast<char>((z & 0x7f) | 0x80));
    z >>= 7;
  }
  out.push_back(static_cast<char>(z));
}

void AppendBytes(std::string& out, std::string_view bytes) {
  AppendLong(out, static_cast<int64_t>(bytes.size()));
  out.append(bytes);
}

}  // namespace

Result<std::string> WriteAvroContainer(const avro::AvroSchema& schema,
                                       const std::vector<JsonValue>& records, AvroCodec codec,
                                       size_t block_records) {
  const std::string schema_text = avro::WriteJson(schema);
  std::string out(kAvroMagic);
  AppendLong(out, 2);
  AppendBytes(out, "avro.codec");
  AppendBytes(out, AvroCodecName(codec));
  AppendBytes(out, "avro.schema");
  AppendBytes(out, schema_text);
  AppendLong(out, 0);
  // A marker that is the same for the same schema, so that fixtures are reproducible.
  const std::string sync = HexDecode(Md5Hex("sync:" + schema_text)).value_or(std::string(16, 's'));
  out += sync;
  const size_t per_block = block_records == 0 ? records.size() : block_records;
  std::string data;
  std::string packed;
  for (size_t start = 0; start < records.size(); start += per_block) {
    const size_t end = std::min(records.size(), start + per_block);
    data.clear();
    for (size_t i = start; i < end; ++i) {
      Status s = AppendAvro(schema.root(), records[i], data);
      if (!s.has_value()) return Fail(s.error().WithContext(fmt::format("record {}", i + 1)));
    }
    SLUICE_TRY(internal::AvroCompress(codec, data, packed));
    AppendLong(out, static_cast<int64_t>(end - start));
    AppendBytes(out, packed);
    out += sync;
  }
  return out;
}

}  // namespace sluice::data
