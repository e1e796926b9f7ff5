// Sending drift reports: each report is rendered for every target (report/drift_render.h),
// stored in the outbox, then delivered. One Notifier per process and outbox; `sluice drift`,
// `sluice registry serve --notify`, `sluice ingest --notify` and `sluice table ... --notify`
// all send through it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sluice/alert/outbox.h"
#include "sluice/alert/sender.h"
#include "sluice/alert/target.h"
#include "sluice/base/file_system.h"
#include "sluice/evolution/drift.h"

namespace sluice::alert {

struct NotifyOptions {
  std::vector<Target> targets;
  /// The outbox database (created when missing; its folder must exist).
  std::string outbox_path;
  SendOptions send;
  DeliveryPolicy policy;
};

/// The outbox file's default name, in the folder of a baseline file or the working directory.
inline constexpr char kOutboxFileName[] = ".sluice-alerts.db";

/// Parse every `--notify` spec, naming the bad one (by its Display form) in the error.
Result<std::vector<Target>> ParseTargets(const std::vector<std::string>& specs,
                                         const std::string& secret_env = {},
                                         const std::string& secret_file = {});

class Notifier {
 public:
  /// Open the outbox; `fs` (for file: targets) must outlive the notifier.
  static Result<std::unique_ptr<Notifier>> Open(FileSystem& fs, NotifyOptions options);
  ~Notifier();

  /// Store `report` for every target (deduplicated by source, old and new fingerprint and
  /// target). Returns how many deliveries were stored; 0 when every target had it already.
  Result<int> Enqueue(const evolution::DriftReport& report);

  /// Deliver what is due until nothing is, or until `deadline_ms` (epoch ms) passes.
  Result<DeliverySummary> Deliver(int64_t deadline_ms);

  /// Keep delivering on a thread of its own (servers and watchers), every `poll_ms`, until
  /// StopBackground() or destruction.
  void StartBackground(int64_t poll_ms = 1000);
  void StopBackground();

  Outbox& outbox() { return *outbox_; }
  bool empty() const { return options_.targets.empty(); }

 private:
  Notifier(FileSystem& fs, NotifyOptions options, std::unique_ptr<Outbox> outbox);

  NotifyOptions options_;
  std::unique_ptr<Outbox> outbox_;
  std::unique_ptr<Sender> sender_;
  std::atomic<bool> stop_{false};
  std::thread background_;
};

/// Milliseconds since the epoch, now.
int64_t NowMs();

}  // namespace sluice::alert
