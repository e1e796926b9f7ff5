#include "sluice/alert/notifier.h"

#include <chrono>

#include "sluice/report/drift_render.h"

namespace sluice::alert {

namespace {

// The message a target of this kind takes: Block Kit for Slack, an Adaptive Card for Teams, the
// documented JSON body for webhooks and log files (docs/formats/drift-alert.md), text for email.
Result<Message> RenderFor(TargetKind kind, const evolution::DriftReport& report) {
  Message m;
  m.id = report.alert_id;
  m.content_type = "application/json";
  switch (kind) {
    case TargetKind::kSlack:
      m.body = report::SlackMessage(report);
      break;
    case TargetKind::kTeams:
      m.body = report::TeamsMessage(report);
      break;
    case TargetKind::kWebhook:
    case TargetKind::kFile:
      // One line, no newline: the file sender adds it, and a webhook body is the bare JSON.
      m.body = report::WebhookBody(report);
      break;
    case TargetKind::kEmail: {
      report::EmailText email = report::EmailMessage(report);
      m.content_type = "text/plain; charset=utf-8";
      m.subject = std::move(email.subject);
      m.body = std::move(email.body);
      break;
    }
  }
  return m;
}

}  // namespace

int64_t NowMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

Result<std::vector<Target>> ParseTargets(const std::vector<std::string>& specs,
                                         const std::string& secret_env,
                                         const std::string& secret_file) {
  std::vector<Target> out;
  for (const std::string& spec : specs) {
    SLUICE_ASSIGN_OR_RETURN(Target t, ParseTarget(spec));
    if (t.kind == TargetKind::kWebhook) {
      t.secret_env = secret_env;
      t.secret_file = secret_file;
    }
    out.push_back(std::move(t));
  }
  return out;
}

Notifier::Notifier(FileSystem& fs, NotifyOptions options, std::unique_ptr<Outbox> outbox)
    : options_(std::move(options)),
      outbox_(std::move(outbox)),
      sender_(MakeSender(fs, options_.send)) {}

Notifier::~Notifier() { StopBackground(); }

Result<std::unique_ptr<Notifier>> Notifier::Open(FileSystem& fs, NotifyOptions options) {
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<Outbox> outbox, Outbox::Open(options.outbox_path));
  return std::unique_ptr<Notifier>(new Notifier(fs, std::move(options), std::move(outbox)));
}

Result<int> Notifier::Enqueue(const evolution::DriftReport& report) {
  if (options_.targets.empty() || !report.changed()) return 0;
  std::vector<OutboxItem> items;
  items.reserve(options_.targets.size());
  for (const Target& t : options_.targets) {
    SLUICE_ASSIGN_OR_RETURN(Message m, RenderFor(t.kind, report));
    items.push_back({t, std::move(m)});
  }
  const std::string& old_fp =
      report.before.sha256.empty() ? report.before.spark_md5 : report.before.sha256;
  AlertKey key{report.source, old_fp, report.after.sha256};
  return outbox_->Enqueue(key, items, NowMs());
}

Result<DeliverySummary> Notifier::Deliver(int64_t deadline_ms) {
  return outbox_->Deliver(*sender_, options_.policy, deadline_ms);
}

void Notifier::StartBackground(int64_t poll_ms) {
  if (background_.joinable()) return;
  stop_ = false;
  background_ = std::thread([this, poll_ms] {
    // A connection of its own: Enqueue keeps using the caller's, and the outbox's leases keep
    // two connections from sending one delivery twice.
    std::unique_ptr<Outbox> own;
    while (!stop_) {
      if (own == nullptr) {
        auto opened = Outbox::Open(options_.outbox_path);
        if (opened.has_value()) own = std::move(*opened);
      }
      // Errors here are the outbox's own (a locked or broken database); the next round retries.
      if (own != nullptr) {
        (void)own->Deliver(*sender_, options_.policy, NowMs() + poll_ms,
                           [this] { return stop_.load(); });
      }
      for (int64_t waited = 0; waited < poll_ms && !stop_; waited += 50) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
  });
}

void Notifier::StopBackground() {
  stop_ = true;
  if (background_.joinable()) background_.join();
}

}  // namespace sluice::alert
