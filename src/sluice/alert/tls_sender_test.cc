// The HTTP sender against a TLS server on loopback with certificates made by the openssl tool for
// this test: a private CA is trusted only when given (SendOptions::ca_cert or SSL_CERT_FILE), and
// an unverifiable peer is a permanent failure, never a silent fallback.
#include <gtest/gtest.h>
#include <httplib.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "sluice/alert/senders_internal.h"

namespace sluice::alert {
namespace {

namespace fs = std::filesystem;

class TlsSenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("openssl version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no openssl tool";
    dir_ = fs::temp_directory_path() / ("sluice_tls_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    const std::string d = dir_.string();
    const std::string key = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes ";
    const std::string script =
        "cd " + d + " && openssl req -x509" + key +
        "-keyout ca.key -out ca.pem -days 2 -subj /CN=sluice-test-ca && "
        "for name in good:IP:127.0.0.1 wrong:DNS:example.com; do n=${name%%:*}; "
        "openssl req" +
        key +
        "-keyout $n.key -out $n.csr -subj /CN=$n && "
        "printf 'subjectAltName=%s\\n' ${name#*:} > $n.ext && "
        "openssl x509 -req -in $n.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out $n.pem "
        "-days 2 -extfile $n.ext || exit 1; done > /dev/null 2>&1";
    ASSERT_EQ(std::system(script.c_str()), 0) << "making test certificates failed";
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Serve POST / with `cert` (good or wrong) while `body` runs; returns how many requests came.
  template <typename F>
  int Serve(const std::string& cert, F&& body) {
    const std::string pem = (dir_ / (cert + ".pem")).string();
    const std::string key = (dir_ / (cert + ".key")).string();
    httplib::SSLServer server(pem.c_str(), key.c_str());
    int requests = 0;
    server.Post("/hook/SECRET", [&](const httplib::Request&, httplib::Response& res) {
      ++requests;
      res.status = 204;
    });
    int port = server.bind_to_any_port("127.0.0.1");
    std::thread thread([&] { server.listen_after_bind(); });
    while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    body("webhook:https://127.0.0.1:" + std::to_string(port) + "/hook/SECRET");
    server.stop();
    thread.join();
    return requests;
  }

  SendResult Send(const std::string& spec, const std::string& ca_cert) {
    SendOptions options;
    options.timeout_ms = 3000;
    options.ca_cert = ca_cert;
    return internal::SendHttp(ParseTarget(spec).value(), Message{"id", "", "", "{}"}, options);
  }

  fs::path dir_;
};

TEST_F(TlsSenderTest, TrustsOnlyTheCaItIsGiven) {
  const std::string ca = (dir_ / "ca.pem").string();
  ::unsetenv("SSL_CERT_FILE");
  int requests = Serve("good", [&](const std::string& spec) {
    auto trusted = Send(spec, ca);
    EXPECT_EQ(trusted.outcome, SendOutcome::kDelivered) << trusted.detail;
    EXPECT_EQ(trusted.status, 204);

    auto system_store = Send(spec, "");  // the test CA is not in the system's store
    EXPECT_EQ(system_store.outcome, SendOutcome::kPermanent) << system_store.detail;
    EXPECT_NE(system_store.detail.find("certificate"), std::string::npos) << system_store.detail;
    EXPECT_EQ(system_store.detail.find("SECRET"), std::string::npos) << system_store.detail;

    ::setenv("SSL_CERT_FILE", ca.c_str(), 1);
    auto from_env = Send(spec, "");
    ::unsetenv("SSL_CERT_FILE");
    EXPECT_EQ(from_env.outcome, SendOutcome::kDelivered) << from_env.detail;
  });
  EXPECT_EQ(requests, 2);
}

TEST_F(TlsSenderTest, RejectsACertificateForAnotherHost) {
  const std::string ca = (dir_ / "ca.pem").string();
  int requests = Serve("wrong", [&](const std::string& spec) {
    auto r = Send(spec, ca);
    EXPECT_EQ(r.outcome, SendOutcome::kPermanent) << r.detail;
    EXPECT_EQ(r.detail.find("SECRET"), std::string::npos) << r.detail;
  });
  EXPECT_EQ(requests, 0);
}

}  // namespace
}  // namespace sluice::alert
