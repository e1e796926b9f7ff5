// HTTP basic authentication for the registry: a users file with salted password hashes and
// per-subject-prefix permissions (read < write < admin).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/base/result.h"
#include "sluice/registry/registry.h"

namespace sluice::registry {

/// "pbkdf2-sha256$ITERATIONS$SALT$HASH" (salt and hash in base64): PBKDF2-HMAC-SHA256 with a
/// fresh 16-byte random salt and a 32-byte hash.
Result<std::string> HashPassword(std::string_view password, int iterations = 100000);
/// Whether `password` matches `encoded` (a HashPassword result); compares in constant time.
bool VerifyPassword(std::string_view password, std::string_view encoded);

struct Grant {
  std::string prefix;  // subjects starting with it; "" or "*" is every subject and the registry
  Permission permission = Permission::kRead;
};

/// One user's grants as an AccessPolicy.
class UserPolicy final : public AccessPolicy {
 public:
  UserPolicy(std::string name, std::vector<Grant> grants)
      : name_(std::move(name)), grants_(std::move(grants)) {}
  bool Allows(Permission p, std::string_view subject) const override;
  const std::string& name() const { return name_; }
  /// The grants as the users file lists them.
  const std::vector<Grant>& grants() const { return grants_; }

 private:
  std::string name_;
  std::vector<Grant> grants_;
};

/// The users file (docs/registry.md): a JSON object
/// `{"users": [{"name": "ci", "password": "pbkdf2-sha256$...",
///              "permissions": [{"prefix": "orders-", "permission": "write"}]}]}`.
class Users {
 public:
  /// Read and parse the users file at `path` in `fs` (the server passes the local file system).
  /// Errors name the path.
  static Result<std::unique_ptr<Users>> Load(FileSystem& fs, std::string_view path);
  static Result<std::unique_ptr<Users>> Parse(std::string_view text);

  /// The user an `Authorization` header names, or nullptr when it is missing, not basic, or
  /// the credentials are wrong. Verified headers are remembered, so the hash is computed once
  /// per client rather than once per request.
  const UserPolicy* Authenticate(std::string_view authorization_header) const;

 private:
  struct User {
    std::string hash;
    std::unique_ptr<UserPolicy> policy;
  };
  std::unordered_map<std::string, User> users_;
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, const UserPolicy*> verified_;
};

}  // namespace sluice::registry
