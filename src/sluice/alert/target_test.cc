#include "sluice/alert/target.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "sluice/alert/sender.h"
#include "sluice/alert/senders_internal.h"
#include "sluice/base/file_system.h"

namespace sluice::alert {
namespace {

// Every string a user may see: Display() of a parsed target, or the error of a rejected one.
std::string Shown(std::string_view spec) {
  auto t = ParseTarget(spec);
  return t.has_value() ? t->Display() : t.error().ToString();
}

TEST(TargetTest, ParsesEveryKind) {
  struct Case {
    const char* spec;
    TargetKind kind;
  } cases[] = {{"slack:https://hooks.slack.com/services/T0/B0/X", TargetKind::kSlack},
               {"webhook:http://127.0.0.1:8080/hook", TargetKind::kWebhook},
               {"teams:https://example.webhook.office.com/webhookb2/abc", TargetKind::kTeams},
               {"email:smtp://mail.example.com:587?to=ops@example.com", TargetKind::kEmail},
               {"email:smtps://mail.example.com?to=a@example.com,b@example.com&from=s@example.com",
                TargetKind::kEmail},
               {"file:alerts/drift.jsonl", TargetKind::kFile},
               {"slack:env:SLACK_WEBHOOK_URL", TargetKind::kSlack},
               {"email:env:SMTP_URL", TargetKind::kEmail}};
  for (const Case& c : cases) {
    auto t = ParseTarget(c.spec);
    ASSERT_TRUE(t.has_value()) << c.spec << ": " << t.error().ToString();
    EXPECT_EQ(t->kind, c.kind) << c.spec;
    EXPECT_EQ(t->Spec(), c.spec);
  }
  EXPECT_EQ(TargetKindName(TargetKind::kTeams), "teams");
}

TEST(TargetTest, DisplayHidesPathsQueriesAndPasswords) {
  EXPECT_EQ(Shown("slack:https://hooks.slack.com/services/T0/B0/XSECRET"),
            "slack:https://hooks.slack.com/…");
  EXPECT_EQ(Shown("webhook:https://user:pw-SECRET@example.com:8443/x?token=SECRET"),
            "webhook:https://example.com:8443/…");
  EXPECT_EQ(Shown("webhook:http://[::1]:9000/hook/SECRET"), "webhook:http://[::1]:9000/…");
  EXPECT_EQ(Shown("webhook:https://example.com"), "webhook:https://example.com/");
  EXPECT_EQ(Shown("slack:env:SLACK_WEBHOOK_URL"), "slack:env:SLACK_WEBHOOK_URL");
  EXPECT_EQ(Shown("email:smtp://alerts@mail.example.com:587?to=ops@example.com"
                  "&from=sluice@example.com&password-env=SMTP_PASSWORD"),
            "email:smtp://mail.example.com:587?to=ops@example.com");
  EXPECT_EQ(Shown("file:/var/log/drift.jsonl"), "file:/var/log/drift.jsonl");
}

TEST(TargetTest, ErrorsNeverShowTheAddress) {
  const char* bad[] = {
      "slack:ftp://SECRET@example.com/SECRET",
      "https://hooks.slack.com/services/SECRET",   // the kind forgotten: "https" is no kind
      "slack:https:///SECRET",                     // no host
      "webhook:https://example.com:99999/SECRET",  // a bad port
      "webhook:SECRET",
      "teams:env:SECRET-not-a-name",
      "email:smtp://u:SECRET@mail.example.com:587",  // no recipient
      // A password in the URL is refused when parsed, as the sender would refuse it.
      "email:smtp://alerts:hunter2-SECRET@mail.example.com:587?to=ops@example.com",
      "email:http://mail.example.com/?to=SECRET",
      "pager:SECRET",
  };
  for (const char* spec : bad) {
    auto t = ParseTarget(spec);
    ASSERT_FALSE(t.has_value()) << spec;
    EXPECT_EQ(t.error().code(), ErrorCode::kInvalidArgument) << spec;
    EXPECT_EQ(t.error().message().find("SECRET"), std::string::npos) << t.error().message();
  }
  EXPECT_NE(ParseTarget("pager:x").error().message().find("'pager'"), std::string::npos);
  EXPECT_FALSE(ParseTarget("file:").has_value());
  EXPECT_FALSE(ParseTarget("file:env:X").has_value());
  EXPECT_FALSE(ParseTarget("no colon at all").has_value());
}

TEST(TargetTest, ResolvesEnvironmentVariablesWithoutShowingTheirValues) {
  auto t = ParseTarget("slack:env:SLUICE_TEST_SLACK_URL");
  ASSERT_TRUE(t.has_value());
  ::unsetenv("SLUICE_TEST_SLACK_URL");
  auto missing = ResolveAddress(*t);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message().find("SLUICE_TEST_SLACK_URL"), std::string::npos);

  ::setenv("SLUICE_TEST_SLACK_URL", "https://hooks.slack.com/services/VALUE", 1);
  auto found = ResolveAddress(*t);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(*found, "https://hooks.slack.com/services/VALUE");
  EXPECT_EQ(t->Display().find("VALUE"), std::string::npos);
  ::unsetenv("SLUICE_TEST_SLACK_URL");

  auto plain = ParseTarget("file:a.jsonl");
  EXPECT_EQ(ResolveAddress(*plain).value(), "a.jsonl");
}

TEST(TargetTest, ResolvesSecretsFromEnvironmentOrFile) {
  Target t = ParseTarget("webhook:https://example.com/hook").value();
  EXPECT_EQ(ResolveSecret(t).value(), "");  // unsigned

  t.secret_env = "SLUICE_TEST_SECRET";
  ::unsetenv("SLUICE_TEST_SECRET");
  auto unset = ResolveSecret(t);
  ASSERT_FALSE(unset.has_value());
  EXPECT_NE(unset.error().message().find("SLUICE_TEST_SECRET"), std::string::npos);
  ::setenv("SLUICE_TEST_SECRET", "s3cr3t-VALUE", 1);
  EXPECT_EQ(ResolveSecret(t).value(), "s3cr3t-VALUE");

  const std::string path = (std::filesystem::temp_directory_path() /
                            ("sluice_alert_secret_" + std::to_string(::getpid())))
                               .string();
  ASSERT_TRUE(LocalFileSystem()->WriteFile(path, "file-VALUE\r\n").has_value());
  t.secret_file = path;
  auto both = ResolveSecret(t);
  ASSERT_FALSE(both.has_value());
  EXPECT_EQ(both.error().message().find("VALUE"), std::string::npos);
  t.secret_env.clear();
  EXPECT_EQ(ResolveSecret(t).value(), "file-VALUE");
  ASSERT_TRUE(LocalFileSystem()->WriteFile(path, "\n").has_value());
  EXPECT_FALSE(ResolveSecret(t).has_value());
  ASSERT_TRUE(LocalFileSystem()->RemoveFile(path).has_value());
  auto gone = ResolveSecret(t);
  ASSERT_FALSE(gone.has_value());
  EXPECT_NE(gone.error().message().find(path), std::string::npos);
  ::unsetenv("SLUICE_TEST_SECRET");
}

Message Line(std::string id, std::string body) {
  return Message{std::move(id), "application/json", "", std::move(body)};
}

TEST(FileSenderTest, AppendsOneLinePerAlertAndCreatesFolders) {
  MemoryFileSystem fs;
  auto first = internal::AppendToFile(fs, "logs/drift/alerts.jsonl", Line("a", R"({"n":1})"));
  EXPECT_EQ(first.outcome, SendOutcome::kDelivered) << first.detail;
  auto second = internal::AppendToFile(fs, "logs/drift/alerts.jsonl", Line("b", R"({"n":2})"));
  EXPECT_EQ(second.outcome, SendOutcome::kDelivered) << second.detail;
  EXPECT_EQ(fs.ReadFile("logs/drift/alerts.jsonl").value(), "{\"n\":1}\n{\"n\":2}\n");

  // A line cut short by a crash elsewhere is ended before the next record.
  ASSERT_TRUE(fs.WriteFile("cut.jsonl", "{\"n\":").has_value());
  EXPECT_EQ(internal::AppendToFile(fs, "cut.jsonl", Line("c", "{}")).outcome,
            SendOutcome::kDelivered);
  EXPECT_EQ(fs.ReadFile("cut.jsonl").value(), "{\"n\":\n{}\n");

  auto multi = internal::AppendToFile(fs, "x.jsonl", Line("d", "{\n}"));
  EXPECT_EQ(multi.outcome, SendOutcome::kPermanent);
  EXPECT_FALSE(fs.Exists("x.jsonl").value());
}

TEST(SenderTest, DispatchesByKind) {
  MemoryFileSystem fs;
  auto sender = MakeSender(fs, SendOptions{});
  auto file = sender->Send(ParseTarget("file:out/a.jsonl").value(), Line("1", "{}"));
  EXPECT_EQ(file.outcome, SendOutcome::kDelivered);
  EXPECT_EQ(fs.ReadFile("out/a.jsonl").value(), "{}\n");

  auto email = sender->Send(ParseTarget("email:smtp://127.0.0.1:1?to=a@b").value(),
                            Message{"2", "text/plain", "subject", "body"});
  EXPECT_NE(email.outcome, SendOutcome::kDelivered);

  ::unsetenv("SLUICE_TEST_UNSET_URL");
  for (const char* spec : {"slack:env:SLUICE_TEST_UNSET_URL", "email:env:SLUICE_TEST_UNSET_URL"}) {
    auto r = sender->Send(ParseTarget(spec).value(), Line("3", "{}"));
    // Setting the variable fixes it: the alert is kept for a retry, not failed.
    EXPECT_EQ(r.outcome, SendOutcome::kRetry) << spec;
    EXPECT_NE(r.detail.find("SLUICE_TEST_UNSET_URL"), std::string::npos) << r.detail;
  }
  EXPECT_EQ(SendOutcomeName(SendOutcome::kPermanent), "permanent");
}

}  // namespace
}  // namespace sluice::alert
