// `sluice drift check SOURCE --baseline REF`, `sluice drift watch CONFIG` and `sluice drift
// deliver`: schema drift against a baseline, judged, reported, and sent to people once.
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <map>
#include <memory>
#include <thread>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/drift_sources.h"
#include "cli/notify_flags.h"
#include "sluice/alert/watch_config.h"
#include "sluice/base/file_system.h"
#include "sluice/report/drift_render.h"

namespace sluice::cli {

namespace {

std::atomic<bool> g_drift_stop{false};
void StopDriftOnSignal(int) { g_drift_stop = true; }

struct CheckOptions {
  DriftCheckSpec spec;
  NotifyFlags notify;
  double deliver_seconds = 30;
  OutputFlags out;
};

int ExitFor(const evolution::DriftReport& report) {
  return report.changed() ? kExitFindings : kExitOk;
}

// Store the alert, then try to deliver it (and anything older still waiting) for a while.
Status SendAlert(alert::Notifier& notifier, const evolution::DriftReport& report,
                 double deliver_seconds) {
  if (auto stored = notifier.Enqueue(report); !stored.has_value()) return Fail(stored.error());
  SLUICE_ASSIGN_OR_RETURN(
      alert::DeliverySummary summary,
      notifier.Deliver(alert::NowMs() + static_cast<int64_t>(deliver_seconds * 1000)));
  PrintDeliverySummary(summary);
  return Ok();
}

int RunCheck(const CheckOptions& opt) {
  auto format = opt.out.Format();
  if (!format.has_value()) return ReportError(format.error());
  // Targets are checked before anything moves a baseline.
  auto notifier = opt.notify.Open(DefaultOutboxFor(opt.spec.baseline));
  if (!notifier.has_value()) return ReportError(notifier.error());
  auto report = RunDriftCheck(opt.spec);
  if (!report.has_value()) return ReportError(report.error());
  if (*notifier != nullptr && report->changed()) {
    if (Status st = SendAlert(**notifier, *report, opt.deliver_seconds); !st.has_value()) {
      return ReportError(st.error());
    }
  }
  // Unchanged is silent in text, as the seed's check is; JSON always says what it found.
  if (report->verdict != evolution::DriftVerdict::kUnchanged || *format != report::Format::kText) {
    auto text = report::Render(*report, *format, opt.out.Render());
    if (!text.has_value()) return ReportError(text.error());
    if (Status st = WriteResult(opt.out, *text); !st.has_value()) return ReportError(st.error());
  }
  return ExitFor(*report);
}

struct WatchOptions {
  std::string config;
  bool once = false;
  double deliver_seconds = 30;
  DeliveryFlags delivery;
  bool quiet = false;
};

// One watched source: its check and its notifier (all share the config's outbox).
struct Watched {
  alert::WatchSource source;
  std::unique_ptr<alert::Notifier> notifier;
  int64_t next_ms = 0;
};

Result<std::vector<Watched>> OpenWatched(const alert::WatchConfig& config,
                                         const WatchOptions& opt) {
  std::vector<Watched> out;
  for (const alert::WatchSource& s : config.sources) {
    NotifyFlags flags;
    flags.targets = s.notify;
    flags.outbox = config.outbox;
    flags.secret_env = s.webhook_secret_env;
    flags.secret_file = s.webhook_secret_file;
    flags.delivery = opt.delivery;
    auto n = flags.Open(config.outbox);
    if (!n.has_value()) return Fail(n.error().WithContext("source " + s.name));
    out.push_back({s, std::move(*n), 0});
  }
  return out;
}

// Check one source; print one line about it. Returns the exit code this check contributes.
int CheckWatched(Watched& w, const WatchOptions& opt) {
  DriftCheckSpec spec;
  spec.source = w.source.source;
  spec.baseline = w.source.baseline;
  spec.mode = w.source.mode;
  spec.input_format = w.source.format;
  spec.contract = w.source.contract;
  spec.accept = w.source.accept;
  spec.link = w.source.link;
  auto report = RunDriftCheck(spec);
  if (!report.has_value()) {
    fmt::print(stderr, "{}: {}\n", w.source.name, report.error().message());
    return kExitError;
  }
  if (w.notifier != nullptr && report->changed()) {
    if (auto stored = w.notifier->Enqueue(*report); !stored.has_value()) {
      fmt::print(stderr, "{}: {}\n", w.source.name, stored.error().message());
      return kExitError;
    }
  }
  if (!opt.quiet && report->verdict != evolution::DriftVerdict::kUnchanged) {
    auto text = report::Render(*report, report::Format::kText);
    if (text.has_value()) fmt::print("{}", *text);
  }
  return ExitFor(*report);
}

int RunWatch(const WatchOptions& opt) {
  auto text = LocalFileSystem()->ReadFile(opt.config);
  if (!text.has_value()) return ReportError(text.error().WithContext(opt.config));
  size_t slash = opt.config.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : opt.config.substr(0, slash);
  auto config = alert::ParseWatchConfig(*text, dir);
  if (!config.has_value()) return ReportError(config.error().WithContext(opt.config));
  auto watched = OpenWatched(*config, opt);
  if (!watched.has_value()) return ReportError(watched.error());
  // One notifier delivers for all: the outbox holds every source's alerts with their targets.
  alert::Notifier* deliverer = nullptr;
  for (Watched& w : *watched) {
    if (w.notifier != nullptr && deliverer == nullptr) deliverer = w.notifier.get();
  }
  if (!opt.once) {
    std::signal(SIGINT, StopDriftOnSignal);
    std::signal(SIGTERM, StopDriftOnSignal);
  }
  int worst = kExitOk;
  while (!g_drift_stop) {
    const int64_t now = alert::NowMs();
    int64_t next = now + 1000;
    for (Watched& w : *watched) {
      if (w.next_ms <= now) {
        worst = std::max(worst, CheckWatched(w, opt));
        w.next_ms = alert::NowMs() + w.source.interval_ms;
      }
      next = std::min(next, w.next_ms);
    }
    if (deliverer != nullptr) {
      const int64_t until =
          opt.once ? alert::NowMs() + static_cast<int64_t>(opt.deliver_seconds * 1000) : next;
      auto summary = deliverer->Deliver(until);
      if (!summary.has_value()) {
        fmt::print(stderr, "outbox: {}\n", summary.error().message());
      } else if (opt.once) {
        PrintDeliverySummary(*summary);
      } else {
        for (const std::string& e : summary->errors) {
          fmt::print(stderr, "alert not delivered: {}\n", e);
        }
      }
    }
    if (opt.once) break;
    while (!g_drift_stop && alert::NowMs() < next) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return worst;
}

struct DeliverOptions {
  std::string outbox = alert::kOutboxFileName;
  double deliver_seconds = 30;
  DeliveryFlags delivery;
};

int RunDeliver(const DeliverOptions& opt) {
  alert::NotifyOptions options;
  options.outbox_path = opt.outbox;
  options.send = opt.delivery.Send();
  if (!LocalFileSystem()->Exists(opt.outbox).value_or(false)) {
    return ReportError(
        Error(ErrorCode::kNotFound, opt.outbox + ": no outbox here (alerts are stored beside the "
                                                 "baseline, or where --outbox said)"));
  }
  auto notifier = alert::Notifier::Open(*LocalFileSystem(), std::move(options));
  if (!notifier.has_value()) return ReportError(notifier.error());
  auto summary =
      (*notifier)->Deliver(alert::NowMs() + static_cast<int64_t>(opt.deliver_seconds * 1000));
  if (!summary.has_value()) return ReportError(summary.error());
  PrintDeliverySummary(*summary);
  fmt::print("{} delivered, {} failed, {} pending\n", summary->delivered, summary->failed,
             summary->pending);
  return summary->failed > 0 || summary->pending > 0 ? kExitFindings : kExitOk;
}

void RegisterCheck(CLI::App* drift, int& exit_code) {
  auto opt = std::make_shared<CheckOptions>();
  CLI::App* cmd = drift->add_subcommand(
      "check",
      "Compare a source's schema with its baseline: record it on the first run; exit 0 when "
      "unchanged (silent), 1 with the diff and its verdict when changed, 2 on errors");
  cmd->add_option("source", opt->spec.source,
                  "A schema file, data files or a folder of them (the schema is inferred), a "
                  "Delta table's folder (PATH or PATH@vN), or registry://HOST:PORT/SUBJECT")
      ->required();
  cmd->add_option("--baseline", opt->spec.baseline,
                  "A baseline file (sluice's JSON, or a bare MD5 of PySpark's schema.json(); "
                  "created on the first run), registry://HOST:PORT/SUBJECT (its latest version), "
                  "or a Delta table at a version (PATH@vN)")
      ->required();
  cmd->add_option("--contract", opt->spec.contract,
                  "Judge the change by this contract's change policy and columns");
  cmd->add_flag("--accept", opt->spec.accept,
                "Move the baseline to the source's schema (recording who and when)");
  cmd->add_option("--mode", opt->spec.mode,
                  "Data files: infer as spark (spark.read, the default) or autoloader")
      ->check(OneOf({"spark", "autoloader"}));
  cmd->add_option("--input-format", opt->spec.input_format,
                  "Data files: json (JSON lines), csv, parquet or avro (default: by extension)");
  cmd->add_option("--from", opt->spec.from, "A schema file's format (default: detected)");
  cmd->add_flag("--data", opt->spec.data,
                "Read SOURCE as data files even if it looks like a schema");
  cmd->add_option("--link", opt->spec.link,
                  "A link for the alert ({source}, {alertId} and {verdict} are filled in)");
  cmd->add_option("--deliver-timeout", opt->deliver_seconds,
                  "Seconds to keep delivering before leaving the rest in the outbox (default 30)")
      ->check(CLI::NonNegativeNumber);
  opt->notify.Register(cmd);
  opt->out.Register(cmd, {"text", "json", "github", "slack"});
  cmd->callback([opt, &exit_code] { exit_code = RunCheck(*opt); });
}

void RegisterWatch(CLI::App* drift, int& exit_code) {
  auto opt = std::make_shared<WatchOptions>();
  CLI::App* cmd = drift->add_subcommand(
      "watch",
      "Check every source of a YAML config on its interval and send alerts, until SIGINT or "
      "SIGTERM (--once: check each source once, deliver, exit: for cron)");
  cmd->add_option("config", opt->config, "The watch config (docs/drift.md)")->required();
  cmd->add_flag("--once", opt->once,
                "Check each source once, deliver, and exit (1 if any changed)");
  cmd->add_option("--deliver-timeout", opt->deliver_seconds,
                  "With --once: seconds to keep delivering (default 30)")
      ->check(CLI::NonNegativeNumber);
  opt->delivery.Register(cmd);
  cmd->add_flag("-q,--quiet", opt->quiet, "Print nothing but errors");
  cmd->callback([opt, &exit_code] { exit_code = RunWatch(*opt); });
}

void RegisterDeliver(CLI::App* drift, int& exit_code) {
  auto opt = std::make_shared<DeliverOptions>();
  CLI::App* cmd = drift->add_subcommand(
      "deliver", "Deliver the alerts waiting in an outbox (exit 1 if some are still waiting)");
  cmd->add_option("--outbox", opt->outbox, "The outbox (default: .sluice-alerts.db here)");
  cmd->add_option("--deliver-timeout", opt->deliver_seconds,
                  "Seconds to keep delivering (default 30)")
      ->check(CLI::NonNegativeNumber);
  opt->delivery.Register(cmd);
  cmd->callback([opt, &exit_code] { exit_code = RunDeliver(*opt); });
}

}  // namespace

void RegisterDriftCommand(CLI::App& app, int& exit_code) {
  CLI::App* drift = app.add_subcommand(
      "drift", "Watch schemas for drift against baselines and alert people once per change");
  drift->require_subcommand(1);
  RegisterCheck(drift, exit_code);
  RegisterWatch(drift, exit_code);
  RegisterDeliver(drift, exit_code);
}

}  // namespace sluice::cli
