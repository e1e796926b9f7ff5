// The SMTP sender's URL grammar and defaults, and the message it puts on the wire: headers that
// cannot be injected into, a 7-bit body that decodes back to what was given, dot-stuffing.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "sluice/alert/smtp_internal.h"
#include "sluice/base/strings.h"

namespace sluice::alert::internal {
namespace {

SmtpUrl Parse(std::string_view url) {
  auto parsed = ParseSmtpUrl(url);
  EXPECT_TRUE(parsed.has_value()) << url << ": " << parsed.error().message();
  return parsed.has_value() ? *parsed : SmtpUrl{};
}

std::vector<std::string> Lines(std::string_view data) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t at = data.find("\r\n"); at != std::string_view::npos; at = data.find("\r\n", start)) {
    out.emplace_back(data.substr(start, at - start));
    start = at + 2;
  }
  out.emplace_back(data.substr(start));
  return out;
}

// The body part of DATA: after the blank line, without the final ".\r\n".
std::string BodyOf(const std::string& data) {
  const size_t blank = data.find("\r\n\r\n");
  EXPECT_NE(blank, std::string::npos);
  EXPECT_TRUE(EndsWith(data, "\r\n.\r\n"));
  return data.substr(blank + 4, data.size() - blank - 4 - 3);
}

std::string HeaderBlock(const std::string& data) { return data.substr(0, data.find("\r\n\r\n")); }

std::string DecodeQuotedPrintable(std::string_view in) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '=') {
      out += in[i];
    } else if (in.substr(i + 1, 2) == "\r\n") {
      i += 2;  // a soft line break
    } else {
      out += static_cast<char>(std::stoi(std::string(in.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    }
  }
  return out;
}

Message TextMessage(std::string subject, std::string body) {
  Message m;
  m.id = "drift-7f3a";
  m.content_type = "text/plain; charset=utf-8";
  m.subject = std::move(subject);
  m.body = std::move(body);
  return m;
}

TEST(SmtpUrlTest, DefaultsForARemoteServerRequireStartTls) {
  const SmtpUrl u = Parse("smtp://mail.example.com?to=ops@example.com");
  EXPECT_EQ(u.host, "mail.example.com");
  EXPECT_EQ(u.port, 25);
  EXPECT_EQ(u.tls, SmtpTls::kRequired);
  EXPECT_FALSE(u.loopback);
  EXPECT_EQ(u.from, "sluice@" + LocalHostName());
  EXPECT_EQ(u.where, "mail.example.com:25");
  EXPECT_EQ(u.to, std::vector<std::string>{"ops@example.com"});
  EXPECT_TRUE(u.user.empty());
}

TEST(SmtpUrlTest, SmtpsIsImplicitTlsOnPort465) {
  const SmtpUrl u = Parse("SMTPS://mail.example.com?to=ops@example.com");
  EXPECT_EQ(u.tls, SmtpTls::kImplicit);
  EXPECT_EQ(u.port, 465);
  EXPECT_FALSE(ParseSmtpUrl("smtps://mail.example.com?to=a@b.c&starttls=off").has_value());
}

TEST(SmtpUrlTest, LoopbackDefaultsToAutoUnlessToldOtherwise) {
  EXPECT_EQ(Parse("smtp://127.0.0.1:2525?to=a@example.com").tls, SmtpTls::kAuto);
  EXPECT_EQ(Parse("smtp://127.8.9.10?to=a@example.com").tls, SmtpTls::kAuto);
  EXPECT_EQ(Parse("smtp://localhost?to=a@example.com").tls, SmtpTls::kAuto);
  const SmtpUrl v6 = Parse("smtp://[::1]:2525?to=a@example.com");
  EXPECT_EQ(v6.tls, SmtpTls::kAuto);
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, 2525);
  EXPECT_EQ(v6.where, "[::1]:2525");
  EXPECT_EQ(Parse("smtp://localhost?to=a@example.com&starttls=required").tls, SmtpTls::kRequired);
  EXPECT_EQ(Parse("smtp://mail.example.com?to=a@example.com&starttls=off").tls, SmtpTls::kOff);
  // Not loopback: a public address, or a name that only looks like one.
  EXPECT_EQ(Parse("smtp://128.0.0.1?to=a@example.com").tls, SmtpTls::kRequired);
  EXPECT_EQ(Parse("smtp://localhost.example.com?to=a@example.com").tls, SmtpTls::kRequired);
}

TEST(SmtpUrlTest, UserRecipientsSenderAndPasswordVariable) {
  const SmtpUrl u = Parse(
      "smtp://alerts%40corp.example@mail.example.com:587?to=a@example.com,%20b@example.com"
      "&to=c@example.com&from=drift@corp.example&password-env=SMTP_PASSWORD");
  EXPECT_EQ(u.user, "alerts@corp.example");
  EXPECT_EQ(u.port, 587);
  EXPECT_EQ(u.to, (std::vector<std::string>{"a@example.com", "b@example.com", "c@example.com"}));
  EXPECT_EQ(u.from, "drift@corp.example");
  EXPECT_EQ(u.password_env, "SMTP_PASSWORD");
  // An unencoded '@' in the user part: the last '@' ends it.
  EXPECT_EQ(
      Parse("smtp://alerts@corp.example@mail.example.com?to=a@example.com&password-env=P").user,
      "alerts@corp.example");
}

TEST(SmtpUrlTest, BadUrlsSayWhatIsWrongWithoutEchoingValues) {
  const struct {
    std::string_view url;
    std::string_view says;
  } cases[] = {
      {"http://mail.example.com?to=a@example.com", "smtp://"},
      {"smtp://mail.example.com", "no recipient"},
      {"smtp://mail.example.com?to=", "recipient"},
      {"smtp://mail.example.com?to=not-an-address-secret1", "recipient"},
      {"smtp://mail.example.com?to=a@example.com%0D%0ADATA", "recipient"},
      {"smtp://mail.example.com?to=a@example.com&from=x%3Esecret1@y", "sender"},
      {"smtp://mail.example.com?to=a@example.com&starttls=maybe-secret1", "starttls"},
      {"smtp://mail.example.com?to=a@example.com&cc=secret1@example.com", "unknown"},
      {"smtp://mail.example.com?to=a@example.com&password-env=", "password-env"},
      {"smtp://alice@mail.example.com?to=a@example.com", "password-env"},
      {"smtp://alice:secret1@mail.example.com?to=a@example.com", "password"},
      {"smtp://mail.example.com:0?to=a@example.com", "port"},
      {"smtp://mail.example.com:70000?to=a@example.com", "port"},
      {"smtp://mail.example.com:25x?to=a@example.com", "port"},
      {"smtp://?to=a@example.com", "host"},
      {"smtp://mail example.com?to=a@example.com", "host"},
      {"smtp://[::1?to=a@example.com", "'['"},
      {"smtp://mail.example.com/inbox?to=a@example.com", "path"},
      {"smtp://mail.example.com?to=a@example.com&from=%zz", "percent"},
  };
  for (const auto& c : cases) {
    auto parsed = ParseSmtpUrl(c.url);
    ASSERT_FALSE(parsed.has_value()) << c.url;
    EXPECT_EQ(parsed.error().code(), ErrorCode::kInvalidArgument) << c.url;
    EXPECT_NE(parsed.error().message().find(c.says), std::string::npos)
        << c.url << ": " << parsed.error().message();
    EXPECT_EQ(parsed.error().message().find("secret1"), std::string::npos)
        << c.url << ": " << parsed.error().message();
  }
}

TEST(SmtpMessageTest, AsciiSubjectStaysAsItIs) {
  EXPECT_EQ(EncodeSubject("Schema drift: payments (breaking)"),
            "Schema drift: payments (breaking)");
}

TEST(SmtpMessageTest, NonAsciiSubjectIsEncodedWordsSplitBetweenCharacters) {
  std::string subject;
  for (int i = 0; i < 20; ++i) subject += "Dérive ⚠ 支払い ";
  const std::string encoded = EncodeSubject(subject);
  std::string decoded;
  for (const std::string& line : Lines(encoded)) {
    std::string_view word = line;
    if (StartsWith(word, " ")) word.remove_prefix(1);  // folded
    EXPECT_LE(word.size(), 75u) << word;
    ASSERT_TRUE(StartsWith(word, "=?UTF-8?B?") && EndsWith(word, "?=")) << word;
    auto bytes = Base64Decode(word.substr(10, word.size() - 12));
    ASSERT_TRUE(bytes.has_value()) << word;
    EXPECT_TRUE(IsValidUtf8(*bytes)) << "a word ends inside a character: " << word;
    decoded += *bytes;
  }
  EXPECT_EQ(decoded, subject);
}

TEST(SmtpMessageTest, HeadersFromTheUrlAndTheMessage) {
  const SmtpUrl url = Parse(
      "smtp://mail.example.com?to=ops@example.com,dba@example.com"
      "&from=sluice@corp.example");
  Message m = TextMessage("Schema drift", "hello\n");
  m.id = "drift/7f3a <x>";
  const std::string data = BuildSmtpData(url, m, 0);
  const std::string head = HeaderBlock(data);
  EXPECT_NE(head.find("From: sluice@corp.example\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("To: ops@example.com, dba@example.com\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("Subject: Schema drift\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("Date: Thu, 01 Jan 1970 00:00:00 +0000\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("Message-ID: <drift-7f3a--x-@corp.example>\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("MIME-Version: 1.0\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("Content-Type: text/plain; charset=utf-8\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("Content-Transfer-Encoding: 7bit"), std::string::npos) << head;
}

TEST(SmtpMessageTest, NothingInTheSubjectOrTypeCanStartAHeader) {
  const SmtpUrl url = Parse("smtp://mail.example.com?to=ops@example.com");
  Message m = TextMessage("Drift\r\nBcc: evil@example.com", "x\n");
  m.content_type = "text/plain\nX-Evil: 1";
  const std::string head = HeaderBlock(BuildSmtpData(url, m, 0));
  for (const std::string& line : Lines(head)) {
    EXPECT_FALSE(StartsWith(line, "Bcc:")) << head;
    EXPECT_FALSE(StartsWith(line, "X-Evil:")) << head;
  }
  EXPECT_EQ(head.find('\n'), head.find("\r\n") + 1);
}

TEST(SmtpMessageTest, ManyRecipientsAreFoldedIntoShortLines) {
  std::string to;
  for (int i = 0; i < 30; ++i)
    to += (i ? "," : "") + std::string("oncall-") + std::to_string(i) + "@example.com";
  const SmtpUrl url = Parse("smtp://mail.example.com?to=" + to);
  const std::string head = HeaderBlock(BuildSmtpData(url, TextMessage("s", "b"), 0));
  for (const std::string& line : Lines(head)) EXPECT_LE(line.size(), 78u) << line;
  EXPECT_NE(head.find("oncall-29@example.com"), std::string::npos);
}

TEST(SmtpMessageTest, BodyLinesAreDotStuffedWithCrlf) {
  const SmtpUrl url = Parse("smtp://mail.example.com?to=ops@example.com");
  const std::string data =
      BuildSmtpData(url, TextMessage("s", "first\n.\n..two\r\n.lead\nend.\n\nlast"), 0);
  EXPECT_EQ(BodyOf(data), "first\r\n..\r\n...two\r\n..lead\r\nend.\r\n\r\nlast\r\n");
  // Every line break is CRLF, and the only lone "." line is the terminator.
  for (size_t at = data.find('\n'); at != std::string::npos; at = data.find('\n', at + 1)) {
    ASSERT_GT(at, 0u);
    EXPECT_EQ(data[at - 1], '\r') << at;
  }
  EXPECT_EQ(data.find("\r\n.\r\n"), data.size() - 5);
}

TEST(SmtpMessageTest, NonAsciiAndLongLinesGoQuotedPrintableAndDecodeBack) {
  const SmtpUrl url = Parse("smtp://mail.example.com?to=ops@example.com");
  const std::string body = "Spalte «betrag» geändert \n.naïve\n" + std::string(1500, 'x') +
                           "\nbare\rcr and a trailing tab\t\n= sign\n";
  const std::string data = BuildSmtpData(url, TextMessage("s", body), 0);
  EXPECT_NE(HeaderBlock(data).find("Content-Transfer-Encoding: quoted-printable"),
            std::string::npos);
  for (unsigned char c : data) EXPECT_LT(c, 0x80);
  for (const std::string& line : Lines(data)) EXPECT_LE(line.size(), 76u) << line;
  // Undo the dot-stuffing, then the quoted-printable; the CRLFs stand for the body's "\n".
  std::string unstuffed;
  for (const std::string& line : Lines(BodyOf(data))) {
    unstuffed += StartsWith(line, ".") ? line.substr(1) : line;
    unstuffed += "\r\n";
  }
  unstuffed.resize(unstuffed.size() - 2);
  std::string decoded = DecodeQuotedPrintable(unstuffed);
  std::string expected;
  for (char c : body) expected += c == '\n' ? std::string("\r\n") : std::string(1, c);
  EXPECT_EQ(decoded, expected);
}

}  // namespace
}  // namespace sluice::alert::internal
