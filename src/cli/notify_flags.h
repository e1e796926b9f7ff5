// The flags every command that sends drift alerts shares (`sluice drift`, `registry serve`,
// `ingest`, `table`): where to send (--notify, repeatable), the outbox, the webhook secret, TLS.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sluice/alert/notifier.h"
#include "sluice/base/result.h"

namespace sluice::cli {

/// How deliveries connect: --notify-ca-cert and --notify-timeout.
struct DeliveryFlags {
  std::string ca_cert;
  double timeout_seconds = 10;

  void Register(CLI::App* cmd);
  alert::SendOptions Send() const;
};

struct NotifyFlags {
  std::vector<std::string> targets;
  std::string outbox;
  std::string secret_env;
  std::string secret_file;
  DeliveryFlags delivery;

  /// Add the flags to `cmd`.
  void Register(CLI::App* cmd);
  /// The notifier the flags describe, its outbox at --outbox or `default_outbox`; null when no
  /// --notify was given.
  Result<std::unique_ptr<alert::Notifier>> Open(const std::string& default_outbox) const;
};

/// Run `command`, a table command writing to the Delta table at `path`, and when --notify was
/// given and the table's schema differs after it, send one alert (Delta's rules judge it).
/// Returns the command's exit code (or kExitError when the alert could not be stored).
int WithTableAlerts(const NotifyFlags& flags, const std::string& path,
                    const std::function<int()>& command);

/// Store an alert for the schema change commit `version` of the Delta table at `path` made
/// (the schema at version-1 against the one at version), naming it `source`; nothing when the
/// schema did not change. Deduplicated like every alert, so a batch replayed after a crash
/// does not alert twice.
Status AlertTableCommit(alert::Notifier& notifier, const std::string& path,
                        const std::string& source, const std::string& kind, int64_t version);

/// Print a delivery summary's failures and what is still pending to stderr (no secrets: the
/// summary holds Display forms only).
void PrintDeliverySummary(const alert::DeliverySummary& summary);

}  // namespace sluice::cli
