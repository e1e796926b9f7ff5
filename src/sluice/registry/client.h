// A small client for a Confluent-compatible registry (sluice's or Confluent's), used by the
// `sluice registry` commands and by `sluice decode` / `sluice encode`.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/base/result.h"

namespace sluice::registry {

struct ClientOptions {
  std::string url;        // http://host:port or https://host:port, optionally with a path
  std::string user_info;  // "USER:PASSWORD" for basic auth, or empty
  std::string ca_cert;    // PEM file to trust for https (else the system's)
  int timeout_seconds = 30;
};

struct HttpReply {
  int status = 0;
  std::string body;
};

class Client {
 public:
  static Result<std::unique_ptr<Client>> Create(const ClientOptions& options);
  ~Client();

  /// One request; `path` starts with '/' and is already percent-encoded. A transport failure
  /// (no connection, TLS error, timeout) is an error; any HTTP status is a reply.
  Result<HttpReply> Call(std::string_view method, std::string_view path,
                         std::string_view body = {});
  /// Same, with further request headers (e.g. a caller's `Authorization`, passed through by a
  /// proxy); they are sent as given, after the client's own.
  Result<HttpReply> Call(std::string_view method, std::string_view path, std::string_view body,
                         const std::vector<std::pair<std::string, std::string>>& headers);

  /// The message of a Confluent error body, or the body itself.
  static std::string ErrorMessage(const HttpReply& reply);

  class Impl;

 private:
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Percent-encode a path segment (a subject name).
std::string EncodeSegment(std::string_view s);

}  // namespace sluice::registry
