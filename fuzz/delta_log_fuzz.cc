// Fuzz a Delta table's log: the input is split at the first 0xFF byte into a commit file (version
// 0) and a second one (version 1), both put in a MemoryFileSystem table, which is then loaded.
//
// What a user relies on:
//  * a log loads to a snapshot or fails with an error, never a crash or a hang, whatever the
//    bytes;
//  * a commit that parses writes back to text that parses to the same actions;
//  * a snapshot that loads has a protocol sluice can read and a schema that parsed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sluice/base/file_system.h"
#include "sluice/table/actions.h"
#include "sluice/table/protocol.h"
#include "sluice/table/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t split = input.find('\xff');
  std::string_view first = input.substr(0, split);
  std::string_view second = split == std::string_view::npos ? "" : input.substr(split + 1);

  auto parsed = sluice::table::ParseCommit(first, "0.json");
  if (parsed.has_value()) {
    std::string again = sluice::table::CommitText(*parsed);
    auto reparsed = sluice::table::ParseCommit(again, "again");
    if (!reparsed.has_value() || reparsed->size() != parsed->size()) std::abort();
    if (sluice::table::CommitText(*reparsed) != again) std::abort();
  }

  sluice::MemoryFileSystem fs;
  (void)fs.WriteFile("t/_delta_log/00000000000000000000.json", first);
  if (!second.empty()) (void)fs.WriteFile("t/_delta_log/00000000000000000001.json", second);
  auto snapshot = sluice::table::LoadSnapshot(fs, "t");
  if (snapshot.has_value()) {
    if (!sluice::table::CheckReadable(snapshot->protocol).has_value()) std::abort();
    if (snapshot->schema == nullptr) std::abort();
  }
  return 0;
}
