// End-to-end: the conventions every command keeps (docs/cli.md "Conventions"): --format is the
// output's format, -o/--output writes a file, -q is quiet, enum values in any case, errors start
// with "sluice: error:" and name the wrong word, colour only on a terminal, folders as input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "e2e/run.h"
#include "sluice/base/json.h"

namespace sluice::e2e {
namespace {

namespace fs = std::filesystem;

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh folder under /tmp, removed at the end of the test.
class Folder {
 public:
  Folder() {
    path_ = (fs::temp_directory_path() /
             ("sluice_conv_" + std::to_string(::getpid()) + "_" + std::to_string(next_++)))
                .string();
    fs::create_directories(path_);
  }
  ~Folder() { fs::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& content) const {
    std::string p = path_ + "/" + name;
    fs::create_directories(fs::path(p).parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  const std::string& path() const { return path_; }

 private:
  static inline int next_ = 0;
  std::string path_;
};

const char* kOrdersSchema = "examples/orders_v1.json";
const char* kLanding = "examples/orders_landing.jsonl";

TEST(ConventionsTest, UnknownWordsAreNamedWithTheNearestOne) {
  RunResult r = RunSluice({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "sluice: error: unknown command 'frobnicate'\n");
  r = RunSluice({"dif", "a", "b"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "sluice: error: unknown command 'dif'; did you mean 'diff'?\n");
  r = RunSluice({"diff", "--fromat", "json", "a", "b"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "sluice: error: unknown option '--fromat' for 'sluice diff'; did you mean "
            "'--format'?\n");
  r = RunSluice({"registry", "lst"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "unknown command 'lst' for 'sluice registry'; did you mean 'list'?"))
      << r.err;
  r = RunSluice({"merge", "examples/users_table.ddl", "examples/users.ddl", "--mode", "merj"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err,
                       "sluice: error: --mode: 'merj' is not one of enforce, merge, "
                       "overwrite; did you mean 'merge'?"))
      << r.err;
  r = RunSluice({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.starts_with("sluice: error: 'sluice' needs a command: schema, diff")) << r.err;
}

TEST(ConventionsTest, EveryErrorStartsTheSameWay) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"diff", "examples/none.json", kOrdersSchema},
                                             {"schema", "show", "x.json", "--as", "xml"},
                                             {"validate", kLanding},
                                             {"infer", "/nonexistent/folder"},
                                             {"compat", kOrdersSchema}}) {
    RunResult r = RunSluice(args);
    EXPECT_EQ(r.exit_code, 2) << args[0];
    EXPECT_TRUE(r.err.starts_with("sluice: error: ")) << args[0] << ": " << r.err;
  }
}

TEST(ConventionsTest, RegistryErrorsNameTheUrlAndTheCause) {
  RunResult r = RunSluice({"registry", "list", "--url", "http://127.0.0.1:1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "sluice: error: cannot reach the registry at http://127.0.0.1:1: connection "
            "refused\n");
}

TEST(ConventionsTest, EnumValuesInAnyCase) {
  RunResult r = RunSluice({"merge", "examples/users_table.ddl", "examples/users.ddl", "--mode",
                           "Merge", "--format", "JSON", "--table-format", "Delta"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto doc = ParseJson(r.out);
  ASSERT_TRUE(doc.has_value()) << r.out;
  EXPECT_EQ(doc->Find("verdict")->as_string(), "evolved");
  r = RunSluice({"schema", "show", kOrdersSchema, "--as", "Spark-DDL"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = RunSluice({"validate", kLanding, "--schema", kOrdersSchema, "--mode", "FAILFAST", "-q", "-o",
                 "/dev/null", "--quarantine", "/dev/null"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
}

TEST(ConventionsTest, ThreadsMustBeOneOrMore) {
  RunResult r = RunSluice({"validate", kLanding, "--schema", kOrdersSchema, "--threads", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "--threads: takes a number of threads from 1 to 1024, not '0'"))
      << r.err;
  EXPECT_EQ(RunSluice({"infer", kLanding, "--threads", "0"}).exit_code, 2);
  EXPECT_EQ(RunSluice({"infer", kLanding, "--threads", "1", "-q"}).exit_code, 0);
}

TEST(ConventionsTest, OutputFileOnEveryCommandThatWritesOne) {
  Folder dir;
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::string expect_in_file;
  };
  std::string out = dir.path() + "/out";
  std::vector<Case> cases = {
      {{"diff", "examples/orders_v1.json", "examples/orders_v2.json"}, 1, "type_changed"},
      {{"compat", "examples/orders_v1.json", "examples/orders_v2.json"}, 1, "NOT compatible"},
      {{"check", "examples/orders_v1.json", "--contract", "examples/orders_silver_contract.yaml"},
       1,
       "contract VIOLATED"},
      {{"schema", "show", kOrdersSchema, "--as", "spark-ddl"}, 0, "order_id"},
      {{"schema", "convert", kOrdersSchema, "--to", "avro"}, 0, "\"record\""},
      {{"schema", "fingerprint", kOrdersSchema}, 0, ""},
      {{"merge", "examples/users_table.ddl", "examples/users.ddl", "--mode", "merge"},
       0,
       "loyalty_tier"},
      {{"infer", kLanding}, 0, "order_id"},
      {{"validate", kLanding, "--schema", kOrdersSchema, "--quarantine", "/dev/null"},
       1,
       "\"order_id\":1001"},
  };
  for (Case& c : cases) {
    fs::remove(out);
    c.args.push_back("-o");
    c.args.push_back(out);
    c.args.push_back("-q");
    RunResult r = RunSluice(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args[0] << " " << c.args[1] << ": " << r.err;
    ASSERT_TRUE(fs::exists(out)) << c.args[0] << " " << c.args[1];
    EXPECT_TRUE(Contains(Slurp(out), c.expect_in_file)) << c.args[0] << ": " << Slurp(out);
    if (c.args[0] != "merge") {
      EXPECT_EQ(r.out, "") << c.args[0] << " " << c.args[1];
    }
  }
  // --out, the old spelling of validate's output, still works.
  fs::remove(out);
  RunResult r = RunSluice(
      {"validate", kLanding, "--schema", kOrdersSchema, "--out", out, "--quarantine", "/dev/null"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(Slurp(out), "\"order_id\":1001"));
}

TEST(ConventionsTest, UnwritableOutputsAreReportedBeforeTheRun) {
  Folder dir;
  std::string records = dir.path() + "/valid.jsonl";
  RunResult r = RunSluice({"validate", kLanding, "--schema", kOrdersSchema, "-o", records,
                           "--report", "/nonexistent/report.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.starts_with("sluice: error: --report: /nonexistent/report.json: ")) << r.err;
  EXPECT_FALSE(fs::exists(records)) << "the run started anyway";
  r = RunSluice({"infer", kLanding, "-o", "/nonexistent/schema.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.starts_with("sluice: error: --output: /nonexistent/schema.json: ")) << r.err;
  r = RunSluice({"diff", "examples/orders_v1.json", "examples/orders_v2.json", "-o",
                 "/nonexistent/diff.txt"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.starts_with("sluice: error: --output: /nonexistent/diff.txt: ")) << r.err;
}

TEST(ConventionsTest, ValidateFormatJsonPrintsTheReport) {
  RunResult r = RunSluice({"validate", kLanding, "--schema", kOrdersSchema, "--format", "json",
                           "--quarantine", "/dev/null"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto doc = ParseJson(r.out);
  ASSERT_TRUE(doc.has_value()) << r.out;
  EXPECT_EQ(doc->Find("records_in")->as_int64(), 7);
  EXPECT_EQ(doc->Find("quarantined")->as_int64(), 1);
  EXPECT_EQ(r.err, "") << "the text summary is replaced by the report";
  // With -o the valid records go to the file as well.
  Folder dir;
  std::string records = dir.path() + "/valid.jsonl";
  r = RunSluice({"validate", kLanding, "--schema", kOrdersSchema, "--format", "json", "-o", records,
                 "--quarantine", "/dev/null"});
  EXPECT_TRUE(ParseJson(r.out).has_value()) << r.out;
  EXPECT_TRUE(Contains(Slurp(records), "\"order_id\":1001"));
  // Standard output cannot carry both.
  r = RunSluice({"validate", kLanding, "--schema", kOrdersSchema, "--format", "json", "-o", "-"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "give -o FILE for the valid records")) << r.err;
}

TEST(ConventionsTest, InferFormatJsonPrintsTheSummary) {
  RunResult r = RunSluice({"infer", kLanding, "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto doc = ParseJson(r.out);
  ASSERT_TRUE(doc.has_value()) << r.out;
  EXPECT_EQ(doc->Find("records")->as_int64(), 7);
  EXPECT_EQ(doc->Find("malformed")->as_int64(), 1);
  EXPECT_EQ(doc->Find("schema")->Find("type")->as_string(), "struct");
}

TEST(ConventionsTest, InputFormatAndTheOldSpelling) {
  RunResult r =
      RunSluice({"infer", kLanding, "--input-format", "jsonl", "-q", "--as", "spark-ddl"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string ddl = r.out;
  // --format jsonl still reads the input as JSON lines, and says what to write instead.
  r = RunSluice({"infer", kLanding, "--format", "jsonl", "--as", "spark-ddl"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, ddl);
  EXPECT_TRUE(Contains(r.err,
                       "note: --format jsonl names the input's format, which is now "
                       "--input-format jsonl"))
      << r.err;
  r = RunSluice({"infer", kLanding, "--format", "csv", "--input-format", "jsonl"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "both name the input's format")) << r.err;
}

TEST(ConventionsTest, FoldersAreReadAsSparkReadsThem) {
  Folder dir;
  dir.Write("a.jsonl", "{\"id\": 1, \"name\": \"x\"}\n");
  dir.Write("date=2026-08-15/b.jsonl", "{\"id\": 2, \"name\": \"y\", \"extra\": true}\n");
  dir.Write("_SUCCESS", "");
  dir.Write(".a.jsonl.crc", "\x01\x02");
  dir.Write("notes.txt", "not json\n");
  RunResult r = RunSluice(
      {"infer", dir.path(), "--pattern", "*.jsonl", "--as", "spark-ddl", "--threads", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "extra BOOLEAN,id BIGINT,name STRING\n");
  EXPECT_TRUE(Contains(r.err, "inferred from 2 records (0 malformed)")) << r.err;
  std::string schema = dir.Write("s.ddl", "id BIGINT, name STRING");
  r = RunSluice({"validate", dir.path(), "--schema", schema, "--pattern", "*.jsonl", "--format",
                 "json", "--quarantine", "/dev/null"});
  auto doc = ParseJson(r.out);
  ASSERT_TRUE(doc.has_value()) << r.out << r.err;
  EXPECT_EQ(doc->Find("records_in")->as_int64(), 2);
  EXPECT_EQ(doc->Find("files")->size(), 2u);
  r = RunSluice({"infer", dir.path(), "--pattern", "*.parquet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "no file in the folder matches --pattern *.parquet")) << r.err;
}

TEST(ConventionsTest, ColourOnlyOnATerminal) {
  const std::vector<std::string> diff = {"diff", "examples/orders_v1.json",
                                         "examples/orders_v2.json"};
  RunResult tty = RunSluiceOnTerminal(diff);
  EXPECT_EQ(tty.exit_code, 1);
  EXPECT_TRUE(Contains(tty.out, "\x1b[31m[breaking]\x1b[0m")) << tty.out;
  EXPECT_TRUE(Contains(tty.out, "\x1b[32m[compatible]\x1b[0m")) << tty.out;
  RunResult no_color = RunSluiceOnTerminal(diff, {"NO_COLOR=1"});
  EXPECT_FALSE(Contains(no_color.out, "\x1b[")) << no_color.out;
  EXPECT_TRUE(Contains(no_color.out, "[breaking]")) << no_color.out;
  RunResult dumb = RunSluiceOnTerminal(diff, {"TERM=dumb"});
  EXPECT_FALSE(Contains(dumb.out, "\x1b[")) << dumb.out;
  RunResult piped = RunSluice(diff);
  EXPECT_FALSE(Contains(piped.out, "\x1b[")) << piped.out;
  // Errors are red on a terminal too.
  RunResult err = RunSluiceOnTerminal({"frobnicate"});
  EXPECT_TRUE(Contains(err.out, "sluice: \x1b[31merror:\x1b[0m unknown command")) << err.out;
}

TEST(ConventionsTest, QuietIsAcceptedEverywhere) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"diff", "examples/orders_v1.json", "examples/orders_v2.json", "-q"},
           {"compat", "examples/orders_v1.json", "examples/orders_v2.json", "-q"},
           {"check", kOrdersSchema, "--contract", "examples/orders_silver_contract.yaml", "-q"},
           {"schema", "show", kOrdersSchema, "-q"},
           {"schema", "fingerprint", kOrdersSchema, "-q"},
           {"validate", kLanding, "--schema", kOrdersSchema, "-q", "-o", "/dev/null",
            "--quarantine", "/dev/null"},
       }) {
    RunResult r = RunSluice(args);
    EXPECT_NE(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_EQ(r.err, "") << args[0];
  }
}

}  // namespace
}  // namespace sluice::e2e
