// The Delta log benchmark's sluice side (bench/table): build a table of N commits (one small
// add each, a checkpoint every 10 as sluice writes them) under a folder, then time loading its
// latest snapshot from a cold process-level start (listing, _last_checkpoint's checkpoint, the
// commits after it).
//
//   bench_table_log build DIR N      write the table through transactions, a checkpoint every
//                                    10 (prints the seconds it took)
//   bench_table_log lay DIR N        the same log laid down directly: the commits sluice's
//                                    transactions write, and the newest checkpoint (seconds)
//   bench_table_log load DIR RUNS    load the latest snapshot RUNS times; prints
//                                    "BEST_MS MEDIAN_MS VERSION FILES"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sluice/table/checkpoint.h"
#include "sluice/table/snapshot.h"
#include "sluice/table/transaction.h"

namespace {

using Clock = std::chrono::steady_clock;

int Build(const std::string& dir, int n) {
  auto fs = sluice::LocalFileSystem();
  auto start = Clock::now();
  for (int i = 0; i < n; ++i) {
    auto txn = sluice::table::Transaction::Begin(fs, dir);
    if (!txn.has_value()) {
      std::fprintf(stderr, "%s\n", txn.error().ToString().c_str());
      return 2;
    }
    if (i == 0) {
      sluice::table::Metadata m;
      m.id = sluice::table::RandomUuid();
      m.schema_string =
          R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";
      txn->SetProtocol(sluice::table::Protocol{});
      txn->SetMetadata(m);
    }
    sluice::table::AddFile add;
    add.path = "part-" + std::to_string(i) + ".parquet";
    add.size = 1000 + i;
    add.modification_time = 1;
    add.stats =
        R"({"numRecords":10,"minValues":{"id":1},"maxValues":{"id":10},"nullCount":{"id":0}})";
    txn->AddFile(add);
    auto done = txn->Commit();
    if (!done.has_value()) {
      std::fprintf(stderr, "%s\n", done.error().ToString().c_str());
      return 2;
    }
  }
  std::printf("%.3f\n", std::chrono::duration<double>(Clock::now() - start).count());
  return 0;
}

// The same table as Build, without a transaction per commit: each commit's actions written as
// Transaction::Commit writes them, then the checkpoint of the newest multiple of 10.
int Lay(const std::string& dir, int n) {
  auto fs = sluice::LocalFileSystem();
  auto start = Clock::now();
  (void)fs->CreateDirs(sluice::table::LogDirPath(dir));
  for (int i = 0; i < n; ++i) {
    std::vector<sluice::table::Action> actions;
    sluice::JsonValue info = sluice::JsonValue::Object();
    info.Set("timestamp", sluice::JsonValue::Int(1700000000000 + i));
    info.Set("operation", sluice::JsonValue::String("WRITE"));
    actions.push_back(sluice::table::CommitInfo{std::move(info)});
    if (i == 0) {
      sluice::table::Metadata m;
      m.id = sluice::table::RandomUuid();
      m.schema_string =
          R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";
      actions.push_back(sluice::table::Protocol{});
      actions.push_back(m);
    }
    sluice::table::AddFile add;
    add.path = "part-" + std::to_string(i) + ".parquet";
    add.size = 1000 + i;
    add.modification_time = 1;
    add.stats =
        R"({"numRecords":10,"minValues":{"id":1},"maxValues":{"id":10},"nullCount":{"id":0}})";
    actions.push_back(add);
    auto put =
        fs->CreateFileExclusive(sluice::table::LogFilePath(dir, sluice::table::CommitFileName(i)),
                                sluice::table::CommitText(actions));
    if (!put.has_value()) {
      std::fprintf(stderr, "%s\n", put.error().ToString().c_str());
      return 2;
    }
  }
  int64_t last = ((n - 1) / 10) * 10;
  if (last > 0) {
    auto cp = sluice::table::WriteCheckpointAt(*fs, dir, last);
    if (!cp.has_value()) {
      std::fprintf(stderr, "%s\n", cp.error().ToString().c_str());
      return 2;
    }
  }
  std::printf("%.3f\n", std::chrono::duration<double>(Clock::now() - start).count());
  return 0;
}

int Load(const std::string& dir, int runs) {
  auto fs = sluice::LocalFileSystem();
  std::vector<double> ms;
  int64_t version = -1;
  size_t files = 0;
  for (int i = 0; i < runs; ++i) {
    auto start = Clock::now();
    auto s = sluice::table::LoadSnapshot(*fs, dir);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    if (!s.has_value()) {
      std::fprintf(stderr, "%s\n", s.error().ToString().c_str());
      return 2;
    }
    version = s->version;
    files = s->files.size();
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%.2f %.2f %lld %zu\n", ms.front(), ms[ms.size() / 2],
              static_cast<long long>(version), files);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: bench_table_log build|lay DIR N | load DIR RUNS\n");
    return 2;
  }
  std::string mode = argv[1];
  int n = std::atoi(argv[3]);
  if (mode == "build") return Build(argv[2], n);
  if (mode == "load") return Load(argv[2], n);
  if (mode == "lay") return Lay(argv[2], n);
  std::fprintf(stderr, "usage: bench_table_log build|lay DIR N | load DIR RUNS\n");
  return 2;
}
