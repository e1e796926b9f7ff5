// Fuzz what the alert module reads from users and files: a baseline file (sluice's JSON or a bare
// MD5), a watch config, a --notify target and an SMTP URL. Each either parses or gives an error;
// a target's Display() form never holds the address's path or query.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "sluice/alert/baseline.h"
#include "sluice/alert/smtp_internal.h"
#include "sluice/alert/target.h"
#include "sluice/alert/watch_config.h"
#include "sluice/base/file_system.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto fs = std::make_shared<sluice::MemoryFileSystem>();
  if (fs->WriteFile("/b.json", text).has_value()) {
    auto baseline = sluice::alert::ReadBaselineFile(*fs, "/b.json");
    if (baseline.has_value() && baseline->has_value() && (*baseline)->schema != nullptr) {
      // What was read writes back and reads again.
      if (!sluice::alert::WriteBaselineFile(*fs, "/c.json", **baseline).has_value()) std::abort();
      auto again = sluice::alert::ReadBaselineFile(*fs, "/c.json");
      if (!again.has_value() || !again->has_value()) std::abort();
    }
  }
  (void)sluice::alert::ParseWatchConfig(text, "/etc");
  auto target = sluice::alert::ParseTarget(text);
  if (target.has_value()) {
    std::string shown = target->Display();
    if (shown.find('?') != std::string::npos && target->kind != sluice::alert::TargetKind::kEmail &&
        target->kind != sluice::alert::TargetKind::kFile) {
      std::abort();  // a query (where webhook tokens hide) is never shown
    }
  }
  (void)sluice::alert::internal::ParseSmtpUrl(text);
  return 0;
}
