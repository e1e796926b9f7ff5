#include "sluice/registry/auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <charconv>

#include "sluice/base/json.h"
#include "sluice/base/strings.h"

namespace sluice::registry {
namespace {

constexpr std::string_view kScheme = "pbkdf2-sha256";
constexpr int kHashBytes = 32;

std::optional<std::string> Pbkdf2(std::string_view password, std::string_view salt,
                                  int iterations) {
  std::string out(kHashBytes, '\0');
  if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                        reinterpret_cast<const unsigned char*>(salt.data()),
                        static_cast<int>(salt.size()), iterations, EVP_sha256(), kHashBytes,
                        reinterpret_cast<unsigned char*>(out.data())) != 1) {
    return std::nullopt;
  }
  return out;
}

int Rank(Permission p) {
  switch (p) {
    case Permission::kRead:
      return 0;
    case Permission::kWrite:
      return 1;
    case Permission::kAdmin:
      return 2;
  }
  return 0;
}

}  // namespace

Result<std::string> HashPassword(std::string_view password, int iterations) {
  if (iterations < 1000) return InvalidArgument("use at least 1000 PBKDF2 iterations");
  if (password.find('\0') != std::string_view::npos) {
    return InvalidArgument("a password cannot contain a NUL byte");
  }
  std::string salt(16, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(salt.data()), 16) != 1) {
    return Internal("OpenSSL could not make a random salt");
  }
  auto hash = Pbkdf2(password, salt, iterations);
  if (!hash) return Internal("OpenSSL PBKDF2 failed");
  return std::string(kScheme) + "$" + std::to_string(iterations) + "$" + Base64Encode(salt) + "$" +
         Base64Encode(*hash);
}

bool VerifyPassword(std::string_view password, std::string_view encoded) {
  std::vector<std::string_view> parts;
  while (true) {
    size_t d = encoded.find('$');
    parts.push_back(encoded.substr(0, d));
    if (d == std::string_view::npos) break;
    encoded.remove_prefix(d + 1);
  }
  if (parts.size() != 4 || parts[0] != kScheme) return false;
  int iterations = 0;
  auto [p, ec] = std::from_chars(parts[1].data(), parts[1].data() + parts[1].size(), iterations);
  if (ec != std::errc() || p != parts[1].data() + parts[1].size() || iterations < 1 ||
      iterations > 10000000) {
    return false;
  }
  auto salt = Base64Decode(parts[2]);
  auto want = Base64Decode(parts[3]);
  if (!salt || !want || want->size() != kHashBytes) return false;
  auto got = Pbkdf2(password, *salt, iterations);
  return got && CRYPTO_memcmp(got->data(), want->data(), kHashBytes) == 0;
}

bool UserPolicy::Allows(Permission p, std::string_view subject) const {
  for (const Grant& g : grants_) {
    if (Rank(g.permission) < Rank(p)) continue;
    const bool everything = g.prefix.empty() || g.prefix == "*";
    if (everything) return true;
    // The registry as a whole (global config and mode) needs a grant on every subject.
    if (!subject.empty() && subject.starts_with(g.prefix)) return true;
  }
  return false;
}

Result<std::unique_ptr<Users>> Users::Load(FileSystem& fs, std::string_view path) {
  SLUICE_ASSIGN_OR_RETURN(std::string text, fs.ReadFile(path));
  auto users = Parse(text);
  if (!users.has_value()) {
    return Fail(users.error().code(), std::string(path) + ": " + users.error().message());
  }
  return users;
}

Result<std::unique_ptr<Users>> Users::Parse(std::string_view text) {
  SLUICE_ASSIGN_OR_RETURN(JsonValue doc, ParseJson(text));
  const JsonValue* list = doc.is_object() ? doc.Find("users") : nullptr;
  if (!list || !list->is_array()) return InvalidArgument("expected {\"users\": [...]}");
  auto out = std::make_unique<Users>();
  size_t i = 0;
  for (const JsonValue& u : list->items()) {
    const std::string where = "users[" + std::to_string(i++) + "]";
    const JsonValue* name = u.is_object() ? u.Find("name") : nullptr;
    const JsonValue* password = u.is_object() ? u.Find("password") : nullptr;
    if (!name || !name->is_string() || name->as_string().empty() ||
        name->as_string().find(':') != std::string::npos) {
      return InvalidArgument(where + ": \"name\" must be a non-empty string without ':'");
    }
    if (!password || !password->is_string() ||
        !password->as_string().starts_with(std::string(kScheme) + "$")) {
      return InvalidArgument(where +
                             ": \"password\" must be a hash from `sluice registry "
                             "hash-password` (pbkdf2-sha256$...)");
    }
    std::vector<Grant> grants;
    if (const JsonValue* perms = u.Find("permissions")) {
      if (!perms->is_array()) return InvalidArgument(where + ": \"permissions\" must be a list");
      for (const JsonValue& g : perms->items()) {
        const JsonValue* prefix = g.is_object() ? g.Find("prefix") : nullptr;
        const JsonValue* perm = g.is_object() ? g.Find("permission") : nullptr;
        if (!prefix || !prefix->is_string() || !perm || !perm->is_string()) {
          return InvalidArgument(where +
                                 ": each permission is {\"prefix\": ..., "
                                 "\"permission\": \"read\"|\"write\"|\"admin\"}");
        }
        std::string level = AsciiLower(perm->as_string());
        Permission p = Permission::kRead;
        if (level == "write") {
          p = Permission::kWrite;
        } else if (level == "admin") {
          p = Permission::kAdmin;
        } else if (level != "read") {
          return InvalidArgument(where + ": unknown permission '" + perm->as_string() +
                                 "' (read, write or admin)");
        }
        grants.push_back({prefix->as_string(), p});
      }
    }
    const std::string& n = name->as_string();
    if (out->users_.contains(n)) return InvalidArgument(where + ": user '" + n + "' repeated");
    out->users_.emplace(
        n, User{password->as_string(), std::make_unique<UserPolicy>(n, std::move(grants))});
  }
  return out;
}

const UserPolicy* Users::Authenticate(std::string_view header) const {
  constexpr std::string_view kBasic = "Basic ";
  if (header.size() <= kBasic.size() || !EqualsIgnoreCase(header.substr(0, 6), kBasic)) {
    return nullptr;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = verified_.find(std::string(header));
    if (it != verified_.end()) return it->second;
  }
  auto decoded = Base64Decode(header.substr(kBasic.size()));
  if (!decoded) return nullptr;
  size_t colon = decoded->find(':');
  if (colon == std::string::npos) return nullptr;
  // HMAC pads short keys with zero bytes, so "pw" and "pw\0" would hash the same: a password
  // with a NUL byte in it is refused outright (none can be set, see HashPassword).
  if (decoded->find('\0') != std::string::npos) return nullptr;
  auto it = users_.find(decoded->substr(0, colon));
  if (it == users_.end()) return nullptr;
  if (!VerifyPassword(std::string_view(*decoded).substr(colon + 1), it->second.hash)) {
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (verified_.size() > 10000) verified_.clear();
  verified_.emplace(std::string(header), it->second.policy.get());
  return it->second.policy.get();
}

}  // namespace sluice::registry
