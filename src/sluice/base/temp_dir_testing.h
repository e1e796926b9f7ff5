// For tests: a fresh folder under the system's temporary directory, removed with everything in
// it when the object goes. The name holds a prefix, the running test's name and a random part,
// so parallel test processes and repeated runs never share one.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace sluice::testing {

class ScopedTempDir {
 public:
  explicit ScopedTempDir(std::string_view prefix = "sluice") {
    std::string name(prefix);
    if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info()) {
      name += "_";
      name += info->name();
    }
    for (char& c : name) {
      if (c == '/') c = '_';  // parameterised test names hold slashes
    }
    std::string tmpl = (std::filesystem::temp_directory_path() / (name + "-XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
    EXPECT_FALSE(path_.empty()) << "cannot create a folder like " << tmpl;
  }
  ~ScopedTempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// `name` inside the folder, as a string.
  std::string File(std::string_view name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace sluice::testing
