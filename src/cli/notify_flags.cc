#include "cli/notify_flags.h"

#include <fmt/format.h>

#include <optional>

#include "cli/cli_common.h"
#include "sluice/alert/hooks.h"
#include "sluice/base/file_system.h"
#include "sluice/table/column_mapping.h"
#include "sluice/table/snapshot.h"

namespace sluice::cli {

void NotifyFlags::Register(CLI::App* cmd) {
  cmd->add_option("--notify", targets,
                  "Send alerts here (repeatable): slack:URL, webhook:URL, teams:URL, "
                  "email:smtp://HOST:PORT?to=ADDR[&from=ADDR], file:PATH; a URL may be env:VAR "
                  "to read it from the environment when sending");
  cmd->add_option("--outbox", outbox,
                  "The alert outbox (SQLite) where alerts wait until delivered (default: "
                  ".sluice-alerts.db beside the baseline, or in the working directory)");
  cmd->add_option("--webhook-secret-env", secret_env,
                  "Sign webhook: alerts with HMAC-SHA256 using the secret in this environment "
                  "variable");
  cmd->add_option("--webhook-secret-file", secret_file,
                  "Sign webhook: alerts with HMAC-SHA256 using the secret in this file");
  delivery.Register(cmd);
}

void DeliveryFlags::Register(CLI::App* cmd) {
  cmd->add_option("--notify-ca-cert", ca_cert,
                  "PEM file of CAs to trust for HTTPS and SMTP TLS (default: the system's)");
  cmd->add_option("--notify-timeout", timeout_seconds,
                  "Seconds to wait for each delivery attempt (default 10)")
      ->check(CLI::PositiveNumber);
}

alert::SendOptions DeliveryFlags::Send() const {
  alert::SendOptions send;
  send.ca_cert = ca_cert;
  send.timeout_ms = static_cast<int>(timeout_seconds * 1000);
  return send;
}

Result<std::unique_ptr<alert::Notifier>> NotifyFlags::Open(
    const std::string& default_outbox) const {
  if (targets.empty()) return std::unique_ptr<alert::Notifier>();
  alert::NotifyOptions options;
  SLUICE_ASSIGN_OR_RETURN(options.targets, alert::ParseTargets(targets, secret_env, secret_file));
  options.outbox_path = outbox.empty() ? default_outbox : outbox;
  if (size_t slash = options.outbox_path.rfind('/'); slash != std::string::npos && slash > 0) {
    const std::string dir = options.outbox_path.substr(0, slash);
    if (Status st = LocalFileSystem()->CreateDirs(dir); !st.has_value()) {
      return Fail(st.error().WithContext(dir));
    }
  }
  options.send = delivery.Send();
  return alert::Notifier::Open(*LocalFileSystem(), std::move(options));
}

namespace {

struct TableState {
  schema::SchemaPtr schema;
  int64_t version = -1;
  bool type_widening = false;
  bool column_mapping = false;
};

std::optional<TableState> ReadTableState(const std::string& path,
                                         std::optional<int64_t> version = std::nullopt) {
  table::SnapshotOptions at;
  at.version = version;
  auto snapshot = table::LoadSnapshot(*LocalFileSystem(), path, at);
  if (!snapshot.has_value()) return std::nullopt;
  auto logical = table::WithoutStorageMetadata(*snapshot->schema);
  if (!logical.has_value()) return std::nullopt;
  TableState state;
  state.schema = *logical;
  state.version = snapshot->version;
  state.type_widening = snapshot->Property("delta.enableTypeWidening") == "true";
  auto mapping = snapshot->Property("delta.columnMapping.mode");
  state.column_mapping = mapping.has_value() && *mapping != "none";
  return state;
}

}  // namespace

int WithTableAlerts(const NotifyFlags& flags, const std::string& path,
                    const std::function<int()>& command) {
  if (flags.targets.empty()) return command();
  auto notifier = flags.Open(alert::kOutboxFileName);
  if (!notifier.has_value()) return ReportError(notifier.error());
  std::optional<TableState> before = ReadTableState(path);
  const int code = command();
  std::optional<TableState> after = ReadTableState(path);
  if (!before.has_value() || !after.has_value() || after->version == before->version) return code;
  alert::SchemaChange change;
  change.source = path;
  change.kind = "delta";
  change.before = before->schema;
  change.after = after->schema;
  change.version = after->version;
  change.type_widening = before->type_widening || after->type_widening;
  change.column_mapping = before->column_mapping || after->column_mapping;
  auto report = alert::ReportForSchemaChange(change);
  if (!report.has_value()) return ReportError(report.error());
  if (!report->changed()) return code;
  if (auto stored = (*notifier)->Enqueue(*report); !stored.has_value()) {
    return ReportError(stored.error());
  }
  auto summary = (*notifier)->Deliver(alert::NowMs() + 30000);
  if (!summary.has_value()) return ReportError(summary.error());
  PrintDeliverySummary(*summary);
  return code;
}

Status AlertTableCommit(alert::Notifier& notifier, const std::string& path,
                        const std::string& source, const std::string& kind, int64_t version) {
  if (version < 1) return Ok();
  std::optional<TableState> before = ReadTableState(path, version - 1);
  std::optional<TableState> after = ReadTableState(path, version);
  if (!before.has_value() || !after.has_value()) return Ok();
  alert::SchemaChange change;
  change.source = source;
  change.kind = kind;
  change.before = before->schema;
  change.after = after->schema;
  change.version = version;
  change.type_widening = before->type_widening || after->type_widening;
  change.column_mapping = before->column_mapping || after->column_mapping;
  SLUICE_ASSIGN_OR_RETURN(evolution::DriftReport report, alert::ReportForSchemaChange(change));
  if (!report.changed()) return Ok();
  if (auto stored = notifier.Enqueue(report); !stored.has_value()) return Fail(stored.error());
  return Ok();
}

void PrintDeliverySummary(const alert::DeliverySummary& summary) {
  for (const std::string& e : summary.errors) fmt::print(stderr, "alert not delivered: {}\n", e);
  if (summary.pending > 0) {
    fmt::print(stderr,
               "{} alert(s) still waiting to be delivered; the next run, `sluice drift deliver` "
               "or a running watcher sends them\n",
               summary.pending);
  }
}

}  // namespace sluice::cli
