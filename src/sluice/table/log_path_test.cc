#include "sluice/table/log_path.h"

#include <gtest/gtest.h>

namespace sluice::table {
namespace {

TEST(LogPath, NamesCommitsAndCheckpoints) {
  EXPECT_EQ(CommitFileName(7), "00000000000000000007.json");
  EXPECT_EQ(CheckpointFileName(10), "00000000000000000010.checkpoint.parquet");
  EXPECT_EQ(ChecksumFileName(3), "00000000000000000003.crc");
  EXPECT_EQ(LogFilePath("t", "_last_checkpoint"), "t/_delta_log/_last_checkpoint");
}

TEST(LogPath, ReadsEveryKindOfLogFile) {
  auto commit = ParseLogFileName("00000000000000000007.json");
  ASSERT_TRUE(commit);
  EXPECT_EQ(commit->kind, LogFileKind::kCommit);
  EXPECT_EQ(commit->version, 7);

  auto classic = ParseLogFileName("00000000000000000010.checkpoint.parquet");
  ASSERT_TRUE(classic);
  EXPECT_EQ(classic->kind, LogFileKind::kCheckpoint);

  auto multi = ParseLogFileName("00000000000000000010.checkpoint.0000000002.0000000003.parquet");
  ASSERT_TRUE(multi);
  EXPECT_EQ(multi->kind, LogFileKind::kMultiPartCheckpoint);
  EXPECT_EQ(multi->part, 2);
  EXPECT_EQ(multi->parts, 3);

  auto v2 =
      ParseLogFileName("00000000000000000010.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json");
  ASSERT_TRUE(v2);
  EXPECT_EQ(v2->kind, LogFileKind::kV2Checkpoint);
  EXPECT_EQ(v2->uuid, "80a083e8-7026-4e79-81be-64bd76c43a11");
  EXPECT_TRUE(v2->json);

  auto compacted = ParseLogFileName("00000000000000000004.00000000000000000006.compacted.json");
  ASSERT_TRUE(compacted);
  EXPECT_EQ(compacted->kind, LogFileKind::kCompactedCommits);
  EXPECT_EQ(compacted->end_version, 6);
}

TEST(LogPath, IgnoresWhatIsNoLogFile) {
  for (std::string_view name :
       {"_last_checkpoint", ".00000000000000000000.json.crc", "0000000000000000007.json",
        "00000000000000000007.json.tmp",
        "00000000000000000007.checkpoint.0000000004.0000000003.parquet",
        "99999999999999999999.json", "00000000000000000010.checkpoint.a.b.json", "_sidecars"}) {
    EXPECT_FALSE(ParseLogFileName(name)) << name;
  }
}

}  // namespace
}  // namespace sluice::table
