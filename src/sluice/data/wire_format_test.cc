#include "sluice/data/wire_format.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace sluice::data {
namespace {

TEST(WireFormatTest, FramesWithTheMagicByteAndABigEndianId) {
  std::string m = FrameMessage(258, "\x02\x04");
  EXPECT_EQ(m, std::string("\x00\x00\x00\x01\x02\x02\x04", 7));
  auto f = ParseFrame(m);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->schema_id, 258);
  EXPECT_EQ(f->payload, "\x02\x04");
  auto big = ParseFrame(FrameMessage(0x7fffffff, ""));
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(big->schema_id, 0x7fffffff);
  EXPECT_EQ(big->payload, "");
}

TEST(WireFormatTest, RejectsShortMessagesAndBadMagicBytes) {
  auto shortm = ParseFrame(std::string("\x00\x00\x00\x01", 4));
  ASSERT_FALSE(shortm.has_value());
  EXPECT_EQ(shortm.error().code(), ErrorCode::kParseError);
  EXPECT_NE(shortm.error().message().find("message too short: 4 bytes"), std::string::npos);
  auto magic = ParseFrame(std::string("\x01\x00\x00\x00\x01\x02", 6));
  ASSERT_FALSE(magic.has_value());
  EXPECT_NE(magic.error().message().find("bad magic byte 0x01"), std::string::npos)
      << magic.error().message();
  EXPECT_FALSE(ParseFrame("").has_value());
}

TEST(MessageFileTest, RecordsReadBackWithTheirOffsets) {
  std::string file;
  ASSERT_TRUE(AppendLengthPrefixed(file, FrameMessage(1, "ab")).has_value());
  ASSERT_TRUE(AppendLengthPrefixed(file, "").has_value());
  ASSERT_TRUE(AppendLengthPrefixed(file, FrameMessage(2, "c")).has_value());
  EXPECT_EQ(file.substr(0, 4), std::string("\x00\x00\x00\x07", 4));
  MessageFileReader reader(file);
  std::vector<MessageRecord> records;
  for (;;) {
    auto r = reader.Next();
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
    if (!r->has_value()) break;
    records.push_back(**r);
  }
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].offset, 0u);
  EXPECT_EQ(records[0].message, FrameMessage(1, "ab"));
  EXPECT_EQ(records[1].offset, 11u);
  EXPECT_EQ(records[1].message, "");
  EXPECT_EQ(records[2].offset, 15u);
  EXPECT_EQ(records[2].index, 2u);
  EXPECT_EQ(records[2].message, FrameMessage(2, "c"));
  // The end stays the end.
  EXPECT_FALSE(reader.Next()->has_value());
}

TEST(MessageFileTest, TruncatedLengthsAndRecordsNameTheirOffset) {
  std::string file;
  ASSERT_TRUE(AppendLengthPrefixed(file, FrameMessage(1, "ab")).has_value());
  std::string cut_length = file + std::string("\x00\x00", 2);
  MessageFileReader a(cut_length);
  ASSERT_TRUE(a.Next()->has_value());
  auto e = a.Next();
  ASSERT_FALSE(e.has_value());
  EXPECT_EQ(e.error().message(),
            "byte 11: truncated record length: 2 bytes remain, a length takes 4");
  // Still there: nothing after it can be found.
  EXPECT_FALSE(a.Next().has_value());
  EXPECT_EQ(a.offset(), 11u);

  std::string cut_record = file + std::string("\x00\x00\x01\x00xyz", 7);
  MessageFileReader b(cut_record);
  ASSERT_TRUE(b.Next()->has_value());
  auto f = b.Next();
  ASSERT_FALSE(f.has_value());
  EXPECT_EQ(f.error().message(),
            "byte 11: the record's length is 256 bytes but only 3 remain in the file");
}

TEST(SchemaCacheTest, FetchesAndParsesEachIdOnce) {
  std::atomic<int> calls{0};
  SchemaCache cache([&](int32_t id) -> Result<std::string> {
    ++calls;
    if (id == 1) return std::string(R"({"type":"record","name":"R","fields":[]})");
    if (id == 2) return std::string("{not json");
    return NotFound("Schema " + std::to_string(id) + " not found");
  });
  auto a = cache.Get(1);
  ASSERT_TRUE(a.has_value()) << a.error().ToString();
  auto b = cache.Get(1);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(a->get(), b->get());
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ((*a)->root().full_name(), "R");

  auto bad = cache.Get(2);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code(), ErrorCode::kParseError);
  EXPECT_NE(bad.error().message().find("schema id 2: "), std::string::npos);
  auto missing = cache.Get(3);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(missing.error().message(), "schema id 3: Schema 3 not found");
  // Failures are not kept: asking again fetches again.
  EXPECT_FALSE(cache.Get(3).has_value());
  EXPECT_EQ(calls.load(), 4);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(SchemaCacheTest, ThreadsAskingForOneIdShareOneFetch) {
  std::atomic<int> calls{0};
  SchemaCache cache([&](int32_t) -> Result<std::string> {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return std::string(R"("long")");
  });
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      if (cache.Get(7).has_value()) ++ok;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok.load(), 8);
  EXPECT_EQ(calls.load(), 1);
}

TEST(SchemaCacheTest, AFailedFetchLetsTheNextCallerTryAgain) {
  std::atomic<int> calls{0};
  SchemaCache cache([&](int32_t) -> Result<std::string> {
    if (++calls == 1) return IoError("connection refused");
    return std::string(R"("int")");
  });
  EXPECT_FALSE(cache.Get(5).has_value());
  EXPECT_TRUE(cache.Get(5).has_value());
  EXPECT_EQ(calls.load(), 2);
}

}  // namespace
}  // namespace sluice::data
