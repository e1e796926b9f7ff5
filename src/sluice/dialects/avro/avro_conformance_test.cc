// Runs Apache Avro's Parsing Canonical Form vectors (share/test/data/schema-tests.txt) from the
// shared conformance folder. Skips when the folder is absent.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "sluice/base/strings.h"
#include "sluice/dialects/avro/avro_schema.h"
#include "sluice_test_paths.h"

namespace sluice::dialects::avro {
namespace {

constexpr const char* kCasesFile =
    SLUICE_SHARED_DIR "/conformance/avro-canonical-form-cases/schema-tests.txt";

struct CanonicalCase {
  int line = 0;
  std::string input;
  std::optional<std::string> canonical;
  std::optional<std::string> fingerprint;
};

// The file's format (Java's CaseFinder): `<<LABEL text` is a one-line value; `<<LABEL` alone
// starts a value that runs until a line holding just LABEL. Every INPUT opens a case; lines
// starting with "//" or "#" outside values are comments.
std::optional<std::vector<CanonicalCase>> LoadCases() {
  std::ifstream in(kCasesFile);
  if (!in) return std::nullopt;
  std::vector<CanonicalCase> cases;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!StartsWith(line, "<<")) continue;
    size_t space = line.find(' ');
    std::string label = line.substr(2, space == std::string::npos ? std::string::npos : space - 2);
    std::string value;
    if (space != std::string::npos) {
      value = std::string(TrimWhitespace(std::string_view(line).substr(space + 1)));
    } else {
      std::string body;
      while (std::getline(in, line)) {
        ++number;
        if (line == label) break;
        body += line + "\n";
      }
      value = std::string(TrimWhitespace(body));
    }
    if (label == "INPUT") {
      cases.push_back(CanonicalCase{number, value, std::nullopt, std::nullopt});
    } else if (!cases.empty() && label == "canonical") {
      cases.back().canonical = value;
    } else if (!cases.empty() && label == "fingerprint") {
      cases.back().fingerprint = value;
    }
  }
  return cases;
}

TEST(AvroConformanceTest, ParsingCanonicalFormAndFingerprintsMatchApacheAvro) {
  auto cases = LoadCases();
  if (!cases) GTEST_SKIP() << "no conformance file at " << kCasesFile;
  // 34 runnable cases; the file's 35th `<<INPUT` is commented out (a fixed size written 015,
  // which is not JSON) and is checked below.
  EXPECT_EQ(cases->size(), 34u);
  int fingerprints = 0;
  for (const CanonicalCase& c : *cases) {
    SCOPED_TRACE("case at line " + std::to_string(c.line) + ": " + c.input);
    ASSERT_TRUE(c.canonical.has_value());
    auto parsed = Parse(c.input);
    ASSERT_TRUE(parsed.has_value()) << parsed.error().ToString();
    EXPECT_EQ(ParsingCanonicalForm(*parsed), *c.canonical);
    if (c.fingerprint) {
      ++fingerprints;
      EXPECT_EQ(std::to_string(static_cast<int64_t>(Crc64Fingerprint(*parsed))), *c.fingerprint);
    }
    // The full form describes the same schema.
    auto again = Parse(WriteJson(*parsed, 2));
    ASSERT_TRUE(again.has_value()) << again.error().ToString();
    EXPECT_EQ(ParsingCanonicalForm(*again), *c.canonical);
  }
  EXPECT_EQ(fingerprints, 26);
}

TEST(AvroConformanceTest, CommentedOutCaseWithLeadingZeroIsRejected) {
  // "// <<INPUT {"type":"fixed", "name":"foo", "size":015} -- Avro parser broken???": JSON does
  // not allow leading zeros, so this is a parse error, not a fixed of size 15.
  auto parsed = Parse(R"({"type":"fixed", "name":"foo", "size":015})");
  ASSERT_FALSE(parsed.has_value());
  EXPECT_EQ(parsed.error().code(), ErrorCode::kParseError);
}

}  // namespace
}  // namespace sluice::dialects::avro
