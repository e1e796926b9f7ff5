// The ingest endpoints: the configured checkpoints, their last batches' reports (kept in the
// checkpoint database) and the last lines of their quarantine files.
#include <algorithm>
#include <utility>

#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/ingest/checkpoint.h"
#include "sluice/ui/api_internal.h"

namespace sluice::ui::internal {
namespace {

using registry::HttpResponse;

// Only the end of a quarantine file is read: it grows for as long as the ingest runs.
constexpr uint64_t kQuarantineTailBytes = 4u << 20;

const NamedPath* FindIngest(const UiOptions& options, const ApiRequest& request) {
  return FindNamed(options.ingest, request.segments[1]);
}

// The last `n` complete lines that are JSON, oldest first.
Result<std::vector<std::string>> TailLines(FileSystem& fs, const std::string& path, size_t n) {
  SLUICE_ASSIGN_OR_RETURN(auto file, fs.OpenRandomAccess(path));
  const uint64_t size = file->size();
  const uint64_t start = size > kQuarantineTailBytes ? size - kQuarantineTailBytes : 0;
  std::string text(static_cast<size_t>(size - start), '\0');
  SLUICE_ASSIGN_OR_RETURN(size_t got, file->ReadAt(start, text.size(), text.data()));
  text.resize(got);
  // A tail that starts mid-line drops that partial line.
  size_t begin = 0;
  if (start > 0) begin = text.find('\n') == std::string::npos ? text.size() : text.find('\n') + 1;
  std::vector<std::string> lines;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) break;  // a line still being written
    std::string_view line(text.data() + begin, end - begin);
    if (!line.empty() && ParseJson(line).has_value()) lines.emplace_back(line);
    begin = end + 1;
  }
  if (lines.size() > n) lines.erase(lines.begin(), lines.end() - static_cast<ptrdiff_t>(n));
  return lines;
}

}  // namespace

HttpResponse IngestList(const UiOptions& options, const ApiRequest& request) {
  if (!MayRead(request.user)) return ApiError(403, 40301, "User is denied read access");
  JsonWriter w;
  w.BeginArray();
  for (const NamedPath& i : options.ingest) {
    w.BeginObject().Key("name").String(i.name).Key("path").String(i.path);
    auto summary = ingest::ReadCheckpoint(i.path, 0);
    if (summary.has_value()) {
      w.Key("source").String(summary->identity.source);
      w.Key("table").String(summary->identity.table);
      w.Key("kind").String(summary->identity.kind);
    } else {
      w.Key("source").Null().Key("table").Null();
      w.Key("error").String(summary.error().message());
    }
    w.EndObject();
  }
  w.EndArray();
  return Json(200, w.Take());
}

HttpResponse IngestBatches(const UiOptions& options, const ApiRequest& request) {
  if (!MayRead(request.user)) return ApiError(403, 40301, "User is denied read access");
  const NamedPath* i = FindIngest(options, request);
  if (!i) return NotFound("Ingest '" + request.segments[1] + "' not found.");
  auto limit = request.Count("limit", 50, 1000);
  if (!limit) return ApiError(422, 42202, "limit must be a count");
  auto summary = ingest::ReadCheckpoint(i->path, static_cast<size_t>(*limit));
  if (!summary.has_value()) return FromError(summary.error());
  JsonWriter w;
  w.BeginObject().Key("batches").BeginArray();
  for (const std::string& report : summary->reports) {
    if (ParseJson(report).has_value()) w.Raw(report);
  }
  w.EndArray().EndObject();
  return Json(200, w.Take());
}

HttpResponse IngestQuarantine(const UiOptions& options, const ApiRequest& request) {
  if (!MayRead(request.user)) return ApiError(403, 40301, "User is denied read access");
  const NamedPath* i = FindIngest(options, request);
  if (!i) return NotFound("Ingest '" + request.segments[1] + "' not found.");
  auto limit = request.Count("limit", 20, 1000);
  if (!limit) return ApiError(422, 42202, "limit must be a count");
  // `sluice ingest`'s default quarantine file, beside the checkpoint database.
  const std::string path = i->path + "/quarantine.jsonl";
  JsonWriter w;
  w.BeginObject().Key("samples").BeginArray();
  auto exists = options.fs->Exists(path);
  if (exists.has_value() && *exists) {
    auto lines = TailLines(*options.fs, path, static_cast<size_t>(*limit));
    if (!lines.has_value()) return FromError(lines.error());
    for (const std::string& line : *lines) w.Raw(line);
  }
  w.EndArray().EndObject();
  return Json(200, w.Take());
}

}  // namespace sluice::ui::internal
