#include "sluice/data/avro_container.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/base/strings.h"
#include "sluice/data/file_runs.h"
#include "sluice/data/record_cat.h"
#include "sluice/dialects/avro/avro_convert.h"
#include "sluice/dialects/avro/avro_schema.h"

namespace sluice::data {
namespace {

namespace avro = dialects::avro;

avro::AvroSchema MustParse(std::string_view text) {
  auto s = avro::Parse(text);
  EXPECT_TRUE(s.has_value()) << text << ": " << s.error().ToString();
  if (!s.has_value()) std::abort();
  return std::move(s).value();
}

JsonValue Json(std::string_view text) {
  auto v = ParseJson(text);
  EXPECT_TRUE(v.has_value()) << text;
  if (!v.has_value()) std::abort();
  return std::move(v).value();
}

// Every Avro type: primitives, named types, containers, each union shape spark-avro knows, and
// the logical types.
constexpr std::string_view kEverything = R"({"type":"record","name":"Everything","namespace":"t",
"fields":[
 {"name":"n","type":"null"},
 {"name":"b","type":"boolean"},
 {"name":"i","type":"int"},
 {"name":"l","type":"long"},
 {"name":"f","type":"float"},
 {"name":"d","type":"double"},
 {"name":"by","type":"bytes"},
 {"name":"s","type":"string"},
 {"name":"e","type":{"type":"enum","name":"Color","symbols":["RED","GREEN","BLUE"]}},
 {"name":"fx","type":{"type":"fixed","name":"Two","size":2}},
 {"name":"a","type":{"type":"array","items":"int"}},
 {"name":"m","type":{"type":"map","values":"string"}},
 {"name":"opt","type":["null","string"]},
 {"name":"num","type":["int","long"]},
 {"name":"u","type":["null","long","Color","string"]},
 {"name":"r","type":{"type":"record","name":"Inner","fields":[
   {"name":"x","type":"int"},
   {"name":"tags","type":{"type":"array","items":{"type":"map","values":["null","double"]}}}]}},
 {"name":"date","type":{"type":"int","logicalType":"date"}},
 {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"tsu","type":{"type":"long","logicalType":"timestamp-micros"}},
 {"name":"lts","type":{"type":"long","logicalType":"local-timestamp-micros"}},
 {"name":"tm","type":{"type":"int","logicalType":"time-millis"}},
 {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
 {"name":"decf","type":{"type":"fixed","name":"D5","size":5,"logicalType":"decimal",
   "precision":10,"scale":3}},
 {"name":"id","type":{"type":"string","logicalType":"uuid"}},
 {"name":"uf","type":{"type":"fixed","name":"U16","size":16,"logicalType":"uuid"}}]})";

// Two records in Avro's JSON encoding, as the decoder prints them.
const char* const kRecords[] = {
    R"({"n":null,"b":true,"i":-5,"l":1234567890123,"f":1.5,"d":-2.25,"by":"\u0000\u00ff",)"
    R"("s":"h\u00e9llo","e":"GREEN","fx":"ab","a":[1,2,3],"m":{"k":"v"},"opt":{"string":"x"},)"
    R"("num":{"long":7},"u":{"t.Color":"BLUE"},"r":{"x":1,"tags":[{"p":{"double":0.5},"q":null}]},)"
    R"("date":19723,"ts":1704067200123,"tsu":1704067200000001,"lts":0,"tm":3723004,)"
    R"("dec":"\u0004\u00d2","decf":"\u0000\u0000\u0000\u0030\u0039",)"
    R"("id":"123e4567-e89b-12d3-a456-426614174000",)"
    R"("uf":"\u0012\u003e\u0045\u0067\u00e8\u009b\u0012\u00d3\u00a4\u0056\u0042\u0066\u0014\u0017\u0040\u0000"})",
    R"({"n":null,"b":false,"i":2147483647,"l":-1,"f":-0.0,"d":1e+300,"by":"","s":"",)"
    R"("e":"RED","fx":"\u0000\u0001","a":[],"m":{},"opt":null,"num":{"int":-1},)"
    R"("u":{"long":5},"r":{"x":0,"tags":[]},"date":-1,"ts":-1,"tsu":0,"lts":1,"tm":0,)"
    R"("dec":"\u00ff","decf":"\u00ff\u00ff\u00ff\u00ff\u00fe","id":"00000000-0000-0000-0000-000000000000","uf":"0123456789abcdef"})",
};

// The same records as spark-avro's rows, the shape OpenAvroRows writes.
const char* const kRows[] = {
    R"({"n":null,"b":true,"i":-5,"l":1234567890123,"f":1.5,"d":-2.25,"by":"AP8=","s":"héllo",)"
    R"("e":"GREEN","fx":"YWI=","a":[1,2,3],"m":{"k":"v"},"opt":"x","num":7,)"
    R"("u":{"member0":null,"member1":"BLUE","member2":null},"r":{"x":1,"tags":[{"p":0.5,"q":null}]},)"
    R"("date":"2024-01-01","ts":"2024-01-01T00:00:00.123Z","tsu":"2024-01-01T00:00:00.000001Z",)"
    R"("lts":"1970-01-01T00:00:00","tm":"01:02:03.004","dec":12.34,"decf":12.345,)"
    R"("id":"123e4567-e89b-12d3-a456-426614174000","uf":"123e4567-e89b-12d3-a456-426614174000"})",
    R"({"n":null,"b":false,"i":2147483647,"l":-1,"f":-0.0,"d":1e+300,"by":"","s":"","e":"RED",)"
    R"("fx":"AAE=","a":[],"m":{},"opt":null,"num":-1,)"
    R"("u":{"member0":5,"member1":null,"member2":null},"r":{"x":0,"tags":[]},)"
    R"("date":"1969-12-31","ts":"1969-12-31T23:59:59.999Z","tsu":"1970-01-01T00:00:00Z",)"
    R"("lts":"1970-01-01T00:00:00.000001","tm":"00:00:00","dec":-0.01,"decf":-0.002,"id":"00000000-0000-0000-0000-000000000000",)"
    R"("uf":"30313233-3435-3637-3839-616263646566"})",
};

std::vector<JsonValue> Records() {
  std::vector<JsonValue> out;
  for (const char* r : kRecords) out.push_back(Json(r));
  return out;
}

constexpr AvroCodec kCodecs[] = {AvroCodec::kNull, AvroCodec::kDeflate, AvroCodec::kSnappy,
                                 AvroCodec::kZstandard};

std::string MustWrite(const avro::AvroSchema& schema, const std::vector<JsonValue>& records,
                      AvroCodec codec = AvroCodec::kNull, size_t block_records = 0) {
  auto file = WriteAvroContainer(schema, records, codec, block_records);
  EXPECT_TRUE(file.has_value()) << file.error().ToString();
  if (!file.has_value()) std::abort();
  return std::move(file).value();
}

// Every record of `bytes` (a file named `name`), or the first error.
Result<std::vector<JsonValue>> ReadAll(std::string_view bytes,
                                       const AvroContainerLimits& limits = {},
                                       const std::string& name = "x.avro") {
  MemoryFileSystem fs;
  SLUICE_TRY(fs.WriteFile(name, bytes));
  SLUICE_ASSIGN_OR_RETURN(auto reader, AvroContainerReader::Open(fs, name, limits));
  std::vector<JsonValue> out;
  while (true) {
    SLUICE_ASSIGN_OR_RETURN(std::optional<JsonValue> r, reader->Next());
    if (!r) return out;
    out.push_back(std::move(*r));
  }
}

// `bytes`' rows as OpenAvroRows writes them, or the first error.
Result<std::string> ReadRows(std::string_view bytes) {
  MemoryFileSystem fs;
  SLUICE_TRY(fs.WriteFile("x.avro", bytes));
  SLUICE_ASSIGN_OR_RETURN(auto rows, OpenAvroRows(fs, "x.avro"));
  std::string text;
  char buf[7];  // small reads: a row crosses many of them
  while (true) {
    SLUICE_ASSIGN_OR_RETURN(size_t n, rows->Read(buf, sizeof buf));
    if (n == 0) return text;
    text.append(buf, n);
  }
}

// ---- the frame, built by hand for hostile cases ----

std::string Long(int64_t v) {
  std::string out;
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out.push_back(static_cast<char>((z & 0x7f) | 0x80));
    z >>= 7;
  }
  out.push_back(static_cast<char>(z));
  return out;
}

std::string Bytes(std::string_view b) {
  return Long(static_cast<int64_t>(b.size())) + std::string(b);
}

const std::string kSync = "0123456789abcdef";

std::string Header(const std::vector<std::pair<std::string, std::string>>& metadata,
                   const std::string& sync = kSync) {
  std::string out(kAvroMagic);
  out += Long(static_cast<int64_t>(metadata.size()));
  for (const auto& [k, v] : metadata) out += Bytes(k) + Bytes(v);
  out += Long(0);
  return out + sync;
}

std::string LongHeader(const std::string& codec = "null") {
  return Header({{"avro.schema", R"("long")"}, {"avro.codec", codec}});
}

std::string Block(int64_t count, std::string_view data, const std::string& sync = kSync) {
  return Long(count) + Bytes(data) + sync;
}

std::string ErrorOf(std::string_view bytes, const AvroContainerLimits& limits = {}) {
  auto r = ReadAll(bytes, limits);
  EXPECT_FALSE(r.has_value()) << "expected an error";
  return r.has_value() ? "" : r.error().message();
}

// ---- round trips ----

TEST(AvroContainerTest, RoundTripsEveryTypeWithEveryCodecAndBlockSize) {
  const avro::AvroSchema schema = MustParse(kEverything);
  std::vector<JsonValue> records;
  for (int copy = 0; copy < 3; ++copy) {
    for (const JsonValue& r : Records()) records.push_back(r);
  }
  for (AvroCodec codec : kCodecs) {
    for (size_t per_block : {size_t{0}, size_t{1}, size_t{4}}) {
      SCOPED_TRACE(fmt::format("{} codec, {} records a block", AvroCodecName(codec), per_block));
      const std::string file = MustWrite(schema, records, codec, per_block);
      auto back = ReadAll(file);
      ASSERT_TRUE(back.has_value()) << back.error().ToString();
      ASSERT_EQ(back->size(), records.size());
      for (size_t i = 0; i < records.size(); ++i) {
        EXPECT_EQ(ToJson((*back)[i]), ToJson(records[i])) << "record " << i;
      }
    }
  }
}

TEST(AvroContainerTest, ReaderReportsSchemaCodecAndMetadata) {
  const avro::AvroSchema schema = MustParse(kEverything);
  MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile("e.avro", MustWrite(schema, Records(), AvroCodec::kSnappy)).has_value());
  auto reader = AvroContainerReader::Open(fs, "e.avro");
  ASSERT_TRUE(reader.has_value()) << reader.error().ToString();
  EXPECT_EQ((*reader)->codec(), AvroCodec::kSnappy);
  EXPECT_EQ(avro::ParsingCanonicalForm((*reader)->schema()), avro::ParsingCanonicalForm(schema));
  ASSERT_EQ((*reader)->metadata().size(), 2u);
  EXPECT_EQ((*reader)->metadata()[0].first, "avro.codec");
  EXPECT_EQ((*reader)->metadata()[0].second, "snappy");
  auto count = (*reader)->CountRemaining();
  ASSERT_TRUE(count.has_value()) << count.error().ToString();
  EXPECT_EQ(*count, 2u);
}

TEST(AvroContainerTest, AFileWithoutBlocksHasNoRecords) {
  const avro::AvroSchema schema = MustParse(kEverything);
  auto back = ReadAll(MustWrite(schema, {}, AvroCodec::kDeflate));
  ASSERT_TRUE(back.has_value()) << back.error().ToString();
  EXPECT_TRUE(back->empty());
}

TEST(AvroContainerTest, CodecDefaultsToNullWhenTheHeaderNamesNone) {
  auto back = ReadAll(Header({{"avro.schema", R"("long")"}}) + Block(2, Long(3) + Long(-4)));
  ASSERT_TRUE(back.has_value()) << back.error().ToString();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ(ToJson((*back)[1]), "-4");
}

TEST(AvroContainerTest, MetadataInNegativeCountBlocksIsRead) {
  // A map block with a negative count carries its byte size too (the spec allows it).
  std::string header(kAvroMagic);
  const std::string entries = Bytes("avro.schema") + Bytes(R"("int")");
  header += Long(-1) + Long(static_cast<int64_t>(entries.size())) + entries;
  header += Long(0) + kSync;
  auto back = ReadAll(header + Block(1, Long(42)));
  ASSERT_TRUE(back.has_value()) << back.error().ToString();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ(ToJson((*back)[0]), "42");
}

// ---- rows ----

TEST(AvroContainerTest, RowsTakeSparkAvroShape) {
  const avro::AvroSchema schema = MustParse(kEverything);
  auto rows = ReadRows(MustWrite(schema, Records(), AvroCodec::kDeflate, 1));
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  EXPECT_EQ(*rows, std::string(kRows[0]) + "\n" + kRows[1] + "\n");
}

TEST(AvroContainerTest, RowsValidateCleanAgainstTheConvertedSchema) {
  const avro::AvroSchema schema = MustParse(kEverything);
  auto model = avro::ToModel(schema);
  ASSERT_TRUE(model.has_value()) << model.error().ToString();
  auto fs = std::make_shared<MemoryFileSystem>();
  std::vector<JsonValue> records;
  for (int i = 0; i < 50; ++i) {
    for (const JsonValue& r : Records()) records.push_back(r);
  }
  ASSERT_TRUE(
      fs->WriteFile("a.avro", MustWrite(schema, records, AvroCodec::kZstandard, 7)).has_value());
  ValidateRunOptions options;
  options.fs = fs;
  options.format = RecordFormat::kAvro;
  options.threads = 2;
  options.block_bytes = 4096;
  struct Sink : ByteSink {
    Status Write(std::string_view b) override {
      text.append(b);
      return Ok();
    }
    std::string text;
  } out, quarantine;
  auto report = ValidateFiles({"a.avro"}, model->value, options, out, quarantine);
  ASSERT_TRUE(report.has_value()) << report.error().ToString();
  EXPECT_EQ(report->records_in, records.size());
  EXPECT_TRUE(report->clean()) << quarantine.text.substr(0, 2000);
  EXPECT_EQ(report->format, "avro");
}

TEST(AvroContainerTest, ATopLevelNonRecordIsTheFieldValue) {
  auto rows = ReadRows(LongHeader() + Block(2, Long(5) + Long(-6)));
  ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
  EXPECT_EQ(*rows, "{\"value\":5}\n{\"value\":-6}\n");
}

TEST(AvroContainerTest, CatPrintsRowsWithProjection) {
  const avro::AvroSchema schema = MustParse(kEverything);
  auto fs = std::make_shared<MemoryFileSystem>();
  ASSERT_TRUE(fs->WriteFile("part-0", MustWrite(schema, Records())).has_value());
  CatOptions options;
  options.fs = fs;
  options.columns = {"r.x", "opt"};
  struct Sink : ByteSink {
    Status Write(std::string_view b) override {
      text.append(b);
      return Ok();
    }
    std::string text;
  } out;
  // No format given: the magic says Avro.
  auto n = CatFiles({"part-0"}, options, out);
  ASSERT_TRUE(n.has_value()) << n.error().ToString();
  EXPECT_EQ(*n, 2u);
  EXPECT_EQ(out.text, "{\"r\":{\"x\":1},\"opt\":\"x\"}\n{\"r\":{\"x\":0},\"opt\":null}\n");
}

// ---- formats and schemas ----

TEST(AvroContainerTest, FormatIsNamedAndGuessed) {
  EXPECT_EQ(*ParseRecordFormat("Avro"), RecordFormat::kAvro);
  EXPECT_EQ(GuessRecordFormat("events.AVRO", ""), RecordFormat::kAvro);
  EXPECT_EQ(GuessRecordFormat("part-00000", std::string("Obj\x01\x04", 5)), RecordFormat::kAvro);
  EXPECT_EQ(GuessRecordFormat("part-00000", "Obj"), RecordFormat::kJsonLines);
  EXPECT_TRUE(IsAvroContainer("a.avro", ""));
  EXPECT_FALSE(IsAvroContainer("a.avsc", "{\"type\""));
}

std::string FileOf(std::string_view schema_text, std::vector<JsonValue> records) {
  return MustWrite(MustParse(schema_text), records);
}

TEST(AvroContainerTest, MergedSchemasWidenTypesAndAddFields) {
  auto fs = std::make_shared<MemoryFileSystem>();
  ASSERT_TRUE(fs->WriteFile("a.avro", FileOf(R"({"type":"record","name":"R","fields":[
      {"name":"id","type":"int"},{"name":"name","type":"string"},
      {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":5,"scale":2}},
      {"name":"ratio","type":"float"},
      {"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}}]})",
                                             {Json(R"({"id":1,"name":"a","price":"\u0001",
                                                   "ratio":1.0,"at":0})")}))
                  .has_value());
  ASSERT_TRUE(fs->WriteFile("b.avro", FileOf(R"({"type":"record","name":"R","fields":[
      {"name":"id","type":"long"},
      {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":1}},
      {"name":"ratio","type":"int"},
      {"name":"at","type":{"type":"long","logicalType":"timestamp-micros"}},
      {"name":"extra","type":["null","double"]}]})",
                                             {Json(R"({"id":1,"price":"\u0001","ratio":1,"at":0,
                                                   "extra":null})"),
                                              Json(R"({"id":2,"price":"\u0002","ratio":2,"at":0,
                                                   "extra":{"double":1.5}})")}))
                  .has_value());
  uint64_t rows = 0;
  auto merged = MergeAvroSchemas(*fs, {"a.avro", "b.avro"}, &rows);
  ASSERT_TRUE(merged.has_value()) << merged.error().ToString();
  EXPECT_EQ(rows, 3u);
  EXPECT_EQ(merged->value->struct_type()->ToString(),
            "struct<id: int64 not null, name: string, price: decimal(10,2) not null, "
            "ratio: float64 not null, at: timestamp not null, extra: float64>");

  InferRunOptions options;
  options.fs = fs;
  options.format = RecordFormat::kAvro;
  auto inferred = InferFiles({"a.avro", "b.avro"}, options);
  ASSERT_TRUE(inferred.has_value()) << inferred.error().ToString();
  EXPECT_TRUE(inferred->schema->Equals(*merged->value));
  EXPECT_EQ(inferred->records, 3u);
}

TEST(AvroContainerTest, MergeRefusesTypesWithoutAWiderOneNamingBothFiles) {
  auto fs = std::make_shared<MemoryFileSystem>();
  ASSERT_TRUE(fs->WriteFile("one.avro", FileOf(R"({"type":"record","name":"R","fields":[
      {"name":"r","type":{"type":"record","name":"S","fields":[{"name":"v","type":"long"}]}}]})",
                                               {}))
                  .has_value());
  ASSERT_TRUE(fs->WriteFile("two.avro", FileOf(R"({"type":"record","name":"R","fields":[
      {"name":"r","type":{"type":"record","name":"S","fields":[{"name":"v","type":"string"}]}}]})",
                                               {}))
                  .has_value());
  auto merged = MergeAvroSchemas(*fs, {"one.avro", "two.avro"});
  ASSERT_FALSE(merged.has_value());
  EXPECT_EQ(merged.error().code(), ErrorCode::kIncompatible);
  const std::string& m = merged.error().message();
  EXPECT_NE(m.find("r.v"), std::string::npos) << m;
  EXPECT_NE(m.find("one.avro"), std::string::npos) << m;
  EXPECT_NE(m.find("two.avro"), std::string::npos) << m;
}

// ---- hostile files ----

TEST(AvroContainerTest, BadMagicIsNotAContainer) {
  std::string file = LongHeader() + Block(1, Long(1));
  file[3] = '\x02';
  const std::string m = ErrorOf(file);
  EXPECT_NE(m.find("x.avro: byte 0: not an Avro container file"), std::string::npos) << m;
  EXPECT_NE(ErrorOf("").find("not an Avro container"), std::string::npos);
}

TEST(AvroContainerTest, EveryTruncationIsAnErrorOrEndsAtABlock) {
  const avro::AvroSchema schema = MustParse(kEverything);
  for (AvroCodec codec : kCodecs) {
    const std::string file = MustWrite(schema, Records(), codec, 1);
    const std::string header = MustWrite(schema, {}, codec);
    size_t whole = 0;
    for (size_t n = 0; n < file.size(); ++n) {
      auto r = ReadAll(std::string_view(file).substr(0, n));
      if (r.has_value()) {
        // Only a cut between blocks reads, and then only the blocks before it.
        EXPECT_TRUE(n == header.size() || r->size() == 1) << n;
        ++whole;
        continue;
      }
      EXPECT_EQ(r.error().message().rfind("x.avro: ", 0), 0u) << r.error().message();
      if (n < header.size()) {
        EXPECT_NE(r.error().message().find("byte"), std::string::npos) << r.error().message();
      }
    }
    EXPECT_EQ(whole, 2u) << AvroCodecName(codec);
  }
}

TEST(AvroContainerTest, HeaderDamageIsNamed) {
  EXPECT_NE(ErrorOf(Header({{"avro.codec", "null"}})).find("no avro.schema"), std::string::npos);
  EXPECT_NE(ErrorOf(Header({{"avro.schema", "\"long\""}, {"avro.schema", "\"int\""}}))
                .find("appears twice"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Header({{"avro.schema", "{\"type\":"}})).find("avro.schema"),
            std::string::npos);
  EXPECT_NE(ErrorOf(LongHeader("lz77")).find("unknown codec \"lz77\""), std::string::npos);
  // A metadata value longer than the file, and one over the limit.
  std::string huge(kAvroMagic);
  huge += Long(1) + Bytes("avro.schema") + Long(int64_t{1} << 40);
  EXPECT_NE(ErrorOf(huge).find("over the limit"), std::string::npos);
  std::string short_value(kAvroMagic);
  short_value += Long(1) + Bytes("avro.schema") + Long(1000) + "\"lo";
  EXPECT_NE(ErrorOf(short_value).find("ends inside a metadata value of 1000 bytes"),
            std::string::npos);
  std::string negative(kAvroMagic);
  negative += Long(1) + Long(-3);
  EXPECT_NE(ErrorOf(negative).find("negative length"), std::string::npos);
  std::string many(kAvroMagic);
  many += Long(int64_t{1} << 60);
  EXPECT_NE(ErrorOf(many).find("claims"), std::string::npos);
  std::string overlong(kAvroMagic);
  overlong += std::string(11, '\x80');
  EXPECT_NE(ErrorOf(overlong).find("longer than 10 bytes"), std::string::npos);
  EXPECT_NE(ErrorOf(LongHeader().substr(0, LongHeader().size() - 3)).find("sync marker"),
            std::string::npos);
}

TEST(AvroContainerTest, UnsupportedCodecsAreRefusedClearly) {
  for (const char* codec : {"bzip2", "xz"}) {
    auto r = ReadAll(LongHeader(codec));
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code(), ErrorCode::kUnimplemented);
    EXPECT_NE(r.error().message().find(fmt::format("unsupported codec \"{}\"", codec)),
              std::string::npos)
        << r.error().message();
  }
}

TEST(AvroContainerTest, BlockCountsAndSizesAreChecked) {
  const std::string h = LongHeader();
  EXPECT_NE(ErrorOf(h + Block(-1, Long(1))).find("negative record count"), std::string::npos);
  EXPECT_NE(ErrorOf(h + Long(1) + Long(-5)).find("negative size"), std::string::npos);
  EXPECT_NE(ErrorOf(h + Long(1) + Long(int64_t{1} << 62)).find("over the limit"),
            std::string::npos);
  // A size within the limit that the file does not hold: nothing is allocated for it.
  EXPECT_NE(ErrorOf(h + Long(1) + Long(int64_t{100} << 20) + "abc")
                .find("claims 104857600 bytes but the file ends after 3"),
            std::string::npos);
  EXPECT_NE(ErrorOf(h + Block(int64_t{1} << 40, Long(1))).find("claims 1099511627776 records"),
            std::string::npos);
  EXPECT_NE(ErrorOf(h + Block(3, Long(1) + Long(2))).find("record 3"), std::string::npos);
  EXPECT_NE(ErrorOf(h + Block(1, Long(1) + Long(2))).find("1 byte after its 1 record"),
            std::string::npos);
  EXPECT_NE(ErrorOf(h + Block(0, "z")).find("1 byte after its 0 records"), std::string::npos);
  EXPECT_NE(ErrorOf(h + Long(1)).find("ends inside block 1's byte size"), std::string::npos);
}

TEST(AvroContainerTest, ErrorsGiveTheBlockOffset) {
  const std::string h = LongHeader();
  const std::string m = ErrorOf(h + Block(1, Long(1)) + Block(1, "\xff"));
  const size_t second = h.size() + Block(1, Long(1)).size();
  EXPECT_NE(m.find(fmt::format("x.avro: byte {}: block 2, record 1", second)), std::string::npos)
      << m;
}

TEST(AvroContainerTest, RecordsOfNoBytesAreBounded) {
  const std::string h = Header({{"avro.schema", R"({"type":"record","name":"E","fields":[]})"}});
  AvroContainerLimits limits;
  limits.max_empty_records = 1000;
  auto few = ReadAll(h + Block(1000, ""), limits);
  ASSERT_TRUE(few.has_value()) << few.error().ToString();
  EXPECT_EQ(few->size(), 1000u);
  EXPECT_NE(ErrorOf(h + Block(1001, ""), limits).find("claims 1001 records in 0 bytes"),
            std::string::npos);
  EXPECT_NE(ErrorOf(h + Block(int64_t{1} << 61, "")).find("records in 0 bytes"), std::string::npos);
}

TEST(AvroContainerTest, ADifferentSyncMarkerIsAnError) {
  const avro::AvroSchema schema = MustParse(kEverything);
  std::string file = MustWrite(schema, Records(), AvroCodec::kNull, 1);
  file[file.size() - 5] ^= 0x20;
  const std::string m = ErrorOf(file);
  EXPECT_NE(m.find("block 2's sync marker differs"), std::string::npos) << m;
}

TEST(AvroContainerTest, SnappyChecksItsCrc) {
  const avro::AvroSchema schema = MustParse(kEverything);
  std::string file = MustWrite(schema, Records(), AvroCodec::kSnappy);
  // The CRC's last byte is just before the closing sync marker.
  file[file.size() - kAvroSyncSize - 1] ^= 0x01;
  const std::string m = ErrorOf(file);
  EXPECT_NE(m.find("block 1: snappy data fails its CRC-32 check"), std::string::npos) << m;
  EXPECT_NE(ErrorOf(LongHeader("snappy") + Block(1, "abc")).find("shorter than its 4-byte CRC"),
            std::string::npos);
}

TEST(AvroContainerTest, DamagedCompressedDataIsAnError) {
  const std::string garbage(64, '\xff');
  EXPECT_NE(ErrorOf(LongHeader("deflate") + Block(1, garbage)).find("deflate data is malformed"),
            std::string::npos);
  EXPECT_NE(ErrorOf(LongHeader("zstandard") + Block(1, garbage)).find("zstandard data is"),
            std::string::npos);
  EXPECT_NE(ErrorOf(LongHeader("snappy") + Block(1, garbage)).find("snappy data"),
            std::string::npos);
  // Cut short: the compressed stream ends early.
  const avro::AvroSchema schema = MustParse(R"("string")");
  for (AvroCodec codec : {AvroCodec::kDeflate, AvroCodec::kZstandard}) {
    const std::string file = MustWrite(schema, {JsonValue::String(std::string(5000, 'q'))}, codec);
    const std::string header = MustWrite(schema, {}, codec);
    std::string_view body = std::string_view(file).substr(header.size());
    // Re-frame the first half of the data as the whole block.
    size_t pos = 0;
    while (static_cast<unsigned char>(body[pos]) & 0x80) ++pos;
    ++pos;  // the count
    size_t size_end = pos;
    while (static_cast<unsigned char>(body[size_end]) & 0x80) ++size_end;
    ++size_end;
    std::string_view data = body.substr(size_end, body.size() - size_end - kAvroSyncSize);
    const std::string cut = header + Long(1) + Bytes(data.substr(0, data.size() / 2)) +
                            header.substr(header.size() - 16);
    EXPECT_NE(ErrorOf(cut).find("truncated"), std::string::npos) << AvroCodecName(codec);
  }
}

TEST(AvroContainerTest, DecompressionStopsAtTheLimit) {
  const avro::AvroSchema schema = MustParse(R"("bytes")");
  // Two megabytes of one letter compress to a few kilobytes.
  const std::vector<JsonValue> records = {JsonValue::String(std::string(size_t{2} << 20, 'a'))};
  AvroContainerLimits limits;
  limits.max_block_bytes = size_t{1} << 20;
  for (AvroCodec codec : {AvroCodec::kDeflate, AvroCodec::kZstandard, AvroCodec::kSnappy}) {
    const std::string file = MustWrite(schema, records, codec);
    ASSERT_LT(file.size(), size_t{1} << 20);
    const std::string m = ErrorOf(file, limits);
    EXPECT_NE(m.find("past the limit of 1048576 bytes"), std::string::npos) << m;
    auto whole = ReadAll(file);
    ASSERT_TRUE(whole.has_value()) << whole.error().ToString();
    EXPECT_EQ((*whole)[0].as_string().size(), size_t{2} << 20);
  }
}

TEST(AvroContainerTest, FlippedBytesNeverCrash) {
  const avro::AvroSchema schema = MustParse(kEverything);
  for (AvroCodec codec : kCodecs) {
    const std::string file = MustWrite(schema, Records(), codec, 1);
    for (size_t i = 0; i < file.size(); ++i) {
      for (unsigned char x : {0x01, 0x80, 0xff}) {
        std::string bad = file;
        bad[i] = static_cast<char>(static_cast<unsigned char>(bad[i]) ^ x);
        auto r = ReadAll(bad);
        if (!r.has_value()) {
          EXPECT_EQ(r.error().message().rfind("x.avro: ", 0), 0u) << r.error().message();
        }
        auto rows = ReadRows(bad);
        EXPECT_EQ(rows.has_value(), r.has_value());
      }
    }
  }
}

// ---- an independent writer: Avro's own Python library ----

// Writes the same 120 records with python3-avro, in blocks of 50 (null and deflate), and with
// bzip2, which sluice refuses.
constexpr std::string_view kPythonWriter = R"PY(
import sys, datetime, decimal
import avro.schema
from avro.datafile import DataFileWriter
from avro.io import DatumWriter
schema = avro.schema.parse(open(sys.argv[1]).read())
utc = datetime.timezone.utc
for codec in ["null", "deflate", "bzip2"]:
    with open(sys.argv[2] + "/py-" + codec + ".avro", "wb") as out:
        w = DataFileWriter(out, DatumWriter(), schema, codec=codec)
        for i in range(120):
            w.append({
                "id": i, "big": i * 1000000007, "name": "n%d" % i, "score": i * 0.5,
                "ok": i % 2 == 0, "blob": bytes([i % 256, 255]),
                "color": ["RED", "GREEN", "BLUE"][i % 3], "tags": [str(j) for j in range(i % 4)],
                "attrs": {"k": i}, "maybe": None if i % 3 == 0 else "s%d" % i,
                "choice": i if i % 2 == 0 else "c%d" % i,
                "when": datetime.date(2024, 1, 1) + datetime.timedelta(days=i),
                "at": datetime.datetime(2024, 1, 1, tzinfo=utc) + datetime.timedelta(milliseconds=1001 * i),
                "price": decimal.Decimal(i * 7 - 300).scaleb(-2),
                "inner": {"x": i, "y": None if i % 2 else float(i)},
                "fx": bytes([i % 256] * 4)})
            if i % 50 == 49:
                w.sync()
        w.close()
)PY";

constexpr std::string_view kPythonSchema = R"({"type":"record","name":"Py","fields":[
 {"name":"id","type":"int"},{"name":"big","type":"long"},{"name":"name","type":"string"},
 {"name":"score","type":"double"},{"name":"ok","type":"boolean"},{"name":"blob","type":"bytes"},
 {"name":"color","type":{"type":"enum","name":"Color","symbols":["RED","GREEN","BLUE"]}},
 {"name":"tags","type":{"type":"array","items":"string"}},
 {"name":"attrs","type":{"type":"map","values":"int"}},
 {"name":"maybe","type":["null","string"]},{"name":"choice","type":["int","string"]},
 {"name":"when","type":{"type":"int","logicalType":"date"}},
 {"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":8,"scale":2}},
 {"name":"inner","type":{"type":"record","name":"In","fields":[{"name":"x","type":"int"},
   {"name":"y","type":["null","double"]}]}},
 {"name":"fx","type":{"type":"fixed","name":"F4","size":4}}]})";

// The same records in Avro's JSON encoding, for sluice's own writer.
std::vector<JsonValue> PythonRecords() {
  std::vector<JsonValue> out;
  const char* colors[] = {"RED", "GREEN", "BLUE"};
  auto latin1 = [](std::initializer_list<int> bytes) {
    std::string s;
    for (int b : bytes) AppendUtf8(s, static_cast<uint32_t>(b));
    return JsonValue::String(s);
  };
  for (int i = 0; i < 120; ++i) {
    JsonValue r = JsonValue::Object();
    r.Set("id", JsonValue::Int(i));
    r.Set("big", JsonValue::Int(int64_t{i} * 1000000007));
    r.Set("name", JsonValue::String(fmt::format("n{}", i)));
    r.Set("score", JsonValue::Double(i * 0.5));
    r.Set("ok", JsonValue::Bool(i % 2 == 0));
    r.Set("blob", latin1({i % 256, 255}));
    r.Set("color", JsonValue::String(colors[i % 3]));
    JsonValue tags = JsonValue::Array();
    for (int j = 0; j < i % 4; ++j) tags.Append(JsonValue::String(std::to_string(j)));
    r.Set("tags", tags);
    JsonValue attrs = JsonValue::Object();
    attrs.Set("k", JsonValue::Int(i));
    r.Set("attrs", attrs);
    r.Set("maybe", i % 3 == 0 ? JsonValue::Null() : JsonValue::String(fmt::format("s{}", i)));
    r.Set("choice", i % 2 == 0 ? JsonValue::Int(i) : JsonValue::String(fmt::format("c{}", i)));
    r.Set("when", JsonValue::Int(19723 + i));
    r.Set("at", JsonValue::Int(int64_t{1704067200000} + 1001 * i));
    // The unscaled value as the fewest two's-complement bytes.
    const int unscaled = i * 7 - 300;
    std::vector<int> bytes;
    if (unscaled >= -128 && unscaled <= 127) {
      bytes = {unscaled & 0xff};
    } else {
      bytes = {(unscaled >> 8) & 0xff, unscaled & 0xff};
    }
    std::string price;
    for (int b : bytes) AppendUtf8(price, static_cast<uint32_t>(b));
    r.Set("price", JsonValue::String(price));
    JsonValue inner = JsonValue::Object();
    inner.Set("x", JsonValue::Int(i));
    inner.Set("y", i % 2 ? JsonValue::Null() : JsonValue::Double(i));
    r.Set("inner", inner);
    r.Set("fx", latin1({i % 256, i % 256, i % 256, i % 256}));
    out.push_back(std::move(r));
  }
  return out;
}

TEST(AvroContainerTest, ReadsFilesWrittenByPythonAvro) {
  if (access("/usr/bin/python3", X_OK) != 0 ||
      std::system("/usr/bin/python3 -c 'import avro.datafile' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "/usr/bin/python3 with the avro module is not installed";
  }
  namespace stdfs = std::filesystem;
  const stdfs::path dir = stdfs::temp_directory_path() / fmt::format("sluice-avro-py-{}", getpid());
  stdfs::create_directories(dir);
  std::ofstream(dir / "schema.avsc") << kPythonSchema;
  std::ofstream(dir / "write.py") << kPythonWriter;
  const std::string command = fmt::format("/usr/bin/python3 {} {} {}", (dir / "write.py").string(),
                                          (dir / "schema.avsc").string(), dir.string());
  ASSERT_EQ(std::system(command.c_str()), 0) << command;

  const avro::AvroSchema schema = MustParse(kPythonSchema);
  auto ours = ReadRows(MustWrite(schema, PythonRecords(), AvroCodec::kDeflate, 50));
  ASSERT_TRUE(ours.has_value()) << ours.error().ToString();
  // Two rows spelled out, so the comparison does not rest on sluice's writer alone.
  EXPECT_EQ(ours->substr(0, ours->find('\n')),
            R"({"id":0,"big":0,"name":"n0","score":0.0,"ok":true,"blob":"AP8=","color":"RED",)"
            R"("tags":[],"attrs":{"k":0},"maybe":null,"choice":{"member0":0,"member1":null},)"
            R"("when":"2024-01-01","at":"2024-01-01T00:00:00Z","price":-3.00,)"
            R"("inner":{"x":0,"y":0.0},"fx":"AAAAAA=="})");
  auto local = LocalFileSystem();
  for (const char* codec : {"null", "deflate"}) {
    SCOPED_TRACE(codec);
    const std::string path = (dir / fmt::format("py-{}.avro", codec)).string();
    auto rows = OpenAvroRows(*local, path);
    ASSERT_TRUE(rows.has_value()) << rows.error().ToString();
    std::string text;
    std::string buf(4096, '\0');
    while (true) {
      auto n = (*rows)->Read(buf.data(), buf.size());
      ASSERT_TRUE(n.has_value()) << n.error().ToString();
      if (*n == 0) break;
      text.append(buf, 0, *n);
    }
    EXPECT_EQ(text, *ours);
    auto reader = AvroContainerReader::Open(*local, path);
    ASSERT_TRUE(reader.has_value());
    auto count = (*reader)->CountRemaining();
    ASSERT_TRUE(count.has_value()) << count.error().ToString();
    EXPECT_EQ(*count, 120u);
  }
  auto bzip2 = AvroContainerReader::Open(*local, (dir / "py-bzip2.avro").string());
  ASSERT_FALSE(bzip2.has_value());
  EXPECT_EQ(bzip2.error().code(), ErrorCode::kUnimplemented);
  stdfs::remove_all(dir);
}

}  // namespace
}  // namespace sluice::data
