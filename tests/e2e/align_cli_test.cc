// End-to-end: `sluice align` on seed 001 (user_movie_activity v1 -> v2) and its refusals.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "e2e/run.h"

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

constexpr const char* kV1 = "examples/user_movie_activity_v1.avsc";
constexpr const char* kV2 = "examples/user_movie_activity_v2.avsc";

TEST(AlignCliTest, Seed001SparkQueryAndNotes) {
  RunResult r = RunSluice({"align", kV1, kV2, "--dialect", "spark"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out,
                       "  transform(movies_watched, x -> named_struct('movie_id', "
                       "CAST(x.movie_id AS STRING), 'title', x.title, 'duration_seconds', "
                       "x.duration_seconds, 'completed', x.completed, 'rating', "
                       "CAST(NULL AS FLOAT))) AS movies_watched,\n"
                       "  'user_movie_activity_v1' AS _schema_version\n"
                       "FROM user_movie_activity_v1\nUNION ALL\n"))
      << r.out;
  EXPECT_TRUE(Contains(r.out, "FROM user_movie_activity_v2;\n")) << r.out;
  EXPECT_TRUE(Contains(r.err,
                       "note: target: movies_watched[].movie_id: int32 and string meet; string "
                       "holds both\n"))
      << r.err;
  EXPECT_TRUE(Contains(r.err, "note: " + std::string(kV1) +
                                  ": movies_watched[].rating: not in this version: NULL\n"))
      << r.err;
}

TEST(AlignCliTest, RelationsViewAndOutputFile) {
  std::string out =
      (fs::temp_directory_path() / ("sluice_align_" + std::to_string(::getpid()) + ".sql"))
          .string();
  RunResult r = RunSluice({"align", kV1, kV2, "--dialect", "duckdb", "--relation", "raw.a",
                           "--relation", "raw.b", "--view", "aligned", "-o", out, "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  std::string sql = Slurp(out);
  fs::remove(out);
  EXPECT_TRUE(Contains(sql, "CREATE OR REPLACE VIEW aligned AS\n")) << sql;
  EXPECT_TRUE(Contains(sql, "FROM raw.a\nUNION ALL\n")) << sql;
  EXPECT_TRUE(Contains(sql, "'user_movie_activity_v2' AS _schema_version\nFROM raw.b;")) << sql;

  // The relation and label are the file's name up to its first dot.
  RunResult json = RunSluice(
      {"align", "examples/user_movie_activity_v1.schema.json", kV2, "--dialect", "spark", "-q"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(Contains(json.out,
                       "'user_movie_activity_v1' AS _schema_version\nFROM "
                       "user_movie_activity_v1\n"))
      << json.out;

  RunResult one = RunSluice({"align", kV1, kV2, "--dialect", "spark", "--relation", "a"});
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_TRUE(Contains(one.err, "give one --relation per schema")) << one.err;
  RunResult unwritable =
      RunSluice({"align", kV1, kV2, "--dialect", "spark", "-o", "/nonexistent/a.sql"});
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_TRUE(unwritable.err.starts_with("sluice: error: --output: /nonexistent/a.sql: "))
      << unwritable.err;
}

TEST(AlignCliTest, LossyCastIsRefusedNamingThePathUnlessAllowed) {
  // v2 as the target of v2 and a version with movie_id as a string: string -> int is lossy.
  RunResult r = RunSluice({"align", kV2, kV1, "--to", kV1, "--dialect", "spark"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "sluice: error: " + std::string(kV2) +
                                  ": movies_watched[].movie_id: casting string to int32 may "
                                  "lose values"))
      << r.err;
  RunResult allowed =
      RunSluice({"align", kV2, kV1, "--to", kV1, "--dialect", "spark", "--allow-lossy"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_TRUE(Contains(allowed.out, "try_cast(x.movie_id AS INT)")) << allowed.out;
  EXPECT_TRUE(Contains(allowed.err, "cast with try_cast")) << allowed.err;
}

TEST(AlignCliTest, DbtWritesTheModelSchemaAndSources) {
  std::string dir =
      (fs::temp_directory_path() / ("sluice_align_dbt_" + std::to_string(::getpid()))).string();
  RunResult r =
      RunSluice({"align", kV1, kV2, "--dialect", "dbt", "--adapter", "duckdb", "-o", dir, "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string model = Slurp(dir + "/models/user_movie_activity.sql");
  std::string schema = Slurp(dir + "/models/schema.yml");
  std::string sources = Slurp(dir + "/models/sources.yml");
  fs::remove_all(dir);
  EXPECT_TRUE(Contains(model, "{{ source('raw', 'user_movie_activity_v1') }}")) << model;
  EXPECT_TRUE(Contains(model, "struct_pack(movie_id := CAST(x.movie_id AS VARCHAR)")) << model;
  EXPECT_TRUE(Contains(schema, "        enforced: true\n")) << schema;
  EXPECT_TRUE(Contains(schema, "data_type: 'VARCHAR'")) << schema;
  EXPECT_TRUE(Contains(sources, "- name: 'user_movie_activity_v2'")) << sources;

  RunResult no_dir = RunSluice({"align", kV1, kV2, "--dialect", "dbt"});
  EXPECT_EQ(no_dir.exit_code, 2);
  EXPECT_TRUE(Contains(no_dir.err, "-o DIR")) << no_dir.err;
  RunResult one = RunSluice({"align", kV1, "--dialect", "spark"});
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_TRUE(Contains(one.err, "two or more schema versions")) << one.err;
}

TEST(AlignCliTest, ContractIsTheTargetAndGivesTheDbtTests) {
  std::string contract = TempFile(".yaml", R"(dataContractSpecification: 1.1.0
id: movies
info: {title: movies, version: 1.0.0}
models:
  user_movie_activity:
    type: table
    fields:
      user_id: {type: long, required: true, unique: true}
      session_id: {type: string, enum: ["s1", "s3"]}
)");
  std::string dir =
      (fs::temp_directory_path() / ("sluice_align_contract_" + std::to_string(::getpid())))
          .string();
  RunResult r =
      RunSluice({"align", kV1, kV2, "--contract", contract, "--dialect", "dbt", "-o", dir, "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string schema = Slurp(dir + "/models/schema.yml");
  std::string model = Slurp(dir + "/models/user_movie_activity.sql");
  fs::remove_all(dir);
  EXPECT_TRUE(Contains(schema,
                       "      - name: 'user_id'\n        data_type: 'BIGINT'\n        data_tests:\n"
                       "          - not_null\n          - unique\n"))
      << schema;
  EXPECT_TRUE(
      Contains(schema, "          - accepted_values:\n              values: ['s1', 's3']\n"))
      << schema;
  // The contract has no movies_watched: the column is dropped from both versions.
  EXPECT_FALSE(Contains(model, "movies_watched")) << model;

  RunResult both =
      RunSluice({"align", kV1, kV2, "--contract", contract, "--to", kV2, "--dialect", "spark"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(Contains(both.err, "give --to or --contract, not both")) << both.err;
}

}  // namespace
}  // namespace sluice::e2e
