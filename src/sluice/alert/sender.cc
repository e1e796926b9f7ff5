#include "sluice/alert/sender.h"

#include "sluice/alert/senders_internal.h"

namespace sluice::alert {

std::string_view SendOutcomeName(SendOutcome outcome) {
  switch (outcome) {
    case SendOutcome::kDelivered:
      return "delivered";
    case SendOutcome::kRetry:
      return "retry";
    case SendOutcome::kPermanent:
      return "permanent";
  }
  return "retry";
}

namespace {

class DispatchSender final : public Sender {
 public:
  DispatchSender(FileSystem& fs, SendOptions options) : fs_(fs), options_(std::move(options)) {}

  SendResult Send(const Target& target, const Message& message) override {
    switch (target.kind) {
      case TargetKind::kSlack:
      case TargetKind::kWebhook:
      case TargetKind::kTeams:
        return internal::SendHttp(target, message, options_);
      case TargetKind::kEmail: {
        auto url = ResolveAddress(target);
        if (!url.has_value()) {
          // An unset variable is fixed outside the outbox: keep the alert.
          SendResult r;
          r.outcome = SendOutcome::kRetry;
          r.detail = url.error().message();
          return r;
        }
        return internal::SendSmtp(*url, message, options_);
      }
      case TargetKind::kFile:
        return internal::AppendToFile(fs_, target.address, message);
    }
    SendResult r;
    r.outcome = SendOutcome::kPermanent;
    r.detail = "unknown target kind";
    return r;
  }

 private:
  FileSystem& fs_;
  SendOptions options_;
};

}  // namespace

std::unique_ptr<Sender> MakeSender(FileSystem& fs, const SendOptions& options) {
  return std::make_unique<DispatchSender>(fs, options);
}

}  // namespace sluice::alert
