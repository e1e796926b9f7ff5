// Fuzz the Avro object container reader over whole files: the bytes are a file in a
// MemoryFileSystem, opened and read record by record, counted again without decoding, read as
// rows, and written back. Limits are small so that no input makes a run slow for its
// allocations.
//
// What a user relies on:
//  * opening and reading end with records or an error, never a crash; an error names the file;
//  * a file that reads counts the same records when its blocks are skipped (CountRemaining);
//  * its rows (OpenAvroRows) are one JSON line per record, each a JSON object;
//  * the records, written again with the file's schema and codec, read back the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/data/avro_container.h"

namespace data = sluice::data;

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckError(const sluice::Error& e, std::string_view file) {
  Check(e.code() != sluice::ErrorCode::kInternal);
  Check(e.message().find(file) != std::string::npos);
}

data::AvroContainerLimits Limits() {
  data::AvroContainerLimits limits;
  limits.max_metadata_bytes = size_t{1} << 16;
  limits.max_block_bytes = size_t{1} << 20;
  limits.max_empty_records = 4096;
  limits.max_depth = 64;
  return limits;
}

constexpr size_t kMaxRecords = 20000;

// Every record of `path` (nullopt after an error, which is checked, or past kMaxRecords).
std::optional<std::vector<sluice::JsonValue>> ReadAll(sluice::FileSystem& fs,
                                                      const std::string& path,
                                                      data::AvroCodec* codec) {
  auto reader = data::AvroContainerReader::Open(fs, path, Limits());
  if (!reader) {
    CheckError(reader.error(), path);
    return std::nullopt;
  }
  if (codec != nullptr) *codec = (*reader)->codec();
  std::vector<sluice::JsonValue> records;
  while (records.size() < kMaxRecords) {
    auto next = (*reader)->Next();
    if (!next) {
      CheckError(next.error(), path);
      return std::nullopt;
    }
    if (!next->has_value()) return records;
    records.push_back(std::move(**next));
  }
  return std::nullopt;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  auto fs = std::make_shared<sluice::MemoryFileSystem>();
  const std::string path = "f.avro";
  Check(fs->WriteFile(path, std::string_view(reinterpret_cast<const char*>(bytes), size))
            .has_value());
  data::AvroCodec codec = data::AvroCodec::kNull;
  auto records = ReadAll(*fs, path, &codec);
  if (!records) return 0;

  auto counter = data::AvroContainerReader::Open(*fs, path, Limits());
  Check(counter.has_value());
  auto count = (*counter)->CountRemaining();
  Check(count.has_value() && *count == records->size());

  auto rows = data::OpenAvroRows(*fs, path, Limits());
  Check(rows.has_value());
  std::string text;
  std::string buf(4096, '\0');
  while (true) {
    auto n = (*rows)->Read(buf.data(), buf.size());
    Check(n.has_value());
    if (*n == 0) break;
    text.append(buf, 0, *n);
  }
  size_t lines = 0;
  sluice::JsonParseOptions po;
  po.max_depth = 1024;
  for (size_t pos = 0; pos < text.size(); ++lines) {
    const size_t nl = text.find('\n', pos);
    Check(nl != std::string::npos);
    auto row = sluice::ParseJson(std::string_view(text).substr(pos, nl - pos), po);
    Check(row.has_value() && row->is_object());
    pos = nl + 1;
  }
  Check(lines == records->size());

  // Written again, the records read back the same.
  auto again = data::WriteAvroContainer((*counter)->schema(), *records, codec, 7);
  Check(again.has_value());
  Check(fs->WriteFile("g.avro", *again).has_value());
  auto back = ReadAll(*fs, "g.avro", nullptr);
  Check(back.has_value() && back->size() == records->size());
  for (size_t i = 0; i < records->size(); ++i) {
    Check(sluice::ToJson((*back)[i]) == sluice::ToJson((*records)[i]));
  }
  return 0;
}
