// The alerts endpoint: every delivery stored in the configured drift-alert outboxes, newest
// first, with the drift report a webhook or file target was sent.
#include <algorithm>
#include <utility>

#include "sluice/alert/notifier.h"
#include "sluice/alert/outbox.h"
#include "sluice/base/json.h"
#include "sluice/base/json_writer.h"
#include "sluice/table/time_travel.h"
#include "sluice/ui/api_internal.h"

namespace sluice::ui::internal {
namespace {

using registry::HttpResponse;

constexpr int kMaxAlerts = 500;

struct Listed {
  std::string outbox;
  alert::OutboxEntry entry;
};

void WriteTime(JsonWriter& w, int64_t ms) {
  if (ms > 0) {
    w.String(table::FormatTimestampMs(ms));
  } else {
    w.Null();
  }
}

}  // namespace

HttpResponse AlertList(const UiOptions& options, const ApiRequest& request) {
  if (!MayRead(request.user)) return ApiError(403, 40301, "User is denied read access");
  std::vector<Listed> all;
  std::vector<std::string> errors;
  for (const NamedPath& o : options.alerts) {
    // A folder stands for the outbox a command run there keeps. Opening creates a missing
    // database: an outbox not there yet has no alerts, and is left alone.
    std::string path = o.path;
    auto info = options.fs->Stat(path);
    if (info.has_value() && info->kind == FileKind::kDirectory) {
      path += std::string("/") + alert::kOutboxFileName;
      info = options.fs->Stat(path);
    }
    if (!info.has_value() || info->kind != FileKind::kFile) continue;
    auto outbox = alert::Outbox::Open(path);
    if (!outbox.has_value()) {
      errors.push_back(o.name + ": " + outbox.error().message());
      continue;
    }
    auto entries = (*outbox)->List(kMaxAlerts);
    if (!entries.has_value()) {
      errors.push_back(o.name + ": " + entries.error().message());
      continue;
    }
    for (alert::OutboxEntry& e : *entries) all.push_back({o.name, std::move(e)});
  }
  std::stable_sort(all.begin(), all.end(), [](const Listed& a, const Listed& b) {
    return a.entry.created_ms > b.entry.created_ms;
  });
  JsonWriter w;
  w.BeginObject().Key("alerts").BeginArray();
  for (const Listed& l : all) {
    const alert::OutboxEntry& e = l.entry;
    w.BeginObject();
    w.Key("id").Int(e.id);
    w.Key("outbox").String(l.outbox);
    w.Key("source").String(e.key.source);
    w.Key("target").String(e.target);
    w.Key("kind").String(e.kind);
    w.Key("state").String(alert::DeliveryStateName(e.state));
    w.Key("attempts").Int(e.attempts);
    w.Key("createdAt");
    WriteTime(w, e.created_ms);
    w.Key("deliveredAt");
    WriteTime(w, e.delivered_ms);
    w.Key("lastError");
    if (e.last_error.empty()) {
      w.Null();
    } else {
      w.String(e.last_error);
    }
    w.Key("report");
    // Webhook and file targets are sent the drift report itself (docs/formats/drift-alert.md);
    // Slack and email get a rendering of it, which the page does not need.
    auto body = e.content_type.starts_with("application/json") ? ParseJson(e.body)
                                                               : Result<JsonValue>(JsonValue());
    if ((e.kind == "webhook" || e.kind == "file") && body.has_value() && body->is_object()) {
      w.Value(*body);
    } else {
      w.Null();
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("errors").BeginArray();
  for (const std::string& e : errors) w.String(e);
  w.EndArray();
  w.EndObject();
  return Json(200, w.Take());
}

}  // namespace sluice::ui::internal
