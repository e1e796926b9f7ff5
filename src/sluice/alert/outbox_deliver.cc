// Outbox::Deliver: claim the next due alert in a transaction, send it outside any transaction,
// record the outcome. A claim is a lease (claimed_until, claimed_by) so two processes delivering
// from one outbox never send the same alert at once, and the rate limit's last send per target
// sits in the database so it holds across processes too.
#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "sluice/alert/outbox.h"
#include "sluice/alert/outbox_internal.h"

namespace sluice::alert {

namespace internal {

int64_t BackoffMs(const DeliveryPolicy& policy, int attempts, double unit) {
  double wait = static_cast<double>(std::max<int64_t>(0, policy.initial_backoff_ms));
  const double cap = static_cast<double>(std::max<int64_t>(0, policy.max_backoff_ms));
  for (int i = 1; i < attempts && wait < cap; ++i) wait *= 2;
  wait = std::min(wait, cap);
  wait *= 1.0 + policy.jitter * (2.0 * unit - 1.0);
  return std::max<int64_t>(0, std::llround(wait));
}

}  // namespace internal

using internal::Row;
using internal::WallClockMs;

namespace {

// Longer than any one send (connect, write and read timeouts): a live process's claim is never
// taken over. A claim of a process that died on this host is taken over at once (OwnerIsDead).
constexpr int64_t kLeaseMs = 10 * 60 * 1000;

// The oldest pending alert of each (source, target): only it may be sent, so each pair's alerts
// arrive in enqueue order.
constexpr const char* kHeads =
    "SELECT d.id, d.target_spec, d.next_attempt_ms, d.claimed_until, d.claimed_by, "
    "COALESCE(t.last_send_ms, 0) FROM deliveries d LEFT JOIN targets t ON t.spec = d.target_spec "
    "WHERE d.id IN (SELECT MIN(id) FROM deliveries WHERE state = 'pending' "
    "GROUP BY source, target_spec) ORDER BY d.id";

int64_t ToInt(const std::optional<std::string>& v) { return v ? std::stoll(*v) : 0; }

struct Claim {
  int64_t id = 0;
  int attempts = 0;  // before this one
  std::string source;
  std::string spec;
  Target target;
  bool target_ok = false;
  std::string target_error;
  Message message;
};

Result<Claim> LoadClaim(internal::Db& db, int64_t id) {
  SLUICE_ASSIGN_OR_RETURN(
      auto rows, db.Query("SELECT attempts, source, target_spec, secret_env, secret_file, "
                          "message_id, content_type, subject, body FROM deliveries WHERE id = ?",
                          {id}));
  if (rows.empty()) return Internal("alert outbox: delivery " + std::to_string(id) + " vanished");
  const Row& r = rows[0];
  Claim c;
  c.id = id;
  c.attempts = static_cast<int>(ToInt(r[0]));
  c.source = r[1].value_or("");
  c.spec = r[2].value_or("");
  auto target = ParseTarget(c.spec);
  if (target.has_value()) {
    c.target = std::move(*target);
    c.target.secret_env = r[3].value_or("");
    c.target.secret_file = r[4].value_or("");
    c.target_ok = true;
  } else {
    c.target_error = target.error().message();
  }
  c.message = Message{r[5].value_or(""), r[6].value_or(""), r[7].value_or(""), r[8].value_or("")};
  return c;
}

struct Pick {
  std::optional<Claim> claim;
  int64_t next_due = INT64_MAX;  // when something not due now will be
  bool any_pending = false;
};

// In one transaction: the oldest due head of a (source, target) queue, claimed for `owner`, and
// its target's rate-limit slot taken. `skip`: heads already tried in this call.
Result<Pick> ClaimNext(internal::Db& db, const std::string& owner, int64_t interval,
                       const std::set<int64_t>& skip, int64_t now) {
  Pick pick;
  SLUICE_TRY(db.InTransaction([&]() -> Status {
    SLUICE_ASSIGN_OR_RETURN(auto heads, db.Query(kHeads));
    // One send at a time per target across processes: two appends to one file must not race,
    // and the rate limit holds exactly. Only heads are ever claimed, so the heads show them all.
    std::map<std::string, int64_t> busy;  // target spec -> claimed until
    for (const Row& h : heads) {
      const std::string claimed_by = h[4].value_or("");
      if (ToInt(h[3]) > now && claimed_by != owner && !internal::OwnerIsDead(claimed_by)) {
        int64_t& until = busy[h[1].value_or("")];
        until = std::max(until, ToInt(h[3]));
      }
    }
    for (const Row& h : heads) {
      pick.any_pending = true;
      const int64_t id = ToInt(h[0]);
      if (skip.contains(id)) continue;
      int64_t due = std::max(ToInt(h[2]), ToInt(h[5]) + interval);
      if (auto it = busy.find(h[1].value_or("")); it != busy.end()) {
        due = std::max(due, it->second);
      }
      if (due > now) {
        pick.next_due = std::min(pick.next_due, due);
        continue;
      }
      SLUICE_ASSIGN_OR_RETURN(Claim c, LoadClaim(db, id));
      SLUICE_TRY(db.Exec("UPDATE deliveries SET claimed_until = ?, claimed_by = ? WHERE id = ?",
                         {now + kLeaseMs, std::string_view(owner), id}));
      SLUICE_TRY(
          db.Exec("INSERT INTO targets(spec, last_send_ms) VALUES(?, ?) "
                  "ON CONFLICT(spec) DO UPDATE SET last_send_ms = excluded.last_send_ms",
                  {std::string_view(c.spec), now}));
      pick.claim = std::move(c);
      return Ok();
    }
    return Ok();
  }));
  return pick;
}

// What to write after a send: delivered, failed, or pending until `retry_at_ms`.
struct Outcome {
  DeliveryState state = DeliveryState::kPending;
  int64_t retry_at_ms = 0;
};

// In one transaction: the outcome of the send that started at `sent_at`, and that send as the
// target's last (the rate limit counts from the send, which came after the claim's commit).
Status Record(internal::Db& db, const std::string& owner, const Claim& c, const SendResult& r,
              int64_t sent_at, const Outcome& outcome) {
  const int64_t attempts = c.attempts + 1;
  const int64_t now = WallClockMs();
  return db.InTransaction([&]() -> Status {
    SLUICE_TRY(db.Exec("UPDATE targets SET last_send_ms = MAX(last_send_ms, ?) WHERE spec = ?",
                       {sent_at, std::string_view(c.spec)}));
    switch (outcome.state) {
      case DeliveryState::kDelivered:
        // Sent is sent: record it even if our lease lapsed and another process holds it now.
        return db.Exec(
            "UPDATE deliveries SET state = 'delivered', attempts = ?, "
            "delivered_ms = ?, last_error = '', claimed_until = 0, claimed_by = '' "
            "WHERE id = ? AND state = 'pending'",
            {attempts, now, c.id});
      case DeliveryState::kPending:
        return db.Exec(
            "UPDATE deliveries SET attempts = ?, next_attempt_ms = ?, last_error = ?, "
            "claimed_until = 0, claimed_by = '' WHERE id = ? AND claimed_by = ?",
            {attempts, outcome.retry_at_ms, std::string_view(r.detail), c.id,
             std::string_view(owner)});
      case DeliveryState::kFailed:
        return db.Exec(
            "UPDATE deliveries SET state = 'failed', attempts = ?, last_error = ?, "
            "claimed_until = 0, claimed_by = '' WHERE id = ? AND claimed_by = ?",
            {attempts, std::string_view(r.detail), c.id, std::string_view(owner)});
    }
    return Ok();
  });
}

}  // namespace

Result<DeliverySummary> Outbox::Deliver(Sender& sender, const DeliveryPolicy& policy,
                                        int64_t deadline_ms, const std::function<bool()>& stop) {
  internal::Db& db = *impl_->db;
  DeliverySummary summary;
  std::set<int64_t> tried;  // deadline 0: each due alert once
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const int64_t interval = std::max<int64_t>(0, policy.min_interval_ms);
  static const std::set<int64_t> kNone;

  while (!(stop && stop())) {
    SLUICE_ASSIGN_OR_RETURN(Pick pick, ClaimNext(db, impl_->owner, interval,
                                                 deadline_ms == 0 ? tried : kNone, WallClockMs()));
    if (!pick.claim) {
      if (!pick.any_pending || deadline_ms == 0 || pick.next_due > deadline_ms) break;
      // Sleep in short steps so `stop` is honoured promptly.
      while (WallClockMs() < pick.next_due && !(stop && stop())) {
        int64_t left = pick.next_due - WallClockMs();
        std::this_thread::sleep_for(std::chrono::milliseconds(std::clamp<int64_t>(left, 1, 100)));
      }
      continue;
    }
    const Claim& claim = *pick.claim;
    tried.insert(claim.id);
    const int64_t sent_at = WallClockMs();
    SendResult result;
    if (claim.target_ok) {
      result = sender.Send(claim.target, claim.message);
    } else {
      result.outcome = SendOutcome::kPermanent;
      result.detail = claim.target_error;
    }
    Outcome outcome;
    switch (result.outcome) {
      case SendOutcome::kDelivered:
        outcome.state = DeliveryState::kDelivered;
        break;
      case SendOutcome::kRetry:
        if (policy.max_attempts <= 0 || claim.attempts + 1 < policy.max_attempts) {
          int64_t wait = internal::BackoffMs(policy, claim.attempts + 1, unit(rng));
          if (result.retry_after_ms) wait = std::max(wait, *result.retry_after_ms);
          outcome.retry_at_ms = WallClockMs() + wait;
          break;
        }
        outcome.state = DeliveryState::kFailed;
        break;
      case SendOutcome::kPermanent:
        outcome.state = DeliveryState::kFailed;
        break;
    }
    SLUICE_TRY(Record(db, impl_->owner, claim, result, sent_at, outcome));
    if (outcome.state == DeliveryState::kDelivered) ++summary.delivered;
    if (outcome.state == DeliveryState::kFailed) {
      ++summary.failed;
      const std::string shown = claim.target_ok ? claim.target.Display() : "a stored target";
      summary.errors.push_back(claim.source + " to " + shown + ": " + result.detail);
    }
  }
  SLUICE_ASSIGN_OR_RETURN(auto count,
                          db.Query("SELECT COUNT(*) FROM deliveries WHERE state = 'pending'"));
  summary.pending = static_cast<int>(ToInt(count[0][0]));
  return summary;
}

}  // namespace sluice::alert
