// End-to-end: Avro object container files where users meet them. validate checks their records
// against a schema (found by name or by the magic), infer merges the files' writer schemas,
// cat prints records, table append creates a Delta table from them and merges a later file's
// new column; a damaged file exits 2 with the file and byte offset. The files are built here
// byte by byte from the spec, so the test does not rest on sluice's own writer.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "e2e/run.h"
#include "e2e/table_testing.h"
#include "sluice/base/json.h"

namespace sluice::e2e {
namespace {

// Avro's binary encoding, just what these files need.
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
std::string Str(const std::string& s) { return Long(static_cast<int64_t>(s.size())) + s; }
std::string Double(double d) {
  char b[8];
  std::memcpy(b, &d, 8);  // little-endian, as the spec wants (x86 and arm64 are)
  return std::string(b, 8);
}

// A container file (null codec) of `schema` holding `blocks`, each a count and its records.
std::string Container(const std::string& schema,
                      const std::vector<std::pair<int, std::string>>& blocks) {
  const std::string sync = "SYNCSYNCSYNCSYNC";
  std::string out("Obj\x01", 4);
  out += Long(2) + Str("avro.schema") + Str(schema) + Str("avro.codec") + Str("null") + Long(0);
  out += sync;
  for (const auto& [count, data] : blocks) out += Long(count) + Str(data) + sync;
  return out;
}

constexpr const char* kV1 = R"({"type":"record","name":"Order","fields":[
  {"name":"id","type":"long"},{"name":"customer","type":["null","string"]},
  {"name":"amount","type":"double"},
  {"name":"day","type":{"type":"int","logicalType":"date"}}]})";
// A later producer: id became an int, a new optional column.
constexpr const char* kV2 = R"({"type":"record","name":"Order","fields":[
  {"name":"id","type":"int"},{"name":"customer","type":["null","string"]},
  {"name":"amount","type":"double"},
  {"name":"day","type":{"type":"int","logicalType":"date"}},
  {"name":"channel","type":["null","string"],"default":null}]})";
constexpr const char* kV3 = R"({"type":"record","name":"Order","fields":[
  {"name":"id","type":"long"},{"name":"customer","type":["null","string"]},
  {"name":"amount","type":"double"},
  {"name":"day","type":{"type":"int","logicalType":"date"}},
  {"name":"channel","type":["null","string"],"default":null}]})";

// Order `id`: customer null when empty, day 20,000 (2024-10-04) + id.
std::string OrderV1(int64_t id, const std::string& customer, double amount) {
  std::string r = Long(id);
  r += customer.empty() ? Long(0) : Long(1) + Str(customer);
  return r + Double(amount) + Long(20000 + id);
}
std::string OrderV2(int64_t id, const std::string& customer, double amount,
                    const std::string& channel) {
  return OrderV1(id, customer, amount) + (channel.empty() ? Long(0) : Long(1) + Str(channel));
}

struct Files {
  std::string dir;
  std::string v1;
  std::string v2;
};

Files WriteFiles(const std::string& name) {
  Files f;
  f.dir = FreshFolder("avro_" + name);
  f.v1 = WriteText(f.dir, "orders-1.avro",
                   Container(kV1, {{2, OrderV1(1, "ann", 10.5) + OrderV1(2, "", 3)},
                                   {1, OrderV1(3, "cy", 7.25)}}));
  // No .avro name: the magic says what it is.
  f.v2 = WriteText(f.dir, "orders-2",
                   Container(kV2, {{2, OrderV2(4, "di", 1, "web") + OrderV2(5, "ed", 2, "")}}));
  return f;
}

TEST(AvroCliTest, ValidateChecksRecordsOfBothFilesAgainstASchema) {
  Files f = WriteFiles("validate");
  const std::string schema =
      WriteText(f.dir, "orders.ddl", "id INT NOT NULL, customer STRING, amount DOUBLE, day DATE");
  RunResult run = RunSluice({"validate", f.v1, f.v2, "--schema", schema, "--format", "json",
                             "--out", f.dir + "/valid.jsonl", "--quarantine", "/dev/null"});
  // orders-2 has a column the schema lacks: its records are rescued, not lost.
  EXPECT_EQ(run.exit_code, 1) << run.err;
  auto report = ParseJson(run.out);
  ASSERT_TRUE(report.has_value()) << run.out;
  EXPECT_EQ(report->Find("format")->as_string(), "avro");
  EXPECT_EQ(report->Find("records_in")->as_int64(), 5);
  EXPECT_EQ(report->Find("valid")->as_int64(), 5);
  // Both of its records: an unknown key is rescued even when its value is null.
  EXPECT_EQ(report->Find("rescued")->as_int64(), 2);
  const std::string valid = ReadText(f.dir + "/valid.jsonl");
  EXPECT_TRUE(Contains(valid, R"({"id":2,"customer":null,"amount":3.0,"day":"2024-10-06",)"))
      << valid;
  EXPECT_TRUE(Contains(valid, R"("_rescued_data":"{\"channel\":\"web\")")) << valid;

  // The same files read as the schema they were written with: clean.
  RunResult clean = RunSluice({"validate", f.v1, "--schema", schema, "-q"});
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(clean.out.substr(0, clean.out.find('\n')),
            R"({"id":1,"customer":"ann","amount":10.5,"day":"2024-10-05","_rescued_data":null})");
}

TEST(AvroCliTest, InferMergesTheWriterSchemas) {
  Files f = WriteFiles("infer");
  RunResult run = RunSluice({"infer", f.v1, f.v2, "--as", "spark-ddl", "-q"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            "id BIGINT NOT NULL,customer STRING,amount DOUBLE NOT NULL,day DATE NOT NULL,"
            "channel STRING\n");
  RunResult forced =
      RunSluice({"infer", f.v2, "--input-format", "avro", "--as", "spark-ddl", "-q"});
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_TRUE(Contains(forced.out, "id INT NOT NULL")) << forced.out;
}

TEST(AvroCliTest, CatPrintsRecordsWithColumnsAndLimit) {
  Files f = WriteFiles("cat");
  RunResult run = RunSluice({"cat", f.v1, f.v2, "--columns", "id,customer", "--limit", "4"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            "{\"id\":1,\"customer\":\"ann\"}\n{\"id\":2,\"customer\":null}\n"
            "{\"id\":3,\"customer\":\"cy\"}\n{\"id\":4,\"customer\":\"di\"}\n");
}

TEST(AvroCliTest, TableAppendCreatesATableAndMergesANewColumn) {
  Files f = WriteFiles("table");
  const std::string table = f.dir + "/orders";
  RunResult created = RunSluice({"table", "append", table, f.v1});
  ASSERT_EQ(created.exit_code, 0) << created.err << created.out;
  EXPECT_TRUE(Contains(created.out, "created at version 0: 3 rows")) << created.out;

  // A later file with a new column: refused, then merged with mergeSchema. (Its id is a long:
  // Delta refuses to merge an int column into a bigint one.)
  const std::string v3 =
      WriteText(f.dir, "orders-3.avro",
                Container(kV3, {{2, OrderV2(4, "di", 1, "web") + OrderV2(5, "ed", 2, "")}}));
  RunResult plain = RunSluice({"table", "append", table, v3});
  EXPECT_EQ(plain.exit_code, 1) << plain.out << plain.err;
  EXPECT_TRUE(Contains(plain.err, "channel")) << plain.err;
  RunResult merged = RunSluice({"table", "append", table, v3, "--merge-schema"});
  ASSERT_EQ(merged.exit_code, 0) << merged.err << merged.out;
  EXPECT_TRUE(Contains(merged.out, "column_added channel")) << merged.out;

  RunResult rows = RunSluice({"table", "cat", table, "--columns", "id,channel"});
  ASSERT_EQ(rows.exit_code, 0) << rows.err;
  for (const char* row : {R"({"id":1,"channel":null})", R"({"id":4,"channel":"web"})",
                          R"({"id":5,"channel":null})"}) {
    EXPECT_TRUE(Contains(rows.out, row)) << rows.out;
  }
  EXPECT_EQ(CheckTableIndependently(table), "");
}

TEST(AvroCliTest, ADamagedFileExitsTwoNamingTheByte) {
  Files f = WriteFiles("damaged");
  const std::string schema = WriteText(f.dir, "ids.ddl", "id BIGINT");
  std::string bytes = ReadText(f.v1);
  // The first block claims more bytes than the file holds.
  const std::string cut = WriteText(f.dir, "cut.avro", bytes.substr(0, bytes.size() - 40));
  for (const std::vector<std::string>& args : {std::vector<std::string>{"cat", cut},
                                               {"infer", cut, "-q"},
                                               {"validate", cut, "--schema", schema, "-q"}}) {
    RunResult run = RunSluice(args);
    EXPECT_EQ(run.exit_code, 2) << args[0] << ": " << run.err;
    EXPECT_TRUE(Contains(run.err, cut + ": byte ")) << args[0] << ": " << run.err;
  }
  const std::string bzip2 =
      WriteText(f.dir, "bz.avro",
                std::string("Obj\x01", 4) + Long(2) + Str("avro.schema") + Str("\"long\"") +
                    Str("avro.codec") + Str("bzip2") + Long(0) + "SYNCSYNCSYNCSYNC");
  RunResult run = RunSluice({"cat", bzip2});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Contains(run.err, "unsupported codec \"bzip2\"")) << run.err;
}

}  // namespace
}  // namespace sluice::e2e
