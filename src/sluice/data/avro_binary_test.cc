#include "sluice/data/avro_binary.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "sluice/base/hash.h"
#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/dialects/avro/avro_schema.h"
#include "sluice_test_paths.h"

namespace sluice::data {
namespace {

namespace avro = dialects::avro;

constexpr const char* kCasesPath =
    SLUICE_SOURCE_DIR "/src/sluice/data/testdata/avro_binary_cases.json";

// Hex text of the test data (always well formed) as bytes.
std::string Unhex(std::string_view hex) { return HexDecode(hex).value(); }

avro::AvroSchema MustParse(std::string_view text) {
  auto s = avro::Parse(text);
  EXPECT_TRUE(s.has_value()) << text << ": " << s.error().ToString();
  if (!s.has_value()) std::abort();
  return std::move(s).value();
}

avro::AvroSchema SchemaOf(const JsonValue& v) { return MustParse(ToJson(v)); }

JsonValue Json(std::string_view text) {
  auto v = ParseJson(text);
  EXPECT_TRUE(v.has_value()) << text;
  return v.has_value() ? std::move(v).value() : JsonValue();
}

const JsonValue& Cases() {
  static const JsonValue cases = [] {
    std::ifstream in(kCasesPath);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto v = ParseJson(text);
    if (!v.has_value()) {
      ADD_FAILURE() << kCasesPath << ": " << v.error().ToString();
      return JsonValue::Object();
    }
    return std::move(v).value();
  }();
  return cases;
}

const std::vector<JsonValue>& CaseList(std::string_view key) {
  static const std::vector<JsonValue> kEmpty;
  const JsonValue* list = Cases().Find(key);
  return list != nullptr ? list->items() : kEmpty;
}

// ---- the data-driven cases ----

TEST(AvroBinaryCasesTest, EncodesEachDatumToTheListedBytesAndDecodesThemBack) {
  ASSERT_GE(CaseList("encoding").size(), 30u);
  for (const JsonValue& c : CaseList("encoding")) {
    const std::string name = c.Find("name")->as_string();
    avro::AvroSchema schema = SchemaOf(*c.Find("schema"));
    auto bytes = EncodeAvro(schema, *c.Find("datum"));
    ASSERT_TRUE(bytes.has_value()) << name << ": " << bytes.error().ToString();
    EXPECT_EQ(HexEncode(*bytes), c.Find("hex")->as_string()) << name;
    auto decoded = DecodeAvro(schema, Unhex(c.Find("hex")->as_string()));
    ASSERT_TRUE(decoded.has_value()) << name << ": " << decoded.error().ToString();
    const JsonValue& expected = c.Find("decoded") ? *c.Find("decoded") : *c.Find("datum");
    EXPECT_TRUE(decoded->Equals(expected))
        << name << ": decoded " << ToJson(*decoded) << ", expected " << ToJson(expected);
    // What the decoder prints encodes to the same bytes again.
    auto again = EncodeAvro(schema, *decoded);
    ASSERT_TRUE(again.has_value()) << name << ": " << again.error().ToString();
    EXPECT_EQ(HexEncode(*again), c.Find("hex")->as_string()) << name;
  }
}

TEST(AvroBinaryCasesTest, ResolvesWriterDataToTheReaderSchema) {
  ASSERT_GE(CaseList("resolution").size(), 20u);
  for (const JsonValue& c : CaseList("resolution")) {
    const std::string name = c.Find("name")->as_string();
    avro::AvroSchema writer = SchemaOf(*c.Find("writer"));
    avro::AvroSchema reader = SchemaOf(*c.Find("reader"));
    auto bytes = EncodeAvro(writer, *c.Find("datum"));
    ASSERT_TRUE(bytes.has_value()) << name << ": " << bytes.error().ToString();
    auto read = DecodeAvro(writer, reader, *bytes);
    ASSERT_TRUE(read.has_value()) << name << ": " << read.error().ToString();
    EXPECT_TRUE(read->Equals(*c.Find("expected")))
        << name << ": read " << ToJson(*read) << ", expected " << ToJson(*c.Find("expected"));
    // The reader's JSON is a valid datum of the reader schema.
    EXPECT_TRUE(EncodeAvro(reader, *read).has_value()) << name;
  }
}

TEST(AvroBinaryCasesTest, RejectsHostileBytesWithTheOffsetAndPath) {
  ASSERT_GE(CaseList("hostile").size(), 20u);
  for (const JsonValue& c : CaseList("hostile")) {
    const std::string name = c.Find("name")->as_string();
    avro::AvroSchema writer = SchemaOf(*c.Find("schema"));
    const std::string bytes = Unhex(c.Find("hex")->as_string());
    Result<JsonValue> r = JsonValue();
    if (const JsonValue* reader_json = c.Find("reader")) {
      avro::AvroSchema reader = SchemaOf(*reader_json);
      r = DecodeAvro(writer, reader, bytes);
    } else {
      r = DecodeAvro(writer, bytes);
    }
    ASSERT_FALSE(r.has_value()) << name << ": decoded " << ToJson(*r);
    EXPECT_EQ(r.error().code(), ErrorCode::kParseError) << name;
    EXPECT_NE(r.error().message().find(c.Find("error")->as_string()), std::string::npos)
        << name << ": " << r.error().message();
  }
}

TEST(AvroBinaryCasesTest, RejectsDatumsThatDoNotFitWithTheirPath) {
  ASSERT_GE(CaseList("encode_errors").size(), 10u);
  for (const JsonValue& c : CaseList("encode_errors")) {
    const std::string name = c.Find("name")->as_string();
    avro::AvroSchema schema = SchemaOf(*c.Find("schema"));
    auto r = EncodeAvro(schema, *c.Find("datum"));
    ASSERT_FALSE(r.has_value()) << name << ": encoded " << HexEncode(*r);
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument) << name;
    EXPECT_NE(r.error().message().find(c.Find("error")->as_string()), std::string::npos)
        << name << ": " << r.error().message();
  }
}

// ---- encoding ----

TEST(AvroBinaryEncodeTest, SpecExamplesOfZigzagVarints) {
  avro::AvroSchema s = MustParse("\"long\"");
  auto enc = [&](int64_t v) { return HexEncode(*EncodeAvro(s, JsonValue::Int(v))); };
  EXPECT_EQ(enc(0), "00");
  EXPECT_EQ(enc(-1), "01");
  EXPECT_EQ(enc(1), "02");
  EXPECT_EQ(enc(-2), "03");
  EXPECT_EQ(enc(2), "04");
  EXPECT_EQ(enc(-64), "7f");
  EXPECT_EQ(enc(64), "8001");
  EXPECT_EQ(HexEncode(*EncodeAvro(MustParse("\"string\""), JsonValue::String("foo"))), "06666f6f");
}

TEST(AvroBinaryEncodeTest, AppendLeavesTheBufferAsItWasOnError) {
  avro::AvroSchema s = MustParse(
      R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"}]})");
  std::string out = "xy";
  EXPECT_FALSE(AppendAvro(s.root(), Json(R"({"a":1,"b":"no"})"), out).has_value());
  EXPECT_EQ(out, "xy");
  ASSERT_TRUE(AppendAvro(s.root(), Json(R"({"a":1,"b":2})"), out).has_value());
  EXPECT_EQ(HexEncode(out), HexEncode("xy") + "0204");
}

TEST(AvroBinaryEncodeTest, EncodesANodeOfASchema) {
  avro::AvroSchema s = MustParse(
      R"({"type":"record","name":"R","fields":[{"name":"tags","type":{"type":"array","items":"string"}}]})");
  auto bytes = EncodeAvro(s.root().fields()[0].type(), Json(R"(["a"])"));
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(HexEncode(*bytes), "02026100");
}

TEST(AvroBinaryEncodeTest, BareUnionValuesNeedExactlyOneBranch) {
  avro::AvroSchema s = MustParse(R"(["null","string",{"type":"array","items":"int"},"double"])");
  EXPECT_EQ(HexEncode(*EncodeAvro(s, Json("\"x\""))), "020278");
  EXPECT_EQ(HexEncode(*EncodeAvro(s, Json("[1]"))), "04020200");
  EXPECT_EQ(HexEncode(*EncodeAvro(s, Json("1.5"))), "06000000000000f83f");
  // "NaN" is a string and a double's special value: both branches accept it.
  auto nan = EncodeAvro(s, Json("\"NaN\""));
  ASSERT_FALSE(nan.has_value());
  EXPECT_NE(nan.error().message().find("fits branches string and double"), std::string::npos)
      << nan.error().message();
  EXPECT_EQ(HexEncode(*EncodeAvro(s, Json(R"({"double":"NaN"})"))), "06000000000000f87f");
}

TEST(AvroBinaryEncodeTest, AWrappedFormWinsOverAMapValue) {
  avro::AvroSchema s = MustParse(R"(["null","string",{"type":"map","values":"string"}])");
  // {"string": "x"} names the string branch, though a map could hold it too.
  EXPECT_EQ(HexEncode(*EncodeAvro(s, Json(R"({"string":"x"})"))), "020278");
  EXPECT_EQ(HexEncode(*EncodeAvro(s, Json(R"({"map":{"string":"x"}})"))),
            "04020c737472696e67027800");
  EXPECT_EQ(HexEncode(*EncodeAvro(s, Json(R"({"k":"v"})"))), "0402026b027600");
}

TEST(AvroBinaryEncodeTest, DefaultsOfNestedUnionsBelongToTheFirstBranch) {
  avro::AvroSchema s = MustParse(R"({"type":"record","name":"R","fields":[
      {"name":"xs","type":{"type":"array","items":["long","null"]},"default":[1,2]}]})");
  auto bytes = EncodeAvro(s, JsonValue::Object());
  ASSERT_TRUE(bytes.has_value()) << bytes.error().ToString();
  EXPECT_EQ(HexEncode(*bytes),
            "04000200"
            "0400");
  EXPECT_TRUE(DecodeAvro(s, *bytes)->Equals(Json(R"({"xs":[{"long":1},{"long":2}]})")));
}

TEST(AvroBinaryEncodeTest, DefaultToJsonEncodingWrapsUnions) {
  avro::AvroSchema s = MustParse(R"(["string","null"])");
  auto v = AvroDefaultToJsonEncoding(s.root(), Json("\"a\""));
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(ToJson(*v), R"({"string":"a"})");
  avro::AvroSchema f = MustParse(R"("float")");
  EXPECT_EQ(ToJson(*AvroDefaultToJsonEncoding(f.root(), Json("1"))), "1.0");
  EXPECT_FALSE(AvroDefaultToJsonEncoding(f.root(), Json("true")).has_value());
}

TEST(AvroBinaryEncodeTest, NestingIsBounded) {
  avro::AvroSchema s = MustParse(R"({"type":"array","items":{"type":"array","items":"int"}})");
  EXPECT_TRUE(EncodeAvro(s, Json("[[1]]"), AvroEncodeOptions{.max_depth = 2}).has_value());
  auto r = EncodeAvro(s, Json("[[1]]"), AvroEncodeOptions{.max_depth = 1});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message(), "[0]: nested deeper than 1 levels");
}

// ---- decoding ----

TEST(AvroBinaryDecodeTest, FloatsPrintAsTheShortestTextOfTheirOwnPrecision) {
  avro::AvroSchema f = MustParse("\"float\"");
  EXPECT_EQ(ToJson(*DecodeAvro(f, Unhex("cdcccc3d"))), "0.1");
  EXPECT_EQ(ToJson(*DecodeAvro(f, Unhex("0000803f"))), "1.0");
  EXPECT_EQ(ToJson(*DecodeAvro(f, Unhex("0000807f"))), "\"Infinity\"");
  avro::AvroSchema d = MustParse("\"double\"");
  EXPECT_EQ(ToJson(*DecodeAvro(d, Unhex("9a9999999999b93f"))), "0.1");
  EXPECT_EQ(ToJson(*DecodeAvro(d, Unhex("000000000000f87f"))), "\"NaN\"");
  EXPECT_EQ(ToJson(*DecodeAvro(d, Unhex("0000000000000080"))), "-0.0");
}

TEST(AvroBinaryDecodeTest, PrintsWhatTheConsoleConsumerPrints) {
  avro::AvroSchema s = MustParse(R"({"type":"record","name":"Order","namespace":"shop","fields":[
      {"name":"id","type":"long"},
      {"name":"coupon","type":["null","string"],"default":null},
      {"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID"]}},
      {"name":"payment","type":["null",{"type":"record","name":"Card","fields":[
          {"name":"last4","type":"string"}]}]}]})");
  auto bytes = EncodeAvro(
      s, Json(R"({"id":7,"coupon":"SPRING","status":"PAID","payment":{"Card":{"last4":"4242"}}})"));
  ASSERT_TRUE(bytes.has_value()) << bytes.error().ToString();
  auto v = DecodeAvro(s, *bytes);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(ToJson(*v), R"({"id":7,"coupon":{"string":"SPRING"},"status":"PAID",)"
                        R"("payment":{"shop.Card":{"last4":"4242"}}})");
}

TEST(AvroBinaryDecodeTest, ReadsBlocksWithByteSizesAndSeveralBlocks) {
  avro::AvroSchema s = MustParse(R"({"type":"array","items":"long"})");
  // Block 1: count -2 with size 2 (items 1, 2); block 2: count 1 (item 3); end.
  auto v = DecodeAvro(s, Unhex("03040204"
                               "0206"
                               "00"));
  ASSERT_TRUE(v.has_value()) << v.error().ToString();
  EXPECT_EQ(ToJson(*v), "[1,2,3]");
  avro::AvroSchema m = MustParse(R"({"type":"map","values":"int"})");
  v = DecodeAvro(m, Unhex("030c"
                          "026102"
                          "026204"
                          "00"));
  ASSERT_TRUE(v.has_value()) << v.error().ToString();
  EXPECT_EQ(ToJson(*v), R"({"a":1,"b":2})");
}

TEST(AvroBinaryDecodeTest, SkipsWriterOnlyArraysByTheirBlockSize) {
  avro::AvroSchema w = MustParse(R"({"type":"record","name":"R","fields":[
      {"name":"xs","type":{"type":"array","items":"string"}},{"name":"a","type":"int"}]})");
  avro::AvroSchema r =
      MustParse(R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})");
  // xs: count -1, size 3, "ab"; then count 1, "c"; end; a = 5.
  auto v = DecodeAvro(w, r,
                      Unhex("0106"
                            "026162"
                            "02"
                            "0263"
                            "00"
                            "0a"));
  ASSERT_TRUE(v.has_value()) << v.error().ToString();
  EXPECT_EQ(ToJson(*v), R"({"a":5})");
}

TEST(AvroBinaryDecodeTest, AMapKeyWrittenTwiceKeepsItsFirstPlaceAndLastValue) {
  avro::AvroSchema m = MustParse(R"({"type":"map","values":"int"})");
  auto v = DecodeAvro(m, Unhex("06"
                               "026102"
                               "026204"
                               "026106"
                               "00"));
  ASSERT_TRUE(v.has_value()) << v.error().ToString();
  EXPECT_EQ(ToJson(*v), R"({"a":3,"b":2})");
}

TEST(AvroBinaryDecodeTest, RecursiveListsDecodeUpToTheDepthBoundAndFailCleanlyBeyond) {
  avro::AvroSchema s = MustParse(R"({"type":"record","name":"LinkedList","fields":[
      {"name":"value","type":"long"},{"name":"next","type":["null","LinkedList"]}]})");
  auto list = [](int n) {
    std::string bytes;
    for (int i = 0; i < n; ++i) bytes += std::string("\x02\x02", 2);
    bytes.back() = '\0';  // the last element's next is null
    return bytes;
  };
  auto v = DecodeAvro(s, list(200));
  ASSERT_TRUE(v.has_value()) << v.error().ToString();
  const JsonValue* node = &*v;
  int n = 1;
  while (const JsonValue* next = node->Find("next")) {
    if (next->is_null()) break;
    node = next->Find("LinkedList");
    ASSERT_NE(node, nullptr);
    ++n;
  }
  EXPECT_EQ(n, 200);
  EXPECT_TRUE(EncodeAvro(s, *v).has_value());
  EXPECT_EQ(*EncodeAvro(s, *v), list(200));

  // 100,000 elements: the depth bound, not the stack, ends it.
  auto deep = DecodeAvro(s, list(100000));
  ASSERT_FALSE(deep.has_value());
  EXPECT_NE(deep.error().message().find("nested deeper than 512 levels"), std::string::npos)
      << deep.error().message();
  AvroDecodeOptions o;
  o.max_depth = 700;
  EXPECT_TRUE(DecodeAvro(s, list(300), o).has_value());
  EXPECT_FALSE(DecodeAvro(s, list(400), o).has_value());
}

TEST(AvroBinaryDecodeTest, ZeroByteItemsShareOneBudgetPerDatum) {
  avro::AvroSchema s = MustParse(R"({"type":"array","items":"null"})");
  AvroDecodeOptions o;
  o.max_zero_byte_items = 10;
  // Two blocks of 5 nulls fit; a third block does not.
  EXPECT_EQ(ToJson(*DecodeAvro(s, Unhex("0a0a00"), o)),
            "[null,null,null,null,null,null,null,"
            "null,null,null]");
  auto r = DecodeAvro(s, Unhex("0a0a0200"), o);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find("byte 2: array block count 1 of items that take no bytes"),
            std::string::npos)
      << r.error().message();
}

TEST(AvroBinaryDecodeTest, EveryTruncationOfARecordFailsWithoutCrashing) {
  const JsonValue* everything = nullptr;
  for (const JsonValue& c : CaseList("encoding")) {
    if (c.Find("name")->as_string() == "record with every type") everything = &c;
  }
  ASSERT_NE(everything, nullptr);
  avro::AvroSchema s = SchemaOf(*everything->Find("schema"));
  const std::string bytes = Unhex(everything->Find("hex")->as_string());
  auto decoder = AvroDecoder::Make(s);
  ASSERT_TRUE(decoder.has_value());
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = decoder->Decode(std::string_view(bytes).substr(0, n));
    EXPECT_FALSE(r.has_value()) << n;
  }
  // And every single-byte change either decodes to a datum that encodes back, or fails.
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string mutated = bytes;
      mutated[i] = static_cast<char>(mutated[i] ^ (1 << bit));
      auto r = decoder->Decode(mutated);
      if (r.has_value()) {
        auto again = EncodeAvro(s, *r);
        EXPECT_TRUE(again.has_value()) << i << "/" << bit << ": " << ToJson(*r);
      }
    }
  }
}

TEST(AvroBinaryDecodeTest, RefusesAnIncompatibleReaderUpFront) {
  avro::AvroSchema w =
      MustParse(R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})");
  avro::AvroSchema r = MustParse(R"({"type":"record","name":"R","fields":[
      {"name":"a","type":"int"},{"name":"b","type":"string"}]})");
  auto d = AvroDecoder::Make(w, r);
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().code(), ErrorCode::kIncompatible);
  EXPECT_NE(d.error().message().find("READER_FIELD_MISSING_DEFAULT_VALUE at /fields/1: b"),
            std::string::npos)
      << d.error().message();
  avro::AvroSchema s = MustParse(R"("string")");
  auto mismatch = DecodeAvro(w, s, Unhex("02"));
  ASSERT_FALSE(mismatch.has_value());
  EXPECT_NE(mismatch.error().message().find("TYPE_MISMATCH"), std::string::npos);
}

TEST(AvroBinaryDecodeTest, OneDecoderServesManyDatumsAndThreads) {
  avro::AvroSchema w =
      MustParse(R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})");
  avro::AvroSchema r = MustParse(R"({"type":"record","name":"R","fields":[
      {"name":"a","type":"long"},{"name":"b","type":"string","default":"d"}]})");
  auto decoder = AvroDecoder::Make(w, r);
  ASSERT_TRUE(decoder.has_value());
  AvroDecoder moved = std::move(decoder).value();
  for (int i = -3; i <= 3; ++i) {
    auto bytes = EncodeAvro(w, Json(R"({"a":)" + std::to_string(i) + "}"));
    auto v = moved.Decode(*bytes);
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(ToJson(*v), R"({"a":)" + std::to_string(i) + R"(,"b":"d"})");
  }
  // Decode is const: threads share one decoder.
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        const int value = t * 10000 + i;
        std::string bytes = *EncodeAvro(w, Json(R"({"a":)" + std::to_string(value) + "}"));
        auto v = moved.Decode(bytes);
        if (!v || ToJson(*v) != R"({"a":)" + std::to_string(value) + R"(,"b":"d"})") ++wrong;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(AvroBinaryDecodeTest, EnumSymbolWithoutReaderDefaultIsRejectedUpFront) {
  avro::AvroSchema w = MustParse(R"({"type":"enum","name":"E","symbols":["A","B","C"]})");
  avro::AvroSchema r = MustParse(R"({"type":"enum","name":"E","symbols":["A","B"]})");
  auto d = AvroDecoder::Make(w, r);
  ASSERT_FALSE(d.has_value());
  EXPECT_NE(d.error().message().find("MISSING_ENUM_SYMBOLS"), std::string::npos)
      << d.error().message();
}

TEST(AvroBinaryDecodeTest, BranchNamesAreFullNamesOrTypeNames) {
  avro::AvroSchema s = MustParse(R"(["null",{"type":"long","logicalType":"timestamp-millis"},
      {"type":"fixed","name":"F","namespace":"n","size":1},{"type":"map","values":"int"}])");
  const auto& b = s.root().branches();
  EXPECT_EQ(AvroBranchName(*b[0]), "null");
  EXPECT_EQ(AvroBranchName(*b[1]), "long");
  EXPECT_EQ(AvroBranchName(*b[2]), "n.F");
  EXPECT_EQ(AvroBranchName(*b[3]), "map");
}

}  // namespace
}  // namespace sluice::data
