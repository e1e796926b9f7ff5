// A test tool: the alert outbox as separate processes, so a test can kill one that delivers.
//
//   alert_outbox_tool enqueue --outbox F --source S --old X --new Y --target SPEC
//       [--secret-env V] [--secret-file P] --body B [--id ID] [--subject S]
//   alert_outbox_tool deliver --outbox F [--deadline-ms N] [--timeout-ms N] [--min-interval-ms N]
//       [--initial-backoff-ms N] [--max-backoff-ms N] [--max-attempts N] [--jitter X]
//   alert_outbox_tool list --outbox F
//
// enqueue prints {"stored":N}; the id defaults to a hash of the key and target. deliver's
// --deadline-ms is from now (0: each due alert once) and it prints {"delivered":N,"failed":N,
// "pending":N,"errors":[...]}. list prints one JSON object per stored delivery, oldest first.
// Exit 0 on success, 1 on an error, 2 for usage.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "sluice/alert/outbox.h"
#include "sluice/base/hash.h"
#include "sluice/base/json_writer.h"

namespace {

using namespace sluice;         // NOLINT: a test tool
using namespace sluice::alert;  // NOLINT

int Usage(const std::string& why) {
  std::fprintf(stderr, "alert_outbox_tool: %s\n", why.c_str());
  return 2;
}

int Failed(const Error& e) {
  std::fprintf(stderr, "alert_outbox_tool: %s\n", e.ToString().c_str());
  return 1;
}

int64_t Int(const std::map<std::string, std::string>& flags, const std::string& name,
            int64_t fallback) {
  auto it = flags.find(name);
  return it == flags.end() ? fallback : std::stoll(it->second);
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int Enqueue(Outbox& outbox, std::map<std::string, std::string>& flags) {
  for (const char* need : {"source", "old", "new", "target", "body"}) {
    if (!flags.contains(need)) return Usage(std::string("enqueue needs --") + need);
  }
  auto target = ParseTarget(flags["target"]);
  if (!target.has_value()) return Failed(target.error());
  target->secret_env = flags["secret-env"];
  target->secret_file = flags["secret-file"];
  AlertKey key{flags["source"], flags["old"], flags["new"]};
  std::string id = flags.contains("id") ? flags["id"]
                                        : Sha256Hex(key.source + "\n" + key.old_fingerprint + "\n" +
                                                    key.new_fingerprint + "\n" + target->Spec())
                                              .substr(0, 32);
  Message message{id, "application/json", flags["subject"], flags["body"]};
  auto stored = outbox.Enqueue(key, {OutboxItem{*target, message}}, NowMs());
  if (!stored.has_value()) return Failed(stored.error());
  std::printf("{\"stored\":%d}\n", *stored);
  return 0;
}

int Deliver(Outbox& outbox, std::map<std::string, std::string>& flags) {
  SendOptions options;
  options.timeout_ms = static_cast<int>(Int(flags, "timeout-ms", options.timeout_ms));
  DeliveryPolicy policy;
  policy.initial_backoff_ms = Int(flags, "initial-backoff-ms", policy.initial_backoff_ms);
  policy.max_backoff_ms = Int(flags, "max-backoff-ms", policy.max_backoff_ms);
  policy.min_interval_ms = Int(flags, "min-interval-ms", policy.min_interval_ms);
  policy.max_attempts = static_cast<int>(Int(flags, "max-attempts", 0));
  if (flags.contains("jitter")) policy.jitter = std::stod(flags["jitter"]);
  const int64_t deadline = Int(flags, "deadline-ms", 0);
  auto sender = MakeSender(*LocalFileSystem(), options);
  auto summary = outbox.Deliver(*sender, policy, deadline == 0 ? 0 : NowMs() + deadline);
  if (!summary.has_value()) return Failed(summary.error());
  JsonWriter w;
  w.BeginObject();
  w.Key("delivered").Int(summary->delivered);
  w.Key("failed").Int(summary->failed);
  w.Key("pending").Int(summary->pending);
  w.Key("errors").BeginArray();
  for (const std::string& e : summary->errors) w.String(e);
  w.EndArray().EndObject();
  std::printf("%s\n", w.str().c_str());
  return 0;
}

int List(Outbox& outbox) {
  auto entries = outbox.List(1 << 30);
  if (!entries.has_value()) return Failed(entries.error());
  for (auto it = entries->rbegin(); it != entries->rend(); ++it) {
    JsonWriter w;
    w.BeginObject();
    w.Key("id").Int(it->id);
    w.Key("source").String(it->key.source);
    w.Key("old").String(it->key.old_fingerprint);
    w.Key("new").String(it->key.new_fingerprint);
    w.Key("target").String(it->target);
    w.Key("kind").String(it->kind);
    w.Key("state").String(DeliveryStateName(it->state));
    w.Key("attempts").Int(it->attempts);
    w.Key("last_error").String(it->last_error);
    w.Key("subject").String(it->subject);
    w.EndObject();
    std::printf("%s\n", w.str().c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage("give a command: enqueue, deliver or list");
  const std::string command = argv[1];
  std::map<std::string, std::string> flags;
  for (int i = 2; i < argc; i += 2) {
    std::string_view flag = argv[i];
    if (!flag.starts_with("--") || i + 1 >= argc) {
      return Usage("expected --FLAG VALUE, got " + std::string(flag));
    }
    flags[std::string(flag.substr(2))] = argv[i + 1];
  }
  if (!flags.contains("outbox")) return Usage("give --outbox FILE");
  auto outbox = Outbox::Open(flags["outbox"]);
  if (!outbox.has_value()) return Failed(outbox.error());
  try {
    if (command == "enqueue") return Enqueue(**outbox, flags);
    if (command == "deliver") return Deliver(**outbox, flags);
    if (command == "list") return List(**outbox);
  } catch (const std::exception& e) {  // std::stoll on a bad number
    return Usage(std::string("bad number: ") + e.what());
  }
  return Usage("unknown command " + command);
}
