// Fuzz the registry's REST layer the way a hostile client reaches it: the request line's target
// (path, percent-escapes, query string) and the body go through Registry::Handle over an
// in-memory SQLite store, and the Authorization header through Users::Authenticate.
//
// Input layout: byte 0 picks the method, then the target up to the first '\n', then the body.
// Every answer must be a well-formed response: a status in 200..499 (bad input is never a 5xx),
// a body that is JSON, and for a 4xx a Confluent error object with an integer error_code and a
// string message. The registry keeps its state across inputs, so sequences of registrations,
// deletes and config changes are explored too; it is rebuilt every few thousand inputs to keep
// the store small.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/base/json.h"
#include "sluice/base/strings.h"
#include "sluice/registry/auth.h"
#include "sluice/registry/registry.h"

namespace {

using namespace sluice;

std::unique_ptr<registry::Registry> g_registry;
std::unique_ptr<registry::Users> g_users;
int g_inputs = 0;

void Fail(const char* what, int status, std::string_view body) {
  std::fprintf(stderr, "%s: status %d body %.*s\n", what, status, static_cast<int>(body.size()),
               body.data());
  std::abort();
}

registry::Registry& Instance() {
  if (!g_registry || ++g_inputs % 4096 == 0) {
    auto store = registry::Store::Open("sqlite::memory:");
    if (!store.has_value()) std::abort();
    g_registry = std::make_unique<registry::Registry>(std::move(store).value());
  }
  return *g_registry;
}

registry::Users& TheUsers() {
  if (!g_users) {
    // The fewest iterations allowed keeps the hash cheap: the fuzzer explores the header
    // parsing, not PBKDF2.
    auto hash = registry::HashPassword("pw", 1000);
    if (!hash.has_value()) std::abort();
    std::string text = R"({"users":[{"name":"u","password":")" + hash.value() +
                       R"(","permissions":[{"prefix":"a-","permission":"write"}]}]})";
    auto users = registry::Users::Parse(text);
    if (!users.has_value()) std::abort();
    g_users = std::move(users).value();
  }
  return *g_users;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static constexpr std::string_view kMethods[] = {"GET", "POST", "PUT", "DELETE", "PATCH"};
  std::string_view method = kMethods[data[0] % 5];
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  size_t newline = rest.find('\n');
  std::string_view target = rest.substr(0, newline);
  std::string_view body = newline == std::string_view::npos ? "" : rest.substr(newline + 1);

  // The same bytes as an Authorization header: must not crash, and only the right password
  // authenticates.
  const registry::UserPolicy* who = TheUsers().Authenticate(target);
  if (who != nullptr) {
    auto decoded = target.size() > 6 ? Base64Decode(target.substr(6)) : std::nullopt;
    if (!EqualsIgnoreCase(target.substr(0, 6), "Basic ") || decoded != "u:pw") {
      Fail("authenticated", 0, target);
    }
  }

  registry::Request request{method, target, body};
  registry::Response response = Instance().Handle(request, (data[0] & 0x80) ? who : nullptr);
  if (response.status < 200 || response.status > 499) {
    Fail("status out of range", response.status, response.body);
  }
  auto parsed = ParseJson(response.body);
  if (!parsed.has_value()) Fail("body is not JSON", response.status, response.body);
  if (response.status >= 400) {
    const JsonValue& v = parsed.value();
    const JsonValue* code = v.is_object() ? v.Find("error_code") : nullptr;
    const JsonValue* message = v.is_object() ? v.Find("message") : nullptr;
    if (code == nullptr || !code->is_number() || message == nullptr || !message->is_string()) {
      Fail("error body is not Confluent's", response.status, response.body);
    }
  }
  return 0;
}
