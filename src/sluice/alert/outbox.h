// The durable outbox: every alert is stored (SQLite, WAL, synchronous=FULL) before any delivery
// is tried, then delivered by Deliver() with exponential backoff and jitter, `Retry-After`
// honoured, a rate limit per target, in order per (source, target), and marked delivered only
// after the target accepted it. A crash between storing and delivering loses nothing: the next
// Deliver() (any process opening the same outbox) sends it. Alerts are deduplicated by
// (source, old fingerprint, new fingerprint, target): a change alerts once per target however
// often a check finds it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sluice/alert/sender.h"
#include "sluice/alert/target.h"
#include "sluice/base/result.h"

namespace sluice::alert {

/// What identifies a change for deduplication.
struct AlertKey {
  std::string source;
  std::string old_fingerprint;
  std::string new_fingerprint;
};

/// One alert for one target, as Enqueue stores it.
struct OutboxItem {
  Target target;    // its Spec() is stored, with the secret's env/file names (never a value)
  Message message;  // rendered for the target's kind
};

enum class DeliveryState : uint8_t { kPending, kDelivered, kFailed };
/// "pending", "delivered", "failed".
std::string_view DeliveryStateName(DeliveryState state);

/// One stored delivery, for status output and the UI.
struct OutboxEntry {
  int64_t id = 0;  // increasing in enqueue order
  AlertKey key;
  std::string target;  // Target::Display(), never the raw address
  std::string kind;    // TargetKindName
  DeliveryState state = DeliveryState::kPending;
  int attempts = 0;
  int64_t created_ms = 0;
  int64_t next_attempt_ms = 0;  // pending only
  int64_t delivered_ms = 0;     // delivered only
  std::string last_error;       // SendResult::detail of the last failed try
  std::string subject;          // the message's subject, or its id
  std::string content_type;     // the stored message's
  std::string body;             // the stored message: a webhook's or file's drift report JSON
};

struct DeliveryPolicy {
  int64_t initial_backoff_ms = 1000;  // first retry after this, doubled each time...
  int64_t max_backoff_ms = 300000;    // ...up to this
  double jitter = 0.2;                // +-20% of each wait, so senders do not retry in step
  int max_attempts = 0;               // 0: keep trying; else kFailed after this many
  int64_t min_interval_ms = 1000;     // rate limit: at most one send per target per interval
};

struct DeliverySummary {
  int delivered = 0;
  int failed = 0;                   // permanent failures (this call)
  int pending = 0;                  // still waiting for a retry when Deliver returned
  std::vector<std::string> errors;  // one line per failure, Display()-safe
};

class Outbox {
 public:
  /// Open or create the outbox database at `path` (its folder must exist).
  static Result<std::unique_ptr<Outbox>> Open(const std::string& path);
  ~Outbox();

  /// Store one alert for each item, in one transaction, skipping an item whose (key, target
  /// spec) is already stored (delivered, pending or failed). Returns how many were stored.
  Result<int> Enqueue(const AlertKey& key, const std::vector<OutboxItem>& items, int64_t now_ms);

  /// Deliver what is due, in enqueue order per (source, target): a pending item waits behind an
  /// earlier pending one of the same source and target. Sleeps for backoff and rate limits
  /// while something is due before `deadline_ms` (0: try each due item once and return). Stops
  /// early when `stop` returns true.
  Result<DeliverySummary> Deliver(Sender& sender, const DeliveryPolicy& policy, int64_t deadline_ms,
                                  const std::function<bool()>& stop = {});

  /// Every stored delivery, newest first, at most `limit`.
  Result<std::vector<OutboxEntry>> List(int limit = 100);

  class Impl;

 private:
  explicit Outbox(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::alert
