#include "sluice/data/wire_format.h"

#include <fmt/format.h>

#include <utility>

namespace sluice::data {

namespace {

void AppendBigEndian32(std::string& out, uint32_t v) {
  out.push_back(static_cast<char>((v >> 24) & 0xFF));
  out.push_back(static_cast<char>((v >> 16) & 0xFF));
  out.push_back(static_cast<char>((v >> 8) & 0xFF));
  out.push_back(static_cast<char>(v & 0xFF));
}

uint32_t ReadBigEndian32(std::string_view s) {
  return (static_cast<uint32_t>(static_cast<uint8_t>(s[0])) << 24) |
         (static_cast<uint32_t>(static_cast<uint8_t>(s[1])) << 16) |
         (static_cast<uint32_t>(static_cast<uint8_t>(s[2])) << 8) |
         static_cast<uint32_t>(static_cast<uint8_t>(s[3]));
}

}  // namespace

std::string FrameMessage(int32_t schema_id, std::string_view payload) {
  std::string out;
  out.reserve(kWireHeaderBytes + payload.size());
  out.push_back(static_cast<char>(kWireMagicByte));
  AppendBigEndian32(out, static_cast<uint32_t>(schema_id));
  out += payload;
  return out;
}

Result<Framed> ParseFrame(std::string_view message) {
  if (message.size() < kWireHeaderBytes) {
    return ParseError(fmt::format(
        "message too short: {} bytes, a framed message starts with a {}-byte header (magic byte "
        "and schema id)",
        message.size(), kWireHeaderBytes));
  }
  if (static_cast<uint8_t>(message[0]) != kWireMagicByte) {
    return ParseError(
        fmt::format("bad magic byte 0x{:02x} at byte 0: a framed message starts with 0x00",
                    static_cast<uint8_t>(message[0])));
  }
  Framed f;
  f.schema_id = static_cast<int32_t>(ReadBigEndian32(message.substr(1, 4)));
  f.payload = message.substr(kWireHeaderBytes);
  return f;
}

SchemaCache::SchemaCache(Fetch fetch) : fetch_(std::move(fetch)) {}

size_t SchemaCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& [id, e] : entries_) n += e.schema != nullptr ? 1 : 0;
  return n;
}

Result<std::shared_ptr<const dialects::avro::AvroSchema>> SchemaCache::Get(int32_t schema_id) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    auto it = entries_.find(schema_id);
    if (it == entries_.end()) break;
    if (it->second.schema != nullptr) return it->second.schema;
    // Another thread is fetching this id: wait for it. If it fails, the entry is gone and this
    // thread tries itself.
    fetched_.wait(lock);
  }
  entries_.emplace(schema_id, Entry{});
  lock.unlock();

  // Whatever happens below (an error, or an exception from the caller's fetch), the in-flight
  // entry is settled and waiters are woken.
  std::shared_ptr<const dialects::avro::AvroSchema> schema;
  struct Settle {
    SchemaCache* cache;
    int32_t id;
    std::shared_ptr<const dialects::avro::AvroSchema>* schema;
    ~Settle() {
      {
        std::lock_guard<std::mutex> guard(cache->mu_);
        if (*schema != nullptr) {
          cache->entries_[id].schema = *schema;
        } else {
          cache->entries_.erase(id);
        }
      }
      cache->fetched_.notify_all();
    }
  } settle{this, schema_id, &schema};

  Result<std::string> text = fetch_(schema_id);
  if (!text.has_value()) {
    return Fail(text.error().WithContext(fmt::format("schema id {}", schema_id)));
  }
  auto parsed = dialects::avro::Parse(*text);
  if (!parsed.has_value()) {
    return Fail(parsed.error().WithContext(fmt::format("schema id {}", schema_id)));
  }
  schema = std::make_shared<const dialects::avro::AvroSchema>(std::move(parsed).value());
  // A copy: `return schema;` would move from it (C++23's implicit move), and `settle` would
  // find it empty.
  std::shared_ptr<const dialects::avro::AvroSchema> result = schema;
  return result;
}

Status AppendLengthPrefixed(std::string& file, std::string_view message) {
  if (message.size() > 0xFFFFFFFFu) {
    return InvalidArgument(
        fmt::format("a message of {} bytes does not fit the 4-byte length of a message file record",
                    message.size()));
  }
  AppendBigEndian32(file, static_cast<uint32_t>(message.size()));
  file += message;
  return Ok();
}

Result<std::optional<MessageRecord>> MessageFileReader::Next() {
  if (pos_ == file_.size()) return std::optional<MessageRecord>();
  const size_t remaining = file_.size() - pos_;
  if (remaining < 4) {
    return ParseError(
        fmt::format("byte {}: truncated record length: {} byte{} remain, a length takes 4", pos_,
                    remaining, remaining == 1 ? "" : "s"));
  }
  const uint32_t length = ReadBigEndian32(file_.substr(pos_, 4));
  if (length > remaining - 4) {
    return ParseError(
        fmt::format("byte {}: the record's length is {} bytes but only {} remain in the file", pos_,
                    length, remaining - 4));
  }
  MessageRecord r;
  r.offset = pos_;
  r.index = index_;
  r.message = file_.substr(pos_ + 4, length);
  pos_ += 4 + static_cast<size_t>(length);
  ++index_;
  return std::optional<MessageRecord>(r);
}

}  // namespace sluice::data
