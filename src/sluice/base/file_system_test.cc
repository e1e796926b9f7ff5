#include "sluice/base/file_system.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "sluice/base/std_io.h"
#include "sluice/base/temp_dir_testing.h"

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

void ExerciseStreams(FileSystem& fs, const std::string& root) {
  ASSERT_TRUE(fs.CreateDirs(root + "/s").has_value());
  std::string path = root + "/s/out.jsonl";
  {
    auto w = fs.OpenWritable(path, {.sync = false});
    ASSERT_TRUE(w.has_value());
    ASSERT_TRUE((*w)->Write("abc").has_value());
    ASSERT_TRUE((*w)->Write(std::string(200000, 'x')).has_value());
    // Nothing appears under the name before Commit.
    EXPECT_FALSE(*fs.Exists(path));
    ASSERT_TRUE((*w)->Commit().has_value());
  }
  auto info = fs.Stat(path);
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->kind, FileKind::kFile);
  EXPECT_EQ(info->size, 200003u);
  EXPECT_GT(info->modified_ms, 1600000000000);

  {
    // Abandoned: the old content stays, no temporary file is left behind.
    auto w = fs.OpenWritable(path);
    ASSERT_TRUE(w.has_value());
    ASSERT_TRUE((*w)->Write("partial").has_value());
  }
  EXPECT_EQ(fs.ReadFile(path)->size(), 200003u);
  EXPECT_EQ(*fs.ListDir(root + "/s"), std::vector<std::string>{"out.jsonl"});

  auto seq = fs.OpenSequential(path);
  ASSERT_TRUE(seq.has_value());
  EXPECT_EQ((*seq)->size(), std::optional<uint64_t>(200003));
  std::string all;
  char buf[4096];
  while (true) {
    auto n = (*seq)->Read(buf, sizeof buf);
    ASSERT_TRUE(n.has_value());
    if (*n == 0) break;
    all.append(buf, *n);
  }
  EXPECT_EQ(all.substr(0, 4), "abcx");
  EXPECT_EQ(all.size(), 200003u);

  auto ra = fs.OpenRandomAccess(path);
  ASSERT_TRUE(ra.has_value());
  EXPECT_EQ((*ra)->size(), 200003u);
  char two[2];
  ASSERT_EQ(*(*ra)->ReadAt(1, 2, two), 2u);
  EXPECT_EQ(std::string_view(two, 2), "bc");
  ASSERT_EQ(*(*ra)->ReadAt(200002, 2, two), 1u);
  EXPECT_EQ(*(*ra)->ReadAt(300000, 2, two), 0u);
  auto mapped = (*ra)->Mapped();
  ASSERT_TRUE(mapped.has_value());
  EXPECT_EQ(*mapped, all);

  ASSERT_TRUE(fs.CreateDirs(root + "/s/sub").has_value());
  ASSERT_TRUE(fs.WriteFile(root + "/s/sub/x", "12").has_value());
  auto listing = fs.ListFiles(root + "/s");
  ASSERT_TRUE(listing.has_value());
  ASSERT_EQ(listing->size(), 2u);
  EXPECT_EQ((*listing)[0].name, "out.jsonl");
  EXPECT_EQ((*listing)[0].size, 200003u);
  EXPECT_EQ((*listing)[1].name, "sub");
  EXPECT_EQ((*listing)[1].kind, FileKind::kDirectory);
  EXPECT_EQ(fs.Stat(root + "/s/sub")->kind, FileKind::kDirectory);
  EXPECT_EQ(fs.Stat(root + "/s/none").error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(fs.OpenSequential(root + "/s/none").error().code(), ErrorCode::kNotFound);

  ASSERT_TRUE(fs.Rename(root + "/s/sub/x", root + "/s/y").has_value());
  EXPECT_EQ(*fs.ReadFile(root + "/s/y"), "12");
  EXPECT_FALSE(*fs.Exists(root + "/s/sub/x"));
  EXPECT_EQ(fs.Rename(root + "/s/none", root + "/s/z").error().code(), ErrorCode::kNotFound);
}

// Of many writers racing to create one name, exactly one wins: the commit primitive of logs.
void ExerciseExclusiveRace(FileSystem& fs, const std::string& root) {
  ASSERT_TRUE(fs.CreateDirs(root + "/race").has_value());
  std::atomic<int> wins{0};
  std::atomic<int> losses{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      auto st = fs.CreateFileExclusive(root + "/race/00000001.json", std::to_string(t));
      if (st.has_value()) {
        ++wins;
      } else if (st.error().code() == ErrorCode::kAlreadyExists) {
        ++losses;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wins.load(), 1);
  EXPECT_EQ(losses.load(), 7);
  EXPECT_EQ(*fs.ListDir(root + "/race"), std::vector<std::string>{"00000001.json"});
}

// AppendAt cuts to the offset and appends: redoing an append cut short gives the same file.
void ExerciseAppendAt(FileSystem& fs, const std::string& root) {
  ASSERT_TRUE(fs.CreateDirs(root + "/log").has_value());
  const std::string path = root + "/log/q.jsonl";
  ASSERT_TRUE(fs.AppendAt(path, 0, "a\n").has_value());
  ASSERT_TRUE(fs.AppendAt(path, 2, "b\n").has_value());
  EXPECT_EQ(*fs.ReadFile(path), "a\nb\n");
  // The second append again, as after a crash before its end was recorded.
  ASSERT_TRUE(fs.AppendAt(path, 2, "b\n").has_value());
  EXPECT_EQ(*fs.ReadFile(path), "a\nb\n");
  EXPECT_EQ(fs.AppendAt(path, 99, "c").error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(*fs.ReadFile(path), "a\nb\n");
}

TEST(FileSystemTest, MemoryFileSystem) {
  MemoryFileSystem fs;
  ExerciseFileSystem(fs, "/mem");
  ExerciseStreams(fs, "/mem");
  ExerciseExclusiveRace(fs, "/mem");
  ExerciseAppendAt(fs, "/mem");
  ASSERT_TRUE(fs.SetModifiedTime("/mem/s/y", 42).has_value());
  EXPECT_EQ(fs.Stat("/mem/s/y")->modified_ms, 42);
}

TEST(FileSystemTest, LocalFileSystem) {
  std::string root =
      std::filesystem::temp_directory_path() / ("sluice_fs_test_" + std::to_string(::getpid()));
  auto fs = NewLocalFileSystem();
  ExerciseFileSystem(*fs, root);
  ExerciseStreams(*fs, root);
  ExerciseExclusiveRace(*fs, root);
  ExerciseAppendAt(*fs, root);
  std::filesystem::remove_all(root);
}

// Writing to a device writes through it; renaming over /dev/null would replace the device.
TEST(FileSystemTest, LocalDevicesAreWrittenInPlace) {
  auto& fs = *LocalFileSystem();
  ASSERT_TRUE(fs.WriteFile("/dev/null", "discarded").has_value());
  auto w = fs.OpenWritable("/dev/null");
  ASSERT_TRUE(w.has_value());
  ASSERT_TRUE((*w)->Write("discarded").has_value());
  ASSERT_TRUE((*w)->Commit().has_value());
  EXPECT_EQ(fs.Stat("/dev/null")->kind, FileKind::kOther);
}

// A link to a descriptor (/dev/stdout is one: /proc/self/fd/1) is written through: the bytes
// reach the descriptor's file and the link stays a link.
TEST(FileSystemTest, LocalDescriptorLinksAreWrittenInPlace) {
  testing::ScopedTempDir dir;
  const std::string captured = dir.File("captured.txt");
  FILE* sink = std::fopen(captured.c_str(), "w");
  ASSERT_NE(sink, nullptr);
  const std::string link = dir.File("out");
  std::filesystem::create_symlink("/proc/self/fd/" + std::to_string(::fileno(sink)), link);
  auto& fs = *LocalFileSystem();
  ASSERT_TRUE(fs.WriteFile(link, "one\n").has_value());
  auto w = fs.OpenWritable(link);
  ASSERT_TRUE(w.has_value());
  ASSERT_TRUE((*w)->Write("two\n").has_value());
  ASSERT_TRUE((*w)->Commit().has_value());
  std::fclose(sink);
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(*fs.ReadFile(captured), "one\ntwo\n");
}

// A link to a regular file: the file it names is replaced (atomically, as any file), the link
// is kept.
TEST(FileSystemTest, LocalLinksToFilesKeepTheLink) {
  testing::ScopedTempDir dir;
  auto& fs = *LocalFileSystem();
  ASSERT_TRUE(fs.CreateDirs(dir.File("real")).has_value());
  const std::string real = dir.File("real/data.txt");
  ASSERT_TRUE(fs.WriteFile(real, "old").has_value());
  const std::string link = dir.File("link.txt");
  std::filesystem::create_symlink("real/data.txt", link);  // relative, as ln -s makes them
  ASSERT_TRUE(fs.WriteFile(link, "new").has_value());
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(*fs.ReadFile(real), "new");
  auto w = fs.OpenWritable(link);
  ASSERT_TRUE(w.has_value());
  ASSERT_TRUE((*w)->Write("newer").has_value());
  ASSERT_TRUE((*w)->Commit().has_value());
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(*fs.ReadFile(real), "newer");
  // Nothing left beside either name.
  size_t entries = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path())) {
    entries += e.is_regular_file() || e.is_symlink();
  }
  EXPECT_EQ(entries, 2u);
}

TEST(FileSystemTest, LocalFolderIsNotAFile) {
  auto& fs = *LocalFileSystem();
  std::string dir = std::filesystem::temp_directory_path().string();
  EXPECT_EQ(fs.ReadFile(dir).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(fs.OpenSequential(dir).error().code(), ErrorCode::kInvalidArgument);
}

TEST(StdIoTest, ReadInputAndPeekGoThroughTheFileSystem) {
  MemoryFileSystem fs;
  ASSERT_TRUE(fs.WriteFile("/in/a.jsonl", "{\"a\":1}\n").has_value());
  EXPECT_EQ(*ReadInput(fs, "/in/a.jsonl", 100), "{\"a\":1}\n");
  EXPECT_EQ(ReadInput(fs, "/in/a.jsonl", 3).error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(PeekFile(fs, "/in/a.jsonl", 2), "{\"");
  EXPECT_EQ(PeekFile(fs, "/in/none", 2), "");
  ASSERT_TRUE(WriteOutput(fs, "/out/r.json", "{}").has_value());
  EXPECT_EQ(*fs.ReadFile("/out/r.json"), "{}");
  auto w = OpenOutput(fs, "/out/v.jsonl");
  ASSERT_TRUE(w.has_value());
  ASSERT_TRUE((*w)->Write("x").has_value());
  ASSERT_TRUE((*w)->Commit().has_value());
  EXPECT_EQ(*fs.ReadFile("/out/v.jsonl"), "x");
}

}  // namespace
}  // namespace sluice
