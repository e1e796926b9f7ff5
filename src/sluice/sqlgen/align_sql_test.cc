#include "sluice/sqlgen/align_sql.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/dialects/format.h"
#include "sluice/sqlgen/align_dbt.h"
#include "sluice_test_paths.h"

namespace sluice::sqlgen {
namespace {

using schema::Field;
using schema::SchemaPtr;
using schema::Type;

std::string SourcePath(const std::string& rel) {
  return std::string(SLUICE_SOURCE_DIR) + "/" + rel;
}

Result<SchemaPtr> ReadSchemaText(const std::string& text, const std::string& format_name) {
  SLUICE_ASSIGN_OR_RETURN(dialects::Format format, dialects::ParseFormatName(format_name));
  SLUICE_ASSIGN_OR_RETURN(auto read, dialects::ReadSchema(text, format));
  return read.value;
}

SchemaPtr Example(const std::string& name) {
  auto text = NewLocalFileSystem()->ReadFile(SourcePath("examples/" + name));
  EXPECT_TRUE(text.has_value());
  auto format = dialects::DetectFormat(name, *text);
  auto read = dialects::ReadSchema(*text, *format);
  EXPECT_TRUE(read.has_value());
  return read->value;
}

// ---------------------------------------------------------------------------------------------
// Golden cases: testdata/align/*.case. A case is sections, each opened by a line
// `--- <kind> <args>`:
//   --- schema LABEL FORMAT      a version (relation and _schema_version LABEL), inline, in
//                                FORMAT (spark-ddl, spark-json, avro, ...)
//   --- schema LABEL @PATH       a version read from PATH under the source tree
//   --- target FORMAT            the target (default: the merge of the versions)
//   --- options WORD...          allow_lossy, explode=COLUMN, view=NAME, relations=A,B
//   --- spark / --- duckdb       the expected query
//   --- error spark|duckdb       the expected error message (a part of it)
// SLUICE_UPDATE_GOLDEN=1 rewrites the expected queries with what is generated.

struct Section {
  std::string header;
  std::string body;
};

std::vector<Section> ParseSections(const std::string& text) {
  std::vector<Section> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("--- ", 0) == 0) {
      out.push_back({line.substr(4), ""});
    } else if (!out.empty()) {
      out.back().body += line + "\n";
    }
  }
  return out;
}

std::vector<std::string> Words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string part; std::getline(in, part, ',');) out.push_back(part);
  return out;
}

// The query a case generates, or the error's message.
Result<std::string> Generate(const std::vector<std::pair<std::string, SchemaPtr>>& schemas,
                             SchemaPtr target, const std::vector<std::string>& options,
                             Dialect dialect) {
  bool allow_lossy = false;
  AlignOptions align;
  std::vector<std::string> relations;
  for (const std::string& o : options) {
    if (o == "allow_lossy") allow_lossy = true;
    if (o.rfind("explode=", 0) == 0) align.explode = o.substr(8);
    if (o.rfind("view=", 0) == 0) align.view_name = o.substr(5);
    if (o.rfind("relations=", 0) == 0) relations = SplitComma(o.substr(10));
  }
  if (target == nullptr) {
    std::vector<SchemaPtr> versions;
    for (const auto& s : schemas) versions.push_back(s.second);
    SLUICE_ASSIGN_OR_RETURN(auto merged, MergeTarget(versions));
    target = merged.value;
  }
  std::vector<VersionInput> inputs;
  for (size_t i = 0; i < schemas.size(); ++i) {
    SLUICE_ASSIGN_OR_RETURN(VersionPlan plan,
                            PlanVersion(*schemas[i].second, *target, allow_lossy));
    std::string relation = i < relations.size() ? relations[i] : schemas[i].first;
    inputs.push_back({relation, schemas[i].first, std::move(plan)});
  }
  return RenderAlign(inputs, *target, dialect, align);
}

void RunCase(const std::string& path, int& checked) {
  auto fs = NewLocalFileSystem();
  auto text = fs->ReadFile(path);
  ASSERT_TRUE(text.has_value()) << text.error().ToString();
  std::vector<Section> sections = ParseSections(*text);
  std::vector<std::pair<std::string, SchemaPtr>> schemas;
  SchemaPtr target;
  std::vector<std::string> options;
  for (const Section& s : sections) {
    std::vector<std::string> w = Words(s.header);
    ASSERT_FALSE(w.empty());
    if (w[0] == "schema" || w[0] == "target") {
      std::string spec = w.back();
      std::string body = s.body;
      std::string format = spec;
      if (spec[0] == '@') {
        auto file = fs->ReadFile(SourcePath(spec.substr(1)));
        ASSERT_TRUE(file.has_value()) << file.error().ToString();
        body = *file;
        auto detected = dialects::DetectFormat(spec, body);
        ASSERT_TRUE(detected.has_value());
        format = std::string(dialects::FormatName(*detected));
      }
      auto schema = ReadSchemaText(body, format);
      ASSERT_TRUE(schema.has_value()) << s.header << ": " << schema.error().ToString();
      if (w[0] == "target") {
        target = *schema;
      } else {
        ASSERT_EQ(w.size(), 3u) << s.header;
        schemas.emplace_back(w[1], *schema);
      }
    } else if (w[0] == "options") {
      options.assign(w.begin() + 1, w.end());
    }
  }
  bool update = std::getenv("SLUICE_UPDATE_GOLDEN") != nullptr;
  std::string rewritten;
  for (Section& s : sections) {
    std::vector<std::string> w = Words(s.header);
    bool expect_error = w[0] == "error";
    std::string dialect_name = expect_error ? w.at(1) : w[0];
    if (dialect_name == "spark" || dialect_name == "duckdb") {
      SCOPED_TRACE(s.header);
      Dialect dialect = *ParseDialect(dialect_name);
      auto got = Generate(schemas, target, options, dialect);
      ++checked;
      if (expect_error) {
        ASSERT_FALSE(got.has_value()) << *got;
        std::string want = s.body.substr(0, s.body.find_last_not_of('\n') + 1);
        EXPECT_NE(got.error().message().find(want), std::string::npos) << got.error().message();
      } else {
        ASSERT_TRUE(got.has_value()) << got.error().ToString();
        if (update) s.body = *got + "\n";
        EXPECT_EQ(*got + "\n", s.body);
      }
    }
    rewritten += "--- " + s.header + "\n" + s.body;
  }
  // Text before the first section (the case's description) is kept.
  if (update) {
    std::string head = text->substr(0, text->find("\n--- ") + 1);
    if (text->rfind("--- ", 0) == 0) head.clear();
    ASSERT_TRUE(fs->WriteFile(path, head + rewritten).has_value());
  }
}

TEST(AlignGoldenTest, EveryCaseInTestdataHolds) {
  std::string dir = SourcePath("src/sluice/sqlgen/testdata/align");
  auto names = NewLocalFileSystem()->ListDir(dir);
  ASSERT_TRUE(names.has_value()) << names.error().ToString();
  int cases = 0;
  int checked = 0;
  for (const std::string& name : *names) {
    if (name.size() < 5 || name.substr(name.size() - 5) != ".case") continue;
    SCOPED_TRACE(name);
    RunCase(dir + "/" + name, checked);
    ++cases;
  }
  // An empty or unreadable folder must not pass.
  EXPECT_GE(cases, 6);
  EXPECT_GE(checked, 10);
}

// ---------------------------------------------------------------------------------------------
// What the cases do not reach.

std::vector<VersionInput> SeedInputs(SchemaPtr& target) {
  SchemaPtr v1 = Example("user_movie_activity_v1.avsc");
  SchemaPtr v2 = Example("user_movie_activity_v2.avsc");
  target = MergeTarget({v1, v2})->value;
  return {{"user_movie_activity_v1", "user_movie_activity_v1", *PlanVersion(*v1, *target, false)},
          {"user_movie_activity_v2", "user_movie_activity_v2", *PlanVersion(*v2, *target, false)}};
}

TEST(AlignSqlTest, SparkAndDuckDbComeFromOnePlan) {
  SchemaPtr target;
  auto inputs = SeedInputs(target);
  auto spark = RenderAlign(inputs, *target, Dialect::kSpark);
  auto duck = RenderAlign(inputs, *target, Dialect::kDuckDb);
  ASSERT_TRUE(spark.has_value() && duck.has_value());
  EXPECT_NE(spark->find("transform(movies_watched, x -> named_struct('movie_id', "
                        "CAST(x.movie_id AS STRING)"),
            std::string::npos);
  EXPECT_NE(duck->find("list_transform(movies_watched, lambda x: struct_pack(movie_id := "
                       "CAST(x.movie_id AS VARCHAR)"),
            std::string::npos);
  EXPECT_NE(spark->find("'rating', CAST(NULL AS FLOAT)"), std::string::npos);
  EXPECT_NE(duck->find("rating := CAST(NULL AS FLOAT)"), std::string::npos);
}

TEST(AlignSqlTest, RefusesAVersionColumnInTheTargetAndABadExplode) {
  auto target = *schema::Schema::Make({Field("_schema_version", Type::String())});
  auto plan = *PlanVersion(*target, *target, false);
  auto clash = RenderAlign({{"t", "v", plan}}, *target, Dialect::kSpark);
  ASSERT_FALSE(clash.has_value());
  EXPECT_NE(clash.error().message().find("_schema_version"), std::string::npos);

  SchemaPtr seed;
  auto inputs = SeedInputs(seed);
  AlignOptions options;
  options.explode = "user_id";
  auto bad = RenderAlign(inputs, *seed, Dialect::kSpark, options);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message(), "explode user_id: not a top-level array column of the target");
  EXPECT_FALSE(RenderAlign({}, *seed, Dialect::kSpark).has_value());
}

TEST(AlignSqlTest, ExplodedFieldsClashingWithColumnsAreRefused) {
  auto source = *schema::Schema::Make(
      {Field("id", Type::Int64()),
       Field("items", *Type::Array(*Type::Struct({Field("id", Type::Int32())})))});
  auto plan = *PlanVersion(*source, *source, false);
  AlignOptions options;
  options.explode = "items";
  auto out = RenderAlign({{"t", "v", plan}}, *source, Dialect::kDuckDb, options);
  ASSERT_FALSE(out.has_value());
  EXPECT_NE(out.error().message().find("element field id clashes"), std::string::npos);
}

TEST(AlignSqlTest, TypesAndRelationsPerDialect) {
  auto t = *Type::Array(*Type::Struct({Field("a", *Type::Decimal(10, 2), false)}), false);
  EXPECT_EQ(TypeSql(*t, Dialect::kSpark), "ARRAY<STRUCT<a: DECIMAL(10,2)>>");
  EXPECT_EQ(TypeSql(*t, Dialect::kDuckDb), "STRUCT(a DECIMAL(10, 2))[]");
  EXPECT_EQ(QuoteRelation(Dialect::kSpark, "raw.Events v1"), "raw.`Events v1`");
  EXPECT_EQ(QuoteRelation(Dialect::kDuckDb, "raw.Events v1"), "raw.\"Events v1\"");
}

TEST(AlignDbtTest, ModelContractAndSources) {
  SchemaPtr target;
  auto inputs = SeedInputs(target);
  DbtOptions options;
  options.model_name = "user_movie_activity";
  auto files = RenderDbtProject(inputs, *target, Dialect::kSpark, options);
  ASSERT_TRUE(files.has_value()) << files.error().ToString();
  std::map<std::string, std::string> by_name(files->begin(), files->end());
  ASSERT_EQ(by_name.size(), 3u);
  const std::string& model = by_name["models/user_movie_activity.sql"];
  EXPECT_NE(model.find("{%- set versions = ['user_movie_activity_v1', 'user_movie_activity_v2'] "
                       "-%}"),
            std::string::npos);
  EXPECT_NE(model.find("FROM {{ source('raw', 'user_movie_activity_v1') }}"), std::string::npos);
  EXPECT_NE(model.find("{% if not loop.last %}UNION ALL{% endif %}"), std::string::npos);
  EXPECT_NE(model.find("named_struct('movie_id', CAST(x.movie_id AS STRING)"), std::string::npos);
  const std::string& yml = by_name["models/schema.yml"];
  EXPECT_NE(yml.find("    config:\n      contract:\n        enforced: true\n"), std::string::npos);
  EXPECT_NE(yml.find("      - name: 'user_id'\n        data_type: 'BIGINT'\n        data_tests:\n"
                     "          - not_null\n"),
            std::string::npos)
      << yml;
  EXPECT_NE(yml.find("      - name: 'session_id'\n        data_type: 'STRING'\n      - name"),
            std::string::npos);
  EXPECT_NE(yml.find("values: ['user_movie_activity_v1', 'user_movie_activity_v2']"),
            std::string::npos);
  EXPECT_EQ(by_name["models/sources.yml"],
            "version: 2\n\nsources:\n  - name: 'raw'\n    tables:\n"
            "      - name: 'user_movie_activity_v1'\n      - name: 'user_movie_activity_v2'\n");
  options.model_name = "bad name";
  EXPECT_FALSE(RenderDbtProject(inputs, *target, Dialect::kSpark, options).has_value());
}

TEST(AlignDbtTest, JinjaDelimitersInTheSqlAreRefused) {
  auto s = *schema::Schema::Make({Field("a{{b", Type::Int32())});
  auto t = *schema::Schema::Make({Field("a{{b", Type::Int64())});
  auto plan = *PlanVersion(*s, *t, false);
  auto files = RenderDbtProject({{"t", "v", plan}}, *t, Dialect::kDuckDb, DbtOptions{});
  ASSERT_FALSE(files.has_value());
  EXPECT_NE(files.error().message().find("Jinja delimiter"), std::string::npos);
}

}  // namespace
}  // namespace sluice::sqlgen
