// The JSON-lines log target: one alert a line, appended durably.
#include "sluice/alert/senders_internal.h"

namespace sluice::alert::internal {

namespace {

SendResult Outcome(SendOutcome outcome, std::string detail) {
  SendResult r;
  r.outcome = outcome;
  r.detail = std::move(detail);
  return r;
}

}  // namespace

SendResult AppendToFile(FileSystem& fs, const std::string& path, const Message& message) {
  if (message.body.find('\n') != std::string::npos) {
    return Outcome(
        SendOutcome::kPermanent,
        "file:" + path + ": the alert is more than one line; a JSON-lines log needs one");
  }
  if (size_t slash = path.rfind('/'); slash != std::string::npos && slash > 0) {
    if (auto made = fs.CreateDirs(path.substr(0, slash)); !made.has_value()) {
      return Outcome(SendOutcome::kRetry, "file:" + path + ": " + made.error().message());
    }
  }
  uint64_t size = 0;
  auto info = fs.Stat(path);
  if (info.has_value()) {
    if (info->kind != FileKind::kFile) {
      return Outcome(SendOutcome::kPermanent, "file:" + path + ": not a regular file");
    }
    size = info->size;
  } else if (info.error().code() != ErrorCode::kNotFound) {
    return Outcome(SendOutcome::kRetry, "file:" + path + ": " + info.error().message());
  }
  // A file that does not end in a newline was cut mid-line (a crash outside sluice): start a new
  // line so the record stays whole.
  std::string line;
  if (size > 0) {
    auto file = fs.OpenRandomAccess(path);
    char last = '\n';
    if (file.has_value() && (*file)->ReadAt(size - 1, 1, &last).has_value() && last != '\n') {
      line = "\n";
    }
  }
  line += message.body;
  line += '\n';
  // AppendAt syncs before it returns: "delivered" means on disk.
  if (auto appended = fs.AppendAt(path, size, line); !appended.has_value()) {
    return Outcome(SendOutcome::kRetry, "file:" + path + ": " + appended.error().message());
  }
  return Outcome(SendOutcome::kDelivered, "file:" + path + ": appended");
}

}  // namespace sluice::alert::internal
