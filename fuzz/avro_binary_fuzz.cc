// Fuzz the Avro binary decoder and the wire format on hostile bytes. The first byte picks what
// the rest is: an Avro datum of one of four writer schemas (every type; a recursive list; unions
// of named types with maps of arrays; arrays of items that take no bytes), read with the writer's
// own schema or resolved to an evolved reader schema (added fields with defaults, promotions,
// removed fields, reordered unions, an enum default); or a framed message; or a message file.
//
// What a user relies on:
//  * decoding ends with a value or an error, never a crash, whatever the bytes;
//  * a decoded value is a datum of the reader schema: it encodes, and decoding that encoding
//    prints the same JSON (the encoding is canonical, so this is a fixed point);
//  * the printed JSON is valid JSON that parses back and encodes to the same bytes;
//  * a frame that parses rebuilds to the same bytes; message file records tile the file in order.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/data/avro_binary.h"
#include "sluice/data/wire_format.h"
#include "sluice/dialects/avro/avro_schema.h"

namespace {

using namespace sluice;
namespace avro = sluice::dialects::avro;

struct Pair {
  const char* writer;
  const char* reader;
};

const Pair kPairs[] = {
    {R"({"type":"record","name":"Everything","namespace":"t","fields":[
        {"name":"n","type":"null"},{"name":"b","type":"boolean"},{"name":"i","type":"int"},
        {"name":"l","type":"long"},{"name":"f","type":"float"},{"name":"d","type":"double"},
        {"name":"by","type":"bytes"},{"name":"s","type":"string"},
        {"name":"e","type":{"type":"enum","name":"Color","symbols":["RED","GREEN","BLUE"]}},
        {"name":"fx","type":{"type":"fixed","name":"Two","size":2}},
        {"name":"a","type":{"type":"array","items":"int"}},
        {"name":"m","type":{"type":"map","values":"string"}},
        {"name":"u","type":["null","long","Color","string"]},
        {"name":"r","type":{"type":"record","name":"Inner","fields":[{"name":"x","type":"int"}]}}]})",
     R"({"type":"record","name":"Everything","namespace":"t","fields":[
        {"name":"u","type":["string","double","null",{"type":"enum","name":"Color",
            "symbols":["GREEN","RED"],"default":"RED"}]},
        {"name":"i","type":"double"},{"name":"l","type":"float"},{"name":"f","type":"double"},
        {"name":"by","type":"string"},{"name":"s","type":"bytes"},{"name":"e","type":"Color"},
        {"name":"a","type":{"type":"array","items":"long"}},
        {"name":"m","type":{"type":"map","values":"bytes"}},
        {"name":"r","type":{"type":"record","name":"Inner","fields":[{"name":"x","type":"long"},
            {"name":"y","type":["null","string"],"default":null}]}},
        {"name":"added","type":{"type":"array","items":["int","null"]},"default":[1,2]}]})"},
    {R"({"type":"record","name":"LinkedList","fields":[{"name":"value","type":"long"},
        {"name":"next","type":["null","LinkedList"]}]})",
     R"({"type":"record","name":"LinkedList","fields":[{"name":"value","type":"double"},
        {"name":"next","type":["null","LinkedList"]},{"name":"tag","type":"string","default":"t"}]})"},
    {R"(["null",{"type":"record","name":"Cat","fields":[{"name":"lives","type":"int"},
        {"name":"toys","type":{"type":"map","values":{"type":"array","items":"string"}}}]},
        {"type":"record","name":"Dog","fields":[{"name":"good","type":"boolean"}]},
        {"type":"fixed","name":"Egg","size":3},"bytes"])",
     R"([{"type":"record","name":"Dog","fields":[{"name":"good","type":"boolean"}]},"null",
        {"type":"fixed","name":"Egg","size":3},"string",
        {"type":"record","name":"Cat","fields":[
            {"name":"toys","type":{"type":"map","values":{"type":"array","items":"bytes"}}},
            {"name":"lives","type":"long"}]}])"},
    {R"({"type":"record","name":"Z","fields":[{"name":"nulls","type":{"type":"array","items":"null"}},
        {"name":"empties","type":{"type":"map","values":{"type":"record","name":"E","fields":[]}}},
        {"name":"zero","type":{"type":"array","items":{"type":"fixed","name":"F0","size":0}}}]})",
     R"({"type":"record","name":"Z","fields":[{"name":"nulls","type":{"type":"array","items":"null"}}]})"},
};
constexpr size_t kPairCount = sizeof(kPairs) / sizeof(kPairs[0]);

struct Compiled {
  std::optional<avro::AvroSchema> writer;
  std::optional<avro::AvroSchema> reader;
  std::optional<data::AvroDecoder> own;
  std::optional<data::AvroDecoder> resolving;
  std::optional<data::AvroDecoder> reader_own;
};

Compiled* Schemas() {
  static Compiled* compiled = [] {
    auto* c = new Compiled[kPairCount];
    data::AvroDecodeOptions o;
    o.max_depth = 64;
    o.max_zero_byte_items = 4096;
    for (size_t i = 0; i < kPairCount; ++i) {
      auto w = avro::Parse(kPairs[i].writer);
      auto r = avro::Parse(kPairs[i].reader);
      if (!w.has_value() || !r.has_value()) std::abort();
      c[i].writer.emplace(std::move(w).value());
      c[i].reader.emplace(std::move(r).value());
      auto own = data::AvroDecoder::Make(*c[i].writer, o);
      auto resolving = data::AvroDecoder::Make(*c[i].writer, *c[i].reader, o);
      auto reader_own = data::AvroDecoder::Make(*c[i].reader, o);
      if (!own.has_value() || !resolving.has_value() || !reader_own.has_value()) std::abort();
      c[i].own.emplace(std::move(own).value());
      c[i].resolving.emplace(std::move(resolving).value());
      c[i].reader_own.emplace(std::move(reader_own).value());
    }
    return c;
  }();
  return compiled;
}

// `value` was decoded as a datum of `schema`; `decoder` decodes `schema`'s own encoding.
void CheckDatum(const avro::AvroSchema& schema, const data::AvroDecoder& decoder,
                const JsonValue& value) {
  data::AvroEncodeOptions eo;
  eo.max_depth = 64;
  auto bytes = data::EncodeAvro(schema, value, eo);
  if (!bytes.has_value()) std::abort();
  auto again = decoder.Decode(*bytes);
  if (!again.has_value()) std::abort();
  const std::string text = ToJson(value);
  if (ToJson(*again) != text) std::abort();
  JsonParseOptions po;
  po.max_depth = 1024;
  auto parsed = ParseJson(text, po);
  if (!parsed.has_value()) std::abort();
  auto from_text = data::EncodeAvro(schema, *parsed, eo);
  if (!from_text.has_value() || *from_text != *bytes) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data_bytes, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data_bytes[0];
  std::string_view input(reinterpret_cast<const char*>(data_bytes) + 1, size - 1);
  Compiled* schemas = Schemas();

  if (mode >= 0xF0) {
    // A framed message: it rebuilds byte for byte.
    auto framed = data::ParseFrame(input);
    if (framed.has_value()) {
      if (input.size() < data::kWireHeaderBytes) std::abort();
      if (data::FrameMessage(framed->schema_id, framed->payload) != input) std::abort();
      // Its payload as a datum of the first schema, just for the crash check.
      (void)schemas[0].own->Decode(framed->payload);
    } else if (input.size() >= data::kWireHeaderBytes && input[0] == 0) {
      std::abort();
    }
    return 0;
  }
  if (mode >= 0xE0) {
    // A message file: records tile the file front to back, and rebuild it.
    data::MessageFileReader reader(input);
    std::string rebuilt;
    size_t expected_offset = 0;
    for (size_t n = 0;; ++n) {
      auto next = reader.Next();
      if (!next.has_value()) {
        if (reader.offset() != expected_offset || reader.offset() >= input.size()) std::abort();
        break;
      }
      if (!next->has_value()) {
        if (expected_offset != input.size()) std::abort();
        break;
      }
      const data::MessageRecord& r = **next;
      if (r.offset != expected_offset || r.index != n) std::abort();
      if (!data::AppendLengthPrefixed(rebuilt, r.message).has_value()) std::abort();
      expected_offset = r.offset + 4 + r.message.size();
      if (expected_offset > input.size()) std::abort();
      (void)data::ParseFrame(r.message);
    }
    if (rebuilt != input.substr(0, expected_offset)) std::abort();
    return 0;
  }

  Compiled& c = schemas[mode % kPairCount];
  const bool resolve = (mode / kPairCount) % 2 == 1;
  if (resolve) {
    auto value = c.resolving->Decode(input);
    if (value.has_value()) CheckDatum(*c.reader, *c.reader_own, *value);
    // Whatever the writer's own schema reads, the reader reads too (the reader is only more
    // lenient: it skips removed fields without checking their strings and booleans).
    if (!value.has_value() && c.own->Decode(input).has_value()) std::abort();
  } else {
    auto value = c.own->Decode(input);
    if (value.has_value()) CheckDatum(*c.writer, *c.own, *value);
  }
  return 0;
}
