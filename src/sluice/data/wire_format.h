// Confluent's wire format for Kafka messages, a cache of the writer schemas it refers to, and the
// length-prefixed message file `sluice decode` reads and `sluice encode` writes
// (docs/formats/framed-messages.md).
//
// A framed message is the magic byte 0, the writer schema's registry id as a 4-byte big-endian
// integer, then the Avro binary payload. A message file is a sequence of records, each a 4-byte
// big-endian length and that many bytes of one framed message.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/base/result.h"
#include "sluice/dialects/avro/avro_schema.h"

namespace sluice::data {

inline constexpr uint8_t kWireMagicByte = 0;
/// The magic byte and the schema id.
inline constexpr size_t kWireHeaderBytes = 5;

/// A framed message, split. `payload` points into the bytes given to ParseFrame.
struct Framed {
  int32_t schema_id = 0;
  std::string_view payload;
};

/// Return the framed message: magic byte, big-endian `schema_id`, `payload`.
std::string FrameMessage(int32_t schema_id, std::string_view payload);

/// Split a framed message. kParseError when it is shorter than the 5-byte header or its first
/// byte is not the magic byte 0.
Result<Framed> ParseFrame(std::string_view message);

/// Writer schemas by registry id, each fetched and parsed once, shared by every thread.
///
/// `fetch` returns the schema text for an id (e.g. from `GET /schemas/ids/{id}`); it is called
/// without the cache's lock held, at most once at a time for one id: other threads asking for the
/// same id wait for that call. A failed fetch or parse is returned and not kept, so the next Get
/// tries again.
class SchemaCache {
 public:
  using Fetch = std::function<Result<std::string>(int32_t schema_id)>;

  explicit SchemaCache(Fetch fetch);

  /// The parsed schema for `schema_id`. Errors: whatever `fetch` returns, with the id in front,
  /// or AvroSchema's parse error.
  Result<std::shared_ptr<const dialects::avro::AvroSchema>> Get(int32_t schema_id);

  /// How many schemas are held.
  size_t size() const;

 private:
  struct Entry {
    std::shared_ptr<const dialects::avro::AvroSchema> schema;  // null while being fetched
  };

  Fetch fetch_;
  mutable std::mutex mu_;
  std::condition_variable fetched_;
  std::map<int32_t, Entry> entries_;
};

/// Append one record of a message file: the 4-byte big-endian length of `message`, then
/// `message`. kInvalidArgument when the message is 4 GiB or longer.
Status AppendLengthPrefixed(std::string& file, std::string_view message);

/// One record of a message file.
struct MessageRecord {
  /// The framed message's bytes, pointing into the file's text.
  std::string_view message;
  /// Byte offset of the record's length prefix in the file.
  size_t offset = 0;
  /// 0-based position of the record in the file.
  size_t index = 0;
};

/// Reads the records of a message file held in memory, front to back.
class MessageFileReader {
 public:
  explicit MessageFileReader(std::string_view file) : file_(file) {}

  /// The next record, nullopt at the end of the file. kParseError, with the byte offset, when
  /// fewer than 4 bytes remain for a length or the length runs past the end of the file; the
  /// reader stays at that record, since nothing after it can be found.
  Result<std::optional<MessageRecord>> Next();

  /// Byte offset of the next record.
  size_t offset() const { return pos_; }

 private:
  std::string_view file_;
  size_t pos_ = 0;
  size_t index_ = 0;
};

}  // namespace sluice::data
