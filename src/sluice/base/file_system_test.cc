#include "sluice/base/file_system.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace sluice {
namespace {

// Each implementation must behave the same; the test body runs against both.
void ExerciseFileSystem(FileSystem& fs, const std::string& root) {
  ASSERT_TRUE(fs.CreateDirs(root + "/d/e").has_value());
  ASSERT_TRUE(fs.WriteFile(root + "/d/a.txt", "one").has_value());
  ASSERT_TRUE(fs.WriteFile(root + "/d/a.txt", "two").has_value());
  auto r = fs.ReadFile(root + "/d/a.txt");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, "two");

  auto missing = fs.ReadFile(root + "/d/none");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);

  ASSERT_TRUE(fs.CreateFileExclusive(root + "/d/b.txt", "x").has_value());
  auto again = fs.CreateFileExclusive(root + "/d/b.txt", "y");
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().code(), ErrorCode::kAlreadyExists);
  EXPECT_EQ(*fs.ReadFile(root + "/d/b.txt"), "x");

  auto big = fs.ReadFile(root + "/d/a.txt", 2);
  ASSERT_FALSE(big.has_value());
  EXPECT_EQ(big.error().code(), ErrorCode::kInvalidArgument);

  auto names = fs.ListDir(root + "/d");
  ASSERT_TRUE(names.has_value());
  EXPECT_NE(std::find(names->begin(), names->end(), "a.txt"), names->end());
  EXPECT_NE(std::find(names->begin(), names->end(), "b.txt"), names->end());

  EXPECT_TRUE(*fs.Exists(root + "/d/a.txt"));
  ASSERT_TRUE(fs.RemoveFile(root + "/d/a.txt").has_value());
  EXPECT_FALSE(*fs.Exists(root + "/d/a.txt"));
}

TEST(FileSystemTest, MemoryFileSystem) {
  MemoryFileSystem fs;
  ExerciseFileSystem(fs, "/mem");
}

TEST(FileSystemTest, LocalFileSystem) {
  std::string root = std::filesystem::temp_directory_path() /
                     ("sluice_fs_test_" + std::to_string(::getpid()));
  auto fs = NewLocalFileSystem();
  ExerciseFileSystem(*fs, root);
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace sluice
