#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "sluice/alert/http_internal.h"
#include "sluice/alert/sender.h"
#include "sluice/alert/senders_internal.h"

namespace sluice::alert {
namespace {

using internal::HmacSha256Hex;
using internal::ParseRetryAfter;

TEST(HmacTest, MatchesKnownVectors) {
  // Both computed with `openssl dgst -sha256 -hmac KEY`; the first is GitHub's documented example.
  EXPECT_EQ(HmacSha256Hex("It's a Secret to Everybody", "Hello, World!"),
            "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17");
  EXPECT_EQ(HmacSha256Hex("It's a Secret to Everybody", R"({"alert":"drift","source":"payments"})"),
            "e85d503ba551142cfbb40471e12ee290705abcb3dc119c790ad1506c1506ce14");
}

TEST(RetryAfterTest, ParsesSecondsAndHttpDates) {
  const int64_t at = int64_t{784111777} * 1000;  // Sun, 06 Nov 1994 08:49:37 GMT
  EXPECT_EQ(ParseRetryAfter("120", at), 120000);
  EXPECT_EQ(ParseRetryAfter(" 0 ", at), 0);
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", at - 30000), 30000);
  EXPECT_EQ(ParseRetryAfter("Sunday, 06-Nov-94 08:49:37 GMT", at - 5000), 5000);
  EXPECT_EQ(ParseRetryAfter("Sun Nov  6 08:49:37 1994", at - 1000), 1000);
  EXPECT_EQ(ParseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", at + 60000), 0);  // in the past
  EXPECT_EQ(ParseRetryAfter("99999999999999", at), int64_t{366} * 24 * 3600 * 1000);
  for (const char* bad : {"", "soon", "-5", "1.5", "Sun, 06 Nov 1994 08:49:37 GMT trailing"}) {
    EXPECT_FALSE(ParseRetryAfter(bad, at).has_value()) << bad;
  }
}

TEST(HttpUrlTest, SplitsUrls) {
  auto u = internal::ParseHttpUrl("https://u:p@Example.com:8443/a/b?c=d#frag");
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->host, "Example.com");
  EXPECT_EQ(u->port, 8443);
  EXPECT_EQ(u->user_info, "u:p");
  EXPECT_EQ(u->path_and_query, "/a/b?c=d");
  EXPECT_EQ(u->origin, "https://Example.com:8443");
  EXPECT_EQ(u->display, "https://Example.com:8443/…");
  auto q = internal::ParseHttpUrl("http://h?x=1");
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->path_and_query, "/?x=1");
  EXPECT_EQ(q->port, 80);
  for (const char* bad : {"ftp://h/", "http://", "http://:80/", "http://h:0/", "http://h:x/",
                          "http://[::1/", "h/path"}) {
    EXPECT_FALSE(internal::ParseHttpUrl(bad).has_value()) << bad;
  }
}

// A loopback server with one route per behaviour, recording what it received.
class LoopbackServer {
 public:
  struct Seen {
    std::string path, body, content_type, delivery, signature;
  };

  LoopbackServer() {
    server_.Post("/ok/SECRET-PATH", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      res.status = 200;
    });
    server_.Post("/flaky", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      res.status = flaky_calls_++ == 0 ? 500 : 200;
    });
    server_.Post("/busy", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      res.status = 429;
      res.set_header("Retry-After", "1");
    });
    server_.Post("/unavailable", [](const httplib::Request&, httplib::Response& res) {
      res.status = 503;
      res.set_header("Retry-After", "Fri, 31 Dec 1999 23:59:59 GMT");
    });
    server_.Post("/slow", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      res.status = 200;
    });
    server_.Post("/bad", [](const httplib::Request& req, httplib::Response& res) {
      res.status = 400;
      // An answer echoing the request's path is left out of the detail.
      res.set_content(req.path == "/bad" ? "invalid_payload" : req.path, "text/plain");
    });
    server_.Post("/bad/echo-SECRET", [](const httplib::Request& req, httplib::Response& res) {
      res.status = 400;
      res.set_content("no such hook " + req.path, "text/plain");
    });
    server_.Post("/bad/T0/B0/tokenSECRET", [](const httplib::Request&, httplib::Response& res) {
      res.status = 403;
      res.set_content("invalid token tokenSECRET", "text/plain");
    });
    server_.Post("/auth",
                 [](const httplib::Request&, httplib::Response& res) { res.status = 401; });
    server_.Post("/gone",
                 [](const httplib::Request&, httplib::Response& res) { res.status = 410; });
    server_.Post("/timeout408",
                 [](const httplib::Request&, httplib::Response& res) { res.status = 408; });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LoopbackServer() {
    server_.stop();
    thread_.join();
  }

  std::string Url(std::string_view path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
  }
  std::vector<Seen> seen() {
    std::lock_guard lock(mu_);
    return seen_;
  }

 private:
  void Record(const httplib::Request& req) {
    std::lock_guard lock(mu_);
    seen_.push_back(Seen{req.path, req.body, req.get_header_value("Content-Type"),
                         req.get_header_value("X-Sluice-Delivery"),
                         req.get_header_value("X-Sluice-Signature-256")});
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::vector<Seen> seen_;
  std::atomic<int> flaky_calls_{0};
};

Message Json(std::string id, std::string body) {
  return Message{std::move(id), "application/json", "", std::move(body)};
}

SendResult Post(const std::string& spec, const Message& m, int timeout_ms = 2000,
                std::string secret_env = "") {
  Target t = ParseTarget(spec).value();
  t.secret_env = std::move(secret_env);
  SendOptions options;
  options.timeout_ms = timeout_ms;
  return internal::SendHttp(t, m, options);
}

TEST(HttpSenderTest, DeliversWithIdAndSignature) {
  LoopbackServer server;
  ::setenv("SLUICE_TEST_HOOK_SECRET", "It's a Secret to Everybody", 1);
  auto r = Post("webhook:" + server.Url("/ok/SECRET-PATH"), Json("alert-1", "Hello, World!"), 2000,
                "SLUICE_TEST_HOOK_SECRET");
  ::unsetenv("SLUICE_TEST_HOOK_SECRET");
  EXPECT_EQ(r.outcome, SendOutcome::kDelivered) << r.detail;
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.detail.find("SECRET"), std::string::npos) << r.detail;
  auto unsigned_slack = Post("slack:" + server.Url("/ok/SECRET-PATH"), Json("alert-2", "{}"));
  EXPECT_EQ(unsigned_slack.outcome, SendOutcome::kDelivered) << unsigned_slack.detail;

  auto seen = server.seen();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].body, "Hello, World!");
  EXPECT_EQ(seen[0].content_type, "application/json");
  EXPECT_EQ(seen[0].delivery, "alert-1");
  EXPECT_EQ(seen[0].signature,
            "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17");
  EXPECT_EQ(seen[1].delivery, "alert-2");
  EXPECT_EQ(seen[1].signature, "");
}

TEST(HttpSenderTest, RetriesServerErrorsThenDelivers) {
  LoopbackServer server;
  auto first = Post("webhook:" + server.Url("/flaky"), Json("a", "{}"));
  EXPECT_EQ(first.outcome, SendOutcome::kRetry);
  EXPECT_EQ(first.status, 500);
  EXPECT_FALSE(first.retry_after_ms.has_value());
  auto second = Post("webhook:" + server.Url("/flaky"), Json("a", "{}"));
  EXPECT_EQ(second.outcome, SendOutcome::kDelivered) << second.detail;
  EXPECT_EQ(Post("webhook:" + server.Url("/timeout408"), Json("a", "{}")).outcome,
            SendOutcome::kRetry);
}

TEST(HttpSenderTest, HonoursRetryAfter) {
  LoopbackServer server;
  auto busy = Post("teams:" + server.Url("/busy"), Json("a", "{}"));
  EXPECT_EQ(busy.outcome, SendOutcome::kRetry);
  EXPECT_EQ(busy.status, 429);
  EXPECT_EQ(busy.retry_after_ms, 1000);
  auto unavailable = Post("webhook:" + server.Url("/unavailable"), Json("a", "{}"));
  EXPECT_EQ(unavailable.outcome, SendOutcome::kRetry);
  EXPECT_EQ(unavailable.retry_after_ms, 0);  // a date in the past: now
}

TEST(HttpSenderTest, TimesOutOnAHangingServer) {
  LoopbackServer server;
  auto start = std::chrono::steady_clock::now();
  auto r = Post("webhook:" + server.Url("/slow"), Json("a", "{}"), 300);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.outcome, SendOutcome::kRetry) << r.detail;
  EXPECT_EQ(r.status, 0);
  EXPECT_LT(took, std::chrono::milliseconds(1400));
}

TEST(HttpSenderTest, ClientErrorsArePermanent) {
  LoopbackServer server;
  auto bad = Post("webhook:" + server.Url("/bad"), Json("a", "{}"));
  EXPECT_EQ(bad.outcome, SendOutcome::kPermanent);
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.detail.find("invalid_payload"), std::string::npos) << bad.detail;
  auto echo = Post("webhook:" + server.Url("/bad/echo-SECRET"), Json("a", "{}"));
  EXPECT_EQ(echo.outcome, SendOutcome::kPermanent);
  EXPECT_EQ(echo.detail.find("SECRET"), std::string::npos) << echo.detail;
  auto token = Post("slack:" + server.Url("/bad/T0/B0/tokenSECRET"), Json("a", "{}"));
  EXPECT_EQ(token.outcome, SendOutcome::kPermanent);
  EXPECT_EQ(token.status, 403);
  EXPECT_EQ(token.detail.find("SECRET"), std::string::npos) << token.detail;
  auto auth = Post("slack:" + server.Url("/auth"), Json("a", "{}"));
  EXPECT_EQ(auth.outcome, SendOutcome::kPermanent);
  EXPECT_EQ(auth.status, 401);
  EXPECT_EQ(Post("webhook:" + server.Url("/gone"), Json("a", "{}")).outcome,
            SendOutcome::kPermanent);
  EXPECT_EQ(Post("webhook:" + server.Url("/no-such-route"), Json("a", "{}")).outcome,
            SendOutcome::kPermanent);  // 404
}

TEST(HttpSenderTest, RefusesHeaderInjection) {
  LoopbackServer server;
  auto r = Post("webhook:" + server.Url("/ok/SECRET-PATH"),
                Message{"id\r\nX-Injected: 1", "application/json", "", "{}"});
  EXPECT_EQ(r.outcome, SendOutcome::kPermanent);
  EXPECT_TRUE(server.seen().empty());
}

TEST(HttpSenderTest, RefusedConnectionIsRetried) {
  // A port that was just free: bound, then closed, so nothing listens there.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  ::close(fd);
  const std::string url =
      "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/hooks/SECRET?token=SECRET";
  auto r = Post("webhook:" + url, Json("a", "{}"));
  EXPECT_EQ(r.outcome, SendOutcome::kRetry);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.detail.find("SECRET"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("127.0.0.1"), std::string::npos) << r.detail;
}

TEST(HttpSenderTest, UnverifiableTlsIsPermanent) {
  // A plain-HTTP server spoken to over https fails the handshake; a CA file that does not exist
  // fails before any byte is sent. Neither shows the URL's path.
  LoopbackServer server;
  std::string url = server.Url("/ok/SECRET-PATH");
  url.replace(0, 4, "https");
  Target t = ParseTarget("webhook:" + url).value();
  SendOptions options;
  options.timeout_ms = 2000;
  options.ca_cert = "/nonexistent/ca.pem";
  auto r = internal::SendHttp(t, Json("a", "{}"), options);
  EXPECT_NE(r.outcome, SendOutcome::kDelivered);
  EXPECT_EQ(r.detail.find("SECRET"), std::string::npos) << r.detail;
  EXPECT_TRUE(server.seen().empty());
}

}  // namespace
}  // namespace sluice::alert
