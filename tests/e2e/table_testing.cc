#include "e2e/table_testing.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "sluice_test_paths.h"

namespace sluice::e2e {

namespace fs = std::filesystem;

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string FreshFolder(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("sluice_table_e2e_" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

std::string WriteText(const std::string& dir, const std::string& name, const std::string& text) {
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string CommitText(const std::string& table, int version) {
  char name[32];
  std::snprintf(name, sizeof(name), "%020d.json", version);
  return ReadText(table + "/_delta_log/" + name);
}

std::string CheckTableIndependently(const std::string& table) {
  fs::path checker = fs::path(SLUICE_SOURCE_DIR) / "tests/table/delta_check.mjs";
  fs::path modules = fs::path(SLUICE_SOURCE_DIR) / "tests/parquet/node_modules/@duckdb";
  if (!fs::exists(modules) || std::system("command -v node >/dev/null 2>&1") != 0) return "";
  std::string out = table + ".check.json";
  std::string cmd = "node '" + checker.string() + "' '" + table + "' > '" + out + "' 2>&1";
  return std::system(cmd.c_str()) == 0 ? "" : ReadText(out);
}

}  // namespace sluice::e2e
