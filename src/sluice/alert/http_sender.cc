// Slack, Teams and webhooks: one POST per alert over cpp-httplib (OpenSSL for https), classified
// into delivered, retry or permanent for the outbox.
#include <httplib.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <exception>

#include "sluice/alert/http_internal.h"
#include "sluice/alert/senders_internal.h"
#include "sluice/base/hash.h"
#include "sluice/base/strings.h"

namespace sluice::alert::internal {

namespace {

SendResult Outcome(SendOutcome outcome, int status, std::string detail) {
  SendResult r;
  r.outcome = outcome;
  r.status = status;
  r.detail = std::move(detail);
  return r;
}

// A short piece of the server's answer helps ("invalid_payload"), but a server may echo the
// request: drop it when it contains any piece of the URL's path, query or user info, or the secret.
std::string SafeExcerpt(std::string_view body, const HttpUrl& url, const std::string& secret) {
  if (body.empty()) return "";
  std::string pieces = url.path_and_query + "/" + url.user_info;
  for (char& c : pieces) {
    if (c == '?' || c == '&' || c == '=' || c == ':' || c == '@') c = '/';
  }
  for (std::string_view piece : SplitString(pieces, '/')) {
    if (piece.size() >= 4 && body.find(piece) != std::string_view::npos) return "";
  }
  if (!secret.empty() && body.find(secret) != std::string_view::npos) return "";
  std::string out;
  for (char c : body.substr(0, 120)) out += (c >= 0x20 && c < 0x7f) ? c : ' ';
  return ": " + std::string(TrimWhitespace(out));
}

std::string TransportCause(httplib::Error e, int timeout_ms) {
  using httplib::Error;
  switch (e) {
    case Error::Connection:
      return "cannot connect (refused or unreachable)";
    case Error::ConnectionTimeout:
      return "no connection within " + std::to_string(timeout_ms) + " ms";
    case Error::Read:
      return "no complete answer within " + std::to_string(timeout_ms) +
             " ms, or the connection was reset";
    case Error::Write:
      return "the connection closed while the request was sent";
    case Error::SSLConnection:
      return "the TLS handshake failed";
    case Error::SSLLoadingCerts:
      return "cannot load the CA certificates";
    case Error::SSLServerVerification:
      return "the server's TLS certificate cannot be verified";
    case Error::Success:
    case Error::Unknown:
    case Error::BindIPAddress:
    case Error::ExceedRedirectCount:
    case Error::Canceled:
    case Error::UnsupportedMultipartBoundaryChars:
    case Error::Compression:
      break;
  }
  return AsciiLower(httplib::to_string(e));
}

std::optional<int> ParsePort(std::string_view digits) {
  if (digits.empty() || digits.size() > 5) return std::nullopt;
  int port = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    port = port * 10 + (c - '0');
  }
  if (port < 1 || port > 65535) return std::nullopt;
  return port;
}

}  // namespace

std::optional<HttpUrl> ParseHttpUrl(std::string_view url) {
  HttpUrl out;
  size_t sep = url.find("://");
  if (sep == std::string_view::npos) return std::nullopt;
  out.scheme = AsciiLower(url.substr(0, sep));
  if (out.scheme != "http" && out.scheme != "https") return std::nullopt;
  std::string_view rest = url.substr(sep + 3);
  size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  std::string_view tail = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) {
    out.user_info = std::string(authority.substr(0, at));
    authority = authority.substr(at + 1);
  }
  std::string_view port_text;
  bool has_port = false;
  std::string host_shown;
  if (authority.starts_with('[')) {
    size_t close = authority.find(']');
    if (close == std::string_view::npos || close == 1) return std::nullopt;
    out.host = std::string(authority.substr(1, close - 1));
    host_shown = std::string(authority.substr(0, close + 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return std::nullopt;
      port_text = after.substr(1);
      has_port = true;
    }
  } else {
    size_t colon = authority.find(':');
    out.host = std::string(authority.substr(0, colon));
    host_shown = out.host;
    if (colon != std::string_view::npos) {
      port_text = authority.substr(colon + 1);
      has_port = true;
    }
  }
  if (out.host.empty()) return std::nullopt;
  for (char c : out.host) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == '%' || c == '\\') return std::nullopt;
  }
  out.port = out.scheme == "https" ? 443 : 80;
  if (has_port) {
    auto port = ParsePort(port_text);
    if (!port) return std::nullopt;
    out.port = *port;
  }
  tail = tail.substr(0, tail.find('#'));
  out.path_and_query = tail.empty() ? "/" : std::string(tail);
  if (out.path_and_query[0] == '?') out.path_and_query.insert(0, "/");
  out.origin = out.scheme + "://" + host_shown + ":" + std::to_string(out.port);
  out.display = out.scheme + "://" + host_shown + (has_port ? ":" + std::to_string(out.port) : "") +
                (out.path_and_query == "/" ? "/" : "/…");
  return out;
}

std::string HmacSha256Hex(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac, &len);
  return HexEncode(std::string_view(reinterpret_cast<const char*>(mac), len));
}

std::optional<int64_t> ParseRetryAfter(std::string_view value, int64_t now_ms) {
  value = TrimWhitespace(value);
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    // More than a year is not a wait a sender can honour; cap it rather than overflow.
    if (value.size() > 8) return int64_t{366} * 24 * 3600 * 1000;
    return std::stoll(std::string(value)) * 1000;
  }
  // RFC 9110 section 10.2.3: IMF-fixdate, and the obsolete RFC 850 and asctime forms.
  const std::string text(value);
  for (const char* format :
       {"%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"}) {
    std::tm tm{};
    const char* end = ::strptime(text.c_str(), format, &tm);
    if (end == nullptr || *end != '\0') continue;
    int64_t at_ms = static_cast<int64_t>(::timegm(&tm)) * 1000;
    return std::max<int64_t>(0, at_ms - now_ms);
  }
  return std::nullopt;
}

SendResult SendHttp(const Target& target, const Message& message, const SendOptions& options) {
  auto address = ResolveAddress(target);
  // An unset variable is fixed outside the outbox: keep the alert and try again later.
  if (!address.has_value()) return Outcome(SendOutcome::kRetry, 0, address.error().message());
  auto url = ParseHttpUrl(*address);
  if (!url) {
    return Outcome(SendOutcome::kPermanent, 0,
                   "the address of " + target.Display() + " is not an http(s) URL with a host");
  }
  std::string secret;
  if (target.kind == TargetKind::kWebhook) {
    auto resolved = ResolveSecret(target);
    if (!resolved.has_value()) return Outcome(SendOutcome::kRetry, 0, resolved.error().message());
    secret = std::move(*resolved);
  }
  const std::string where = "POST " + url->display;
  // Header values go on the wire as they are: a line break would start a header of its own.
  for (std::string_view value :
       {std::string_view(message.id), std::string_view(message.content_type)}) {
    if (value.find_first_of("\r\n") != std::string_view::npos) {
      return Outcome(SendOutcome::kPermanent, 0,
                     where + ": the message id or content type holds a line break");
    }
  }
  try {
    httplib::Client client(url->origin);
    if (!client.is_valid()) {
      return Outcome(SendOutcome::kPermanent, 0, where + ": not a URL cpp-httplib can use");
    }
    const int ms = std::max(1, options.timeout_ms);
    client.set_connection_timeout(ms / 1000, (ms % 1000) * 1000);
    client.set_read_timeout(ms / 1000, (ms % 1000) * 1000);
    client.set_write_timeout(ms / 1000, (ms % 1000) * 1000);
    client.set_keep_alive(false);
    client.set_follow_location(false);
    if (url->scheme == "https") {
      client.enable_server_certificate_verification(true);
      std::string ca = options.ca_cert;
      if (const char* env = std::getenv("SSL_CERT_FILE"); ca.empty() && env != nullptr) ca = env;
      if (!ca.empty()) client.set_ca_cert_path(ca.c_str());
    }
    if (!url->user_info.empty()) {
      size_t colon = url->user_info.find(':');
      client.set_basic_auth(
          url->user_info.substr(0, colon).c_str(),
          colon == std::string::npos ? "" : url->user_info.substr(colon + 1).c_str());
    }
    httplib::Headers headers = {{"User-Agent", "sluice"}, {"X-Sluice-Delivery", message.id}};
    if (!secret.empty()) {
      headers.emplace("X-Sluice-Signature-256", "sha256=" + HmacSha256Hex(secret, message.body));
    }
    const std::string type =
        message.content_type.empty() ? "application/json" : message.content_type;
    httplib::Result res = client.Post(url->path_and_query.c_str(), headers, message.body.data(),
                                      message.body.size(), type.c_str());
    if (!res) {
      httplib::Error e = res.error();
      bool permanent =
          e == httplib::Error::SSLServerVerification || e == httplib::Error::SSLLoadingCerts;
      return Outcome(permanent ? SendOutcome::kPermanent : SendOutcome::kRetry, 0,
                     where + ": " + TransportCause(e, ms));
    }
    const int status = res->status;
    const std::string answered = where + ": HTTP " + std::to_string(status);
    if (status >= 200 && status < 300) return Outcome(SendOutcome::kDelivered, status, answered);
    std::string detail = answered + SafeExcerpt(res->body, *url, secret);
    if (status == 408 || status == 429 || status >= 500) {
      SendResult r = Outcome(SendOutcome::kRetry, status, std::move(detail));
      if ((status == 429 || status == 503) && res->has_header("Retry-After")) {
        const int64_t now_ms = static_cast<int64_t>(std::time(nullptr)) * 1000;
        r.retry_after_ms = ParseRetryAfter(res->get_header_value("Retry-After"), now_ms);
      }
      return r;
    }
    return Outcome(SendOutcome::kPermanent, status, std::move(detail));
  } catch (const std::exception& e) {
    // cpp-httplib may throw (std::regex, allocation); the outbox tries again later.
    return Outcome(SendOutcome::kRetry, 0, where + ": " + e.what());
  }
}

}  // namespace sluice::alert::internal
