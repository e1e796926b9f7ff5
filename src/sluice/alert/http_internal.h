// Pieces of the HTTP sender that tests check on their own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::alert::internal {

/// Lower-case hex of HMAC-SHA256(key, data): the value of `X-Sluice-Signature-256` after
/// `sha256=`, as GitHub signs webhooks.
std::string HmacSha256Hex(std::string_view key, std::string_view data);

/// A `Retry-After` value (delta-seconds, or an HTTP date in IMF-fixdate, RFC 850 or asctime form)
/// in milliseconds from `now_ms`, 0 for a date in the past; nullopt when it is neither.
std::optional<int64_t> ParseRetryAfter(std::string_view value, int64_t now_ms);

/// The parts of an http(s) URL a sender needs. `display` is scheme://host[:port] and `/…` when
/// anything followed: safe to print.
struct HttpUrl {
  std::string scheme;  // "http" or "https"
  std::string host;    // without brackets for IPv6
  int port = 0;
  std::string user_info;       // USER[:PASSWORD] before the host, sent as basic auth; never shown
  std::string path_and_query;  // "/" at least
  std::string origin;          // scheme://host[:port], as cpp-httplib's Client takes it
  std::string display;
};

/// Split an http(s) URL; nullopt when it is not one (no host, a bad port, another scheme).
std::optional<HttpUrl> ParseHttpUrl(std::string_view url);

}  // namespace sluice::alert::internal
