// `sluice drift watch CONFIG`: the YAML file naming what to watch (docs/drift.md has the full
// reference):
//
//   outbox: alerts.db                  # default: .sluice-alerts.db beside the config
//   defaults:                          # apply to every source that does not say otherwise
//     interval: 5m                     # 30s, 5m, 1h, or seconds as a number
//     notify: [slack:env:SLACK_WEBHOOK_URL]
//   sources:
//     - name: payments                 # unique; defaults to the source
//       source: landing/payments/      # what `sluice drift check` takes as SOURCE
//       baseline: baselines/payments.json
//       mode: spark                    # data files: spark (default) or autoloader
//       contract: payments.yaml        # optional rules (or none: change severity)
//       accept: false                  # move the baseline after alerting
//       link: https://wiki/runbooks/payments
//       webhook_secret_env: ALERT_SECRET
//
// Relative paths are relative to the config file's folder.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sluice/base/result.h"

namespace sluice::alert {

struct WatchSource {
  std::string name;
  std::string source;
  std::string baseline;
  std::string mode = "spark";
  std::string contract;
  std::string format;  // input format of data files (json, csv, parquet, avro); empty: detected
  bool accept = false;
  int64_t interval_ms = 300000;
  std::vector<std::string> notify;
  std::string link;
  std::string webhook_secret_env;
  std::string webhook_secret_file;
};

struct WatchConfig {
  std::string outbox;
  std::vector<WatchSource> sources;
};

/// Parse a watch config. `base_dir` resolves relative paths ("" keeps them as written).
/// kParseError names the key (`sources[2].interval`) for anything malformed or unknown.
Result<WatchConfig> ParseWatchConfig(std::string_view yaml, const std::string& base_dir);

/// "30s", "5m", "1h", "250ms" or a bare number of seconds, as milliseconds (at least 1 s).
Result<int64_t> ParseInterval(std::string_view text);

}  // namespace sluice::alert
