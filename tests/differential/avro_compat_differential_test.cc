// The differential proof of sluice's Avro compatibility checker: 10,000 seeded random reader/
// writer pairs (bench/gen_avro_pairs.py) checked in both directions by sluice and by python-avro's
// port of Java's SchemaCompatibility (avro_compat_oracle.py, /usr/bin/python3 with Debian's
// python3-avro) in one run. The verdicts and the ordered lists of incompatibility kinds must agree
// on every pair, except for the documented cases where python-avro 1.11 departs from Java, which
// the generator isolates and this test accounts for one by one:
//
//  1. Names written dotted ("a.b.R"): python compares the name as written, Java the short name.
//  2. Aliases written relative to the namespace: python compares them as written, Java resolves
//     them against the type's namespace first. Python can be stricter (alias "R" for "x.R") or
//     more lenient (alias "R" in namespace "x" matching a writer "R" in the null namespace).
//  3. Records written as "error": python raises "Unknown schema type: error" (or reports a type
//     mismatch against "record"); Java treats them as records.
//  4. A reader field whose name and alias both name writer fields: Java throws
//     AvroRuntimeException; python takes the field named like the reader field.
//
// For 1 to 3 the generator writes each pair in the fair spelling (short names with namespace
// attributes, full-name aliases, "record") and in the deviating ones; sluice must give the same
// answer for every spelling, since Java reads them as one schema, and python-avro's fair-spelling
// answer is the oracle. Set SLUICE_DIFF_SEED and SLUICE_DIFF_PAIRS to explore other pairs.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "run_process.h"
#include "sluice/base/json.h"
#include "sluice/dialects/avro/avro_compatibility.h"
#include "sluice/dialects/avro/avro_schema.h"
#include "sluice_test_paths.h"

namespace sluice::dialects::avro {
namespace {

constexpr const char* kPython = "/usr/bin/python3";
constexpr const char* kGenerator = SLUICE_SOURCE_DIR "/bench/gen_avro_pairs.py";
constexpr const char* kOracle = SLUICE_SOURCE_DIR "/tests/differential/avro_compat_oracle.py";

using sluice::testing::LogTail;
using sluice::testing::ReadJsonLines;
using sluice::testing::RunProcess;
using sluice::testing::ScopedTempDir;

// A verdict with the ordered kinds, or an error, in one comparable string.
std::string Verdict(const Result<AvroCompatibility>& r) {
  if (!r.has_value()) return "error: " + r.error().message();
  std::string out = r->compatible ? "compatible" : "incompatible";
  for (const AvroIncompatibility& i : r->incompatibilities) {
    out += " " + std::string(AvroIncompatibilityKindName(i.kind));
  }
  return out;
}

// The whole result: kinds, messages and locations.
std::string Detail(const Result<AvroCompatibility>& r) {
  if (!r.has_value()) return "error: " + r.error().message();
  std::string out = r->compatible ? "compatible" : "incompatible";
  for (const AvroIncompatibility& i : r->incompatibilities) {
    out += "\n" + std::string(AvroIncompatibilityKindName(i.kind)) + " | " + i.message + " | " +
           i.location;
  }
  return out;
}

std::string PythonVerdict(const JsonValue& v) {
  if (const JsonValue* e = v.Find("e")) return "python error: " + e->as_string();
  std::string out = v.Find("c")->as_bool() ? "compatible" : "incompatible";
  for (const JsonValue& k : v.Find("k")->items()) out += " " + k.as_string();
  return out;
}

bool PythonCompatible(const JsonValue& v) {
  return v.Find("e") == nullptr && v.Find("c")->as_bool();
}

struct ParsedPair {
  std::optional<AvroSchema> a;
  std::optional<AvroSchema> b;
  std::string error;
};

ParsedPair ParsePair(const JsonValue& line, const std::string& suffix) {
  ParsedPair p;
  auto a = Parse(line.Find("a" + suffix)->as_string());
  auto b = Parse(line.Find("b" + suffix)->as_string());
  if (!a) p.error = "a" + suffix + ": " + a.error().ToString();
  if (!b) p.error = "b" + suffix + ": " + b.error().ToString();
  if (a && b) {
    p.a.emplace(std::move(a).value());
    p.b.emplace(std::move(b).value());
  }
  return p;
}

std::string Env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

TEST(AvroCompatDifferentialTest, AgreesWithPythonAvroOnTenThousandRandomPairs) {
  if (access(kPython, X_OK) != 0) GTEST_SKIP() << kPython << " is missing";
  ScopedTempDir tmp("sluice-avro-diff");
  ASSERT_FALSE(tmp.path().empty());
  std::string log = (tmp.path() / "log.txt").string();
  if (RunProcess({kPython, "-c", "import avro.compatibility"}, log) != 0) {
    GTEST_SKIP() << "python3-avro is not installed (" << LogTail(log) << ")";
  }
  const std::string seed = Env("SLUICE_DIFF_SEED", "20240611");
  const std::string count = Env("SLUICE_DIFF_PAIRS", "10000");
  std::string pairs_path = (tmp.path() / "pairs.jsonl").string();
  std::string oracle_path = (tmp.path() / "oracle.jsonl").string();
  ASSERT_EQ(RunProcess({kPython, kGenerator, "--seed", seed, "--pairs", count, pairs_path}, log), 0)
      << LogTail(log);
  ASSERT_EQ(RunProcess({kPython, "-W", "ignore", kOracle, pairs_path, oracle_path}, log), 0)
      << LogTail(log);

  std::vector<JsonValue> pairs = ReadJsonLines(pairs_path);
  std::vector<JsonValue> oracle = ReadJsonLines(oracle_path);
  ASSERT_EQ(pairs.size(), static_cast<size_t>(std::stoul(count)));
  ASSERT_EQ(oracle.size(), pairs.size());

  std::map<std::string, int> features;
  std::map<std::string, int> kinds;
  int agreed = 0, compatible = 0, incompatible = 0, ambiguous = 0, ambiguous_python_answered = 0;
  std::map<std::string, int> spelling_checked, python_deviated, python_raised;
  int reported = 0;
  auto report = [&](const std::string& what) {
    if (++reported <= 20) ADD_FAILURE() << what;
  };

  for (size_t n = 0; n < pairs.size(); ++n) {
    const JsonValue& line = pairs[n];
    const JsonValue& py = oracle[n];
    const int64_t id = *line.Find("id")->as_int64();
    ASSERT_EQ(*py.Find("id")->as_int64(), id);
    const std::string slice = line.Find("slice")->as_string();
    ParsedPair fair = ParsePair(line, "");
    if (!fair.error.empty()) {
      report("pair " + std::to_string(id) + " does not parse: " + fair.error);
      continue;
    }
    Result<AvroCompatibility> ba = CheckCompatibility(*fair.b, *fair.a);
    Result<AvroCompatibility> ab = CheckCompatibility(*fair.a, *fair.b);
    const std::string what = "pair " + std::to_string(id) + " (" + slice +
                             ")\n  a: " + line.Find("a")->as_string() +
                             "\n  b: " + line.Find("b")->as_string();

    if (slice == "ambiguous") {
      // Deviation 4: Java throws; python answers.
      ++ambiguous;
      if (ba.has_value() ||
          ba.error().message().find("matches multiple fields") == std::string::npos) {
        report(what + "\n  reader b: expected Java's multiple-match error, got " + Verdict(ba));
      }
      if (py.Find("ba")->Find("e") == nullptr) ++ambiguous_python_answered;
      if (Verdict(ab) != PythonVerdict(*py.Find("ab"))) {
        report(what + "\n  reader a: sluice " + Verdict(ab) + "\n  python " +
               PythonVerdict(*py.Find("ab")));
      }
      continue;
    }

    for (const JsonValue& f : line.Find("features")->items()) ++features[f.as_string()];
    for (const auto* r : {&ba, &ab}) {
      if (!r->has_value()) continue;
      (*r)->compatible ? ++compatible : ++incompatible;
      for (const AvroIncompatibility& i : (*r)->incompatibilities) {
        ++kinds[std::string(AvroIncompatibilityKindName(i.kind))];
      }
      if ((*r)->compatible != (*r)->incompatibilities.empty()) report(what + "\n  verdict/list");
    }
    bool same = true;
    for (auto [dir, r] : {std::pair{"ba", &ba}, std::pair{"ab", &ab}}) {
      std::string ours = Verdict(*r), theirs = PythonVerdict(*py.Find(dir));
      if (ours != theirs) {
        same = false;
        report(what + "\n  " + dir + ": sluice " + ours + "\n  " + dir + ": python " + theirs +
               "\n  sluice detail: " + Detail(*r));
      }
    }
    if (same) ++agreed;

    // Every spelling is the same schema for Java, so sluice answers exactly the same.
    for (const std::string suffix : {"_alt", "_dotted", "_relative_aliases", "_errors"}) {
      if (line.Find("a" + suffix) == nullptr) continue;
      ParsedPair other = ParsePair(line, suffix);
      if (!other.error.empty()) {
        report(what + "\n  spelling " + suffix + " does not parse: " + other.error);
        continue;
      }
      Result<AvroCompatibility> oba = CheckCompatibility(*other.b, *other.a);
      Result<AvroCompatibility> oab = CheckCompatibility(*other.a, *other.b);
      if (Detail(oba) != Detail(ba) || Detail(oab) != Detail(ab)) {
        report(what + "\n  spelling " + suffix + " changes sluice's answer:\n" + Detail(oba) +
               "\n vs\n" + Detail(ba));
      }
      if (suffix == "_alt") continue;
      // Deviations 1-3: python's answer on this spelling, against Java's (= sluice's).
      for (auto [dir, r] : {std::pair{"ba", &ba}, std::pair{"ab", &ab}}) {
        const JsonValue& p = *py.Find(std::string(dir) + suffix);
        ++spelling_checked[suffix];
        if (PythonVerdict(p) == Verdict(*r)) continue;
        ++python_deviated[suffix];
        if (p.Find("e") != nullptr) {
          ++python_raised[suffix];
          if (suffix != "_errors" ||
              p.Find("e")->as_string().find("Unknown schema type: error") == std::string::npos) {
            report(what + "\n  " + dir + suffix + ": python raised " + PythonVerdict(p));
          }
        } else if (suffix == "_dotted" && PythonCompatible(p) && !(*r)->compatible) {
          // Equal dotted names have equal short names, so python's name deviation only ever
          // fails matches Java makes. (A relative alias can go either way: "R" in namespace
          // "x" is "x.R" to Java and may equal a writer's "R" to python.)
          report(what + "\n  " + dir + suffix +
                 ": python is more lenient than Java: " + PythonVerdict(p) + " vs " + Verdict(*r));
        }
      }
    }
  }

  const int normal = static_cast<int>(pairs.size()) - ambiguous;
  std::printf("Avro compatibility, sluice vs python-avro %s, seed %s:\n", "1.11", seed.c_str());
  std::printf("  %d pairs x 2 directions; verdict and kinds agree on %d of %d normal pairs\n",
              static_cast<int>(pairs.size()), agreed, normal);
  std::printf("  %d compatible, %d incompatible checks; kinds:", compatible, incompatible);
  for (const auto& [k, v] : kinds) std::printf(" %s=%d", k.c_str(), v);
  std::printf(
      "\n  deviation 4 (ambiguous field alias): %d pairs, Java throws, python answered %d\n",
      ambiguous, ambiguous_python_answered);
  for (const auto& [s, v] : spelling_checked) {
    std::printf(
        "  deviation spelling %s: python differs from Java on %d of %d checks (%d raised)\n",
        s.c_str(), python_deviated[s], v, python_raised[s]);
  }
  std::printf("  features:");
  for (const auto& [f, v] : features) std::printf(" [%s]=%d", f.c_str(), v);
  std::printf("\n");

  EXPECT_EQ(agreed, normal);
  EXPECT_GE(ambiguous, 100);
  EXPECT_EQ(ambiguous_python_answered, ambiguous);
  // The pairs exercise every rule, and each documented deviation really shows.
  for (const char* k :
       {"NAME_MISMATCH", "FIXED_SIZE_MISMATCH", "MISSING_ENUM_SYMBOLS",
        "READER_FIELD_MISSING_DEFAULT_VALUE", "TYPE_MISMATCH", "MISSING_UNION_BRANCH"}) {
    EXPECT_GE(kinds[k], 100) << k;
  }
  EXPECT_GE(compatible, 2000);
  EXPECT_GE(incompatible, 2000);
  for (const char* f : {"promotion",
                        "primitive changed",
                        "renamed type with alias",
                        "renamed type",
                        "namespace changed",
                        "renamed field with alias",
                        "renamed field",
                        "field added",
                        "field removed",
                        "field default toggled",
                        "enum default",
                        "enum symbol added",
                        "enum symbol removed",
                        "enum default toggled",
                        "fixed",
                        "fixed size changed",
                        "wrapped in a union",
                        "union unwrapped",
                        "union branch added",
                        "union branch removed",
                        "union of records",
                        "namesake records in a union",
                        "array",
                        "map",
                        "nested record",
                        "recursive record",
                        "logical type",
                        "logical type changed",
                        "error record (alt spelling)",
                        "unrelated alias",
                        "type replaced"}) {
    EXPECT_GE(features[f], 50) << f;
  }
  for (const char* s : {"_dotted", "_relative_aliases", "_errors"}) {
    EXPECT_GT(python_deviated[s], 0) << "python never deviates on spelling " << s;
  }
}

}  // namespace
}  // namespace sluice::dialects::avro
