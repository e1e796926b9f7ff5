// Stands in for smtp_sender.cc until email delivery is built.
#include "sluice/alert/senders_internal.h"

namespace sluice::alert::internal {

SendResult SendSmtp(std::string_view, const Message&, const SendOptions&) {
  SendResult r;
  r.outcome = SendOutcome::kPermanent;
  r.detail = "email delivery is not built yet";
  return r;
}

}  // namespace sluice::alert::internal
