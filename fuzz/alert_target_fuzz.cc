// Fuzz alert target specs and the HTTP sender's parsers: a spec that parses keeps its text as
// Spec(), and Display() never shows what followed an http(s) URL's host.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sluice/alert/http_internal.h"
#include "sluice/alert/target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)sluice::alert::internal::ParseRetryAfter(text, 0);
  auto target = sluice::alert::ParseTarget(text);
  if (!target.has_value()) return 0;
  if (target->Spec() != text) std::abort();
  const std::string shown = target->Display();
  if (target->kind == sluice::alert::TargetKind::kWebhook && !target->address.starts_with("env:")) {
    auto url = sluice::alert::internal::ParseHttpUrl(target->address);
    if (!url) std::abort();  // ParseTarget accepted it
    const std::string& rest = url->path_and_query;
    if (rest.size() > 8 && shown.find(rest) != std::string::npos) std::abort();
  }
  return 0;
}
