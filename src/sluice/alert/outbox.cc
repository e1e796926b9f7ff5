#include "sluice/alert/outbox.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <random>

#include "sluice/alert/outbox_internal.h"
#include "sluice/base/strings.h"

namespace sluice::alert {

namespace internal {

int64_t WallClockMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

namespace {

std::string HostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

}  // namespace

std::string OwnerToken() {
  std::random_device rd;
  return HostName() + " " + std::to_string(::getpid()) + " " + std::to_string(rd());
}

bool OwnerIsDead(std::string_view owner) {
  auto parts = SplitString(owner, ' ');
  if (parts.size() != 3 || parts[0] != HostName()) return false;
  pid_t pid = 0;
  for (char c : parts[1]) {
    if (c < '0' || c > '9') return false;
    pid = pid * 10 + (c - '0');
  }
  if (pid <= 0) return false;
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

}  // namespace internal

using internal::Row;

namespace {

constexpr const char* kSchema[] = {
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "INSERT OR IGNORE INTO meta(key, value) VALUES('format', '1')",
    "CREATE TABLE IF NOT EXISTS deliveries("
    "id INTEGER PRIMARY KEY AUTOINCREMENT, "
    "source TEXT NOT NULL, old_fp TEXT NOT NULL, new_fp TEXT NOT NULL, "
    "target_spec TEXT NOT NULL, secret_env TEXT NOT NULL DEFAULT '', "
    "secret_file TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL, "
    "message_id TEXT NOT NULL, content_type TEXT NOT NULL, subject TEXT NOT NULL, "
    "body TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'pending', "
    "attempts INTEGER NOT NULL DEFAULT 0, created_ms INTEGER NOT NULL, "
    "next_attempt_ms INTEGER NOT NULL, delivered_ms INTEGER NOT NULL DEFAULT 0, "
    "last_error TEXT NOT NULL DEFAULT '', claimed_until INTEGER NOT NULL DEFAULT 0, "
    "claimed_by TEXT NOT NULL DEFAULT '', "
    "UNIQUE(source, old_fp, new_fp, target_spec))",
    "CREATE INDEX IF NOT EXISTS deliveries_queue ON deliveries(state, source, target_spec, id)",
    // The last send to each target, across processes: the rate limit.
    "CREATE TABLE IF NOT EXISTS targets(spec TEXT PRIMARY KEY, last_send_ms INTEGER NOT NULL)",
};

DeliveryState StateOf(const std::string& s) {
  if (s == "delivered") return DeliveryState::kDelivered;
  if (s == "failed") return DeliveryState::kFailed;
  return DeliveryState::kPending;
}

int64_t ToInt(const std::optional<std::string>& v) { return v ? std::stoll(*v) : 0; }

}  // namespace

std::string_view DeliveryStateName(DeliveryState state) {
  switch (state) {
    case DeliveryState::kPending:
      return "pending";
    case DeliveryState::kDelivered:
      return "delivered";
    case DeliveryState::kFailed:
      return "failed";
  }
  return "pending";
}

Outbox::Outbox(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Outbox::~Outbox() = default;

Result<std::unique_ptr<Outbox>> Outbox::Open(const std::string& path) {
  // Several processes may deliver from one outbox: wait for each other's short transactions.
  SLUICE_ASSIGN_OR_RETURN(
      auto opened, SqliteDb::Open(path, "the alert outbox", SqliteDb::Mode::kDurable, 30000));
  auto impl = std::make_unique<Impl>(std::move(opened));
  internal::Db& db = *impl->db;
  SLUICE_TRY(db.InTransaction([&]() -> Status {
    for (const char* s : kSchema) SLUICE_TRY(db.Exec(s));
    SLUICE_ASSIGN_OR_RETURN(auto rows, db.Query("SELECT value FROM meta WHERE key = 'format'"));
    std::string format = rows.size() == 1 ? rows[0][0].value_or("") : "";
    if (format != "1") {
      return Fail(ErrorCode::kIncompatible, "the alert outbox " + path + " has format '" + format +
                                                "', which this sluice does not read");
    }
    return Ok();
  }));
  return std::unique_ptr<Outbox>(new Outbox(std::move(impl)));
}

Result<int> Outbox::Enqueue(const AlertKey& key, const std::vector<OutboxItem>& items,
                            int64_t now_ms) {
  int stored = 0;
  internal::Db& db = *impl_->db;
  SLUICE_TRY(db.InTransaction([&]() -> Status {
    for (const OutboxItem& item : items) {
      const std::string spec = item.target.Spec();
      const Message& m = item.message;
      SLUICE_TRY(db.Exec(
          "INSERT INTO deliveries(source, old_fp, new_fp, target_spec, secret_env, secret_file, "
          "kind, message_id, content_type, subject, body, created_ms, next_attempt_ms) "
          "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
          "ON CONFLICT(source, old_fp, new_fp, target_spec) DO NOTHING",
          {key.source, key.old_fingerprint, key.new_fingerprint, spec, item.target.secret_env,
           item.target.secret_file, TargetKindName(item.target.kind), m.id, m.content_type,
           m.subject, m.body, now_ms, now_ms}));
      stored += db.Changes();
    }
    return Ok();
  }));
  return stored;
}

Result<std::vector<OutboxEntry>> Outbox::List(int limit) {
  SLUICE_ASSIGN_OR_RETURN(
      auto rows, impl_->db->Query(
                     "SELECT id, source, old_fp, new_fp, target_spec, kind, state, attempts, "
                     "created_ms, next_attempt_ms, delivered_ms, last_error, subject, message_id, "
                     "content_type, body FROM deliveries ORDER BY id DESC LIMIT ?",
                     {int64_t{limit}}));
  std::vector<OutboxEntry> out;
  for (const Row& r : rows) {
    OutboxEntry e;
    e.id = ToInt(r[0]);
    e.key = AlertKey{r[1].value_or(""), r[2].value_or(""), r[3].value_or("")};
    auto target = ParseTarget(r[4].value_or(""));
    e.target = target.has_value() ? target->Display() : r[5].value_or("") + ":<unreadable>";
    e.kind = r[5].value_or("");
    e.state = StateOf(r[6].value_or(""));
    e.attempts = static_cast<int>(ToInt(r[7]));
    e.created_ms = ToInt(r[8]);
    e.next_attempt_ms = e.state == DeliveryState::kPending ? ToInt(r[9]) : 0;
    e.delivered_ms = e.state == DeliveryState::kDelivered ? ToInt(r[10]) : 0;
    e.last_error = r[11].value_or("");
    e.subject = r[12].value_or("").empty() ? r[13].value_or("") : *r[12];
    e.content_type = r[14].value_or("");
    e.body = r[15].value_or("");
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace sluice::alert
