// Golden conversions of the bundled examples (tests/golden/cases.txt): the exact text every
// output format produces, and the notes it prints. A change to any dialect's output shows up
// here as a readable diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "e2e/run.h"
#include "sluice_test_paths.h"

namespace sluice::e2e {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct GoldenCase {
  std::string file;
  std::string format;
};

std::vector<GoldenCase> LoadCases() {
  std::vector<GoldenCase> out;
  std::ifstream in(fs::path(SLUICE_SOURCE_DIR) / "tests/golden/cases.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    GoldenCase c;
    ss >> c.file >> c.format;
    out.push_back(c);
  }
  return out;
}

TEST(GoldenTest, ConversionsOfTheExamplesMatchTheirGoldenFiles) {
  std::vector<GoldenCase> cases = LoadCases();
  ASSERT_GE(cases.size(), 20u);
  bool update = std::getenv("SLUICE_UPDATE_GOLDEN") != nullptr;
  for (const auto& c : cases) {
    RunResult r = RunSluice({"schema", "convert", c.file, "--to", c.format});
    ASSERT_EQ(r.exit_code, 0) << c.file << " --to " << c.format << ": " << r.err;
    fs::path base = fs::path(SLUICE_SOURCE_DIR) / "tests/golden" /
                    (fs::path(c.file).filename().string() + "." + c.format);
    fs::path notes = base.string() + ".notes";
    if (update) {
      std::ofstream(base, std::ios::binary) << r.out;
      if (r.err.empty()) {
        fs::remove(notes);
      } else {
        std::ofstream(notes, std::ios::binary) << r.err;
      }
      continue;
    }
    ASSERT_TRUE(fs::exists(base)) << base << " is missing; run with SLUICE_UPDATE_GOLDEN=1";
    EXPECT_EQ(r.out, Slurp(base)) << c.file << " --to " << c.format;
    EXPECT_EQ(r.err, fs::exists(notes) ? Slurp(notes) : "") << c.file << " --to " << c.format;
  }
}

}  // namespace
}  // namespace sluice::e2e
