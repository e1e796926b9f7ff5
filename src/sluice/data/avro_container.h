// Avro object container files (`.avro`, the spec's "Object Container Files") as record input:
// the frame (magic, metadata, sync marker, blocks), the codecs, the records read as JSON lines in
// the shape spark-avro gives them (so validation runs over them as over any JSON lines), and the
// writer schemas of several files merged as Auto Loader merges Avro schemas.
//
// A file is the magic "Obj\x01", a metadata map (bytes values; `avro.schema` holds the writer's
// schema JSON, `avro.codec` the codec, "null" when absent), a 16-byte sync marker, then blocks:
// a count of records, the byte size of the (compressed) records, the records, the sync marker.
//
// Hostile input is bounded: every count and size is checked against AvroContainerLimits and
// against the bytes that are there before anything is allocated for it, a block never
// decompresses past its limit, and every error names the file and the byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/base/result.h"
#include "sluice/data/avro_binary.h"
#include "sluice/dialects/avro/avro_schema.h"
#include "sluice/schema/conversion.h"
#include "sluice/schema/schema.h"

namespace sluice::data {

/// The block codecs sluice reads and writes. The spec's bzip2 and xz are refused when read
/// (kUnimplemented, "unsupported codec").
enum class AvroCodec : uint8_t {
  kNull,
  kDeflate,    // raw deflate (RFC 1951), no zlib header or checksum
  kSnappy,     // a snappy block, then the big-endian CRC-32 of the uncompressed data
  kZstandard,  // one or more zstd frames
};

/// The codec's name in `avro.codec`: "null", "deflate", "snappy", "zstandard".
std::string_view AvroCodecName(AvroCodec codec);

/// The spec's magic, the first four bytes of every container file.
inline constexpr std::string_view kAvroMagic{"Obj\x01", 4};
/// The size of the sync marker.
inline constexpr size_t kAvroSyncSize = 16;

/// Bounds for reading hostile files. The defaults are far above what writers produce (Java's
/// writer cuts blocks at 64 KB by default).
struct AvroContainerLimits {
  /// The header's metadata (keys and values together, the schema included).
  size_t max_metadata_bytes = size_t{64} << 20;
  /// A block's bytes as stored, and again once decompressed.
  size_t max_block_bytes = size_t{256} << 20;
  /// Records that take no bytes at all (a record of no fields, or of nulls only) in one block: a
  /// block's count is otherwise bounded by its bytes.
  uint64_t max_empty_records = uint64_t{1} << 20;
  /// Nesting of the records' values (AvroDecodeOptions::max_depth).
  size_t max_depth = 512;
};

/// Whether `path` names an Avro container file: its name ends in .avro, or `head` (its first
/// bytes) is the magic "Obj\x01".
bool IsAvroContainer(const std::string& path, std::string_view head);

/// A container file read front to back, a block at a time. Not thread-safe.
class AvroContainerReader {
 public:
  /// Open `path` ("-" is standard input) and read its header: magic, metadata, sync marker.
  /// kParseError with the file and byte offset for a file that is not a container or whose
  /// header is damaged; kInvalidArgument for a schema that does not parse; kUnimplemented for a
  /// codec sluice does not read.
  static Result<std::unique_ptr<AvroContainerReader>> Open(FileSystem& fs, const std::string& path,
                                                           const AvroContainerLimits& limits = {});
  ~AvroContainerReader();

  const std::string& path() const { return path_; }
  /// The writer's schema (`avro.schema`).
  const dialects::avro::AvroSchema& schema() const { return *schema_; }
  AvroCodec codec() const { return codec_; }
  /// Every metadata entry, in file order (`avro.*` included); values are bytes.
  const std::vector<std::pair<std::string, std::string>>& metadata() const { return metadata_; }

  /// The next record in Avro's JSON encoding (avro_binary.h: unions wrapped, bytes as
  /// ISO-8859-1 text), or nullopt after the last one. Errors name the file, the block's byte
  /// offset and the record's place in the block.
  Result<std::optional<JsonValue>> Next();

  /// The number of records in the rest of the file, reading each block's frame and skipping
  /// its data (neither decompressed nor decoded). The reader is at the end afterwards.
  Result<uint64_t> CountRemaining();

 private:
  class Input;
  AvroContainerReader(std::string path, const AvroContainerLimits& limits,
                      std::unique_ptr<Input> in);
  Status ReadHeader();
  Status ReadMetadata();
  // A length-prefixed metadata key or value into `out`, within `budget` bytes (reduced).
  Status ReadMetadataBytes(std::string_view what, size_t& budget, std::string& out);
  Result<AvroCodec> CodecNamed(std::string_view name) const;
  // A zigzag varint long; errors name `what` ("block 2's byte size") and its offset.
  Result<int64_t> ReadLong(std::string_view what);
  // Read the next block's frame into stored_ (or past it when `skip`); false at the end.
  Result<bool> ReadBlockFrame(bool skip);
  // Decompress stored_ into block_ and check the block's count against its bytes.
  Status LoadBlock();
  // After a block's last record: no bytes may be left.
  Status CheckBlockEnd() const;
  Unexpected<Error> Corrupt(uint64_t offset, std::string_view message) const;

  std::string path_;
  AvroContainerLimits limits_;
  std::unique_ptr<Input> in_;
  std::optional<dialects::avro::AvroSchema> schema_;
  std::optional<AvroDecoder> decoder_;
  AvroCodec codec_ = AvroCodec::kNull;
  std::vector<std::pair<std::string, std::string>> metadata_;
  std::string sync_;
  // The current block: where its frame starts, its number, its records as stored and
  // decompressed, the records read so far.
  uint64_t block_offset_ = 0;
  uint64_t block_number_ = 0;
  uint64_t block_count_ = 0;
  std::string stored_;
  std::string decompressed_;
  std::string_view block_;
  size_t block_pos_ = 0;
  uint64_t records_read_ = 0;
  uint64_t empty_records_ = 0;
};

/// Write `records` (Avro's JSON encoding, avro_binary.h's conveniences allowed) as a container
/// file of `schema`, `block_records` records a block (0: one block), with `codec`. For tests and
/// fixtures. kInvalidArgument names the record that does not fit the schema.
Result<std::string> WriteAvroContainer(const dialects::avro::AvroSchema& schema,
                                       const std::vector<JsonValue>& records,
                                       AvroCodec codec = AvroCodec::kNull,
                                       size_t block_records = 0);

/// `path`'s records as JSON lines, one per record, each ended by '\n', in the shape spark-avro
/// reads them, which is the model schema dialects::avro::ToModel gives the writer's schema:
/// a record is an object; `["null", T]` is T's value or null; int+long and float+double unions
/// are the number; other unions an object of member0..memberN with the written branch's member
/// set and the others null; enums their symbol; bytes and fixed base64; decimals numbers with
/// exactly `scale` digits after the point; dates "YYYY-MM-DD"; timestamps ISO 8601 ("Z" for
/// instants, none for local timestamps); times "HH:MM:SS[.f]"; uuids their text; a top-level
/// non-record is the object {"value": ...}. Errors name the file and byte offset; they surface
/// from Open or from a Read.
Result<std::unique_ptr<SequentialFile>> OpenAvroRows(FileSystem& fs, const std::string& path,
                                                     const AvroContainerLimits& limits = {});

/// Append one decoded datum (`datum`, Avro's JSON encoding, as AvroDecoder gives it) written
/// with `writer` to `out` as the JSON object of spark-avro's row, the shape OpenAvroRows gives
/// each record (no newline). Used for Kafka values as well as container records.
void AppendSparkAvroRow(const dialects::avro::AvroSchema& writer, const JsonValue& datum,
                        std::string& out);

/// Each file's writer schema converted to the model (dialects::avro::ToModel, its notes
/// prefixed with the file's name), merged in order as Auto Loader merges Avro files' schemas:
/// fields matched by name, a field only some files have added at the end and nullable, nullable
/// where any file has it nullable, structs merged member by member, array elements and map
/// values merged; an atomic type that differs becomes the wider of the two
/// (internal::WiderAtomicType: int8 < int16 < int32 < int64; integers of up to 32 bits or
/// float32 -> float64; decimals to the scale and integer digits of both, the precision capped at
/// 38; integers with decimals as decimal(10,0) and decimal(20,0); date -> timestamp or
/// timestamp_ntz; finer time units), and a difference with no wider type is kIncompatible
/// naming the field and both files. `rows`, when given, gets the files'
/// records summed (each block's frame read, its data skipped).
Result<schema::Converted<schema::SchemaPtr>> MergeAvroSchemas(FileSystem& fs,
                                                              const std::vector<std::string>& files,
                                                              uint64_t* rows = nullptr);

}  // namespace sluice::data
