// The SMTP sender's URL (smtp_internal.h) and the message it sends: RFC 5322 headers, an RFC
// 2047 subject, a 7-bit body (quoted-printable when needed), dot-stuffed for DATA.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/rand.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "sluice/alert/smtp_internal.h"
#include "sluice/base/strings.h"

namespace sluice::alert::internal {
namespace {

std::optional<std::string> PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = hex(s[i + 1]), lo = hex(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// An addr-spec as it goes between angle brackets and into headers: printable ASCII, one '@',
// nothing that could end the command or a header.
bool IsPlainAddress(std::string_view a) {
  if (a.empty() || a.size() > 254) return false;
  const size_t at = a.rfind('@');
  if (at == 0 || at == std::string_view::npos || at + 1 == a.size()) return false;
  for (char c : a) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f || c == '<' || c == '>' || c == ',' || c == '(' || c == ')' ||
        c == ';' || c == '\\' || c == '"') {
      return false;
    }
  }
  return true;
}

std::string OneLine(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '\r' || c == '\n' || c == '\t' || c == '\0') c = ' ';
  }
  return out;
}

bool IsPrintableAscii(std::string_view s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) return false;
  }
  return true;
}

std::string RfcDate(std::time_t now) {
  static constexpr std::array<const char*, 7> kDays = {"Sun", "Mon", "Tue", "Wed",
                                                       "Thu", "Fri", "Sat"};
  static constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), "%s, %02d %s %04d %02d:%02d:%02d +0000", kDays[tm.tm_wday],
                tm.tm_mday, kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  return buf.data();
}

// The id as a Message-ID's left part: letters, digits, '-', '_' and inner dots kept.
std::string MessageIdPart(std::string_view id) {
  std::string out;
  for (char c : id) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_';
    out += keep ? c : '-';
  }
  if (out.empty()) {
    std::array<unsigned char, 12> random{};
    RAND_bytes(random.data(), random.size());
    static constexpr char kHex[] = "0123456789abcdef";
    for (unsigned char b : random) {
      out += kHex[b >> 4];
      out += kHex[b & 15];
    }
  }
  return out.substr(0, 200);
}

// Quoted-printable (RFC 2045) for one line, with soft breaks to keep lines within 76 characters.
void AppendQuotedPrintable(std::string& out, std::string_view line) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  size_t width = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const auto u = static_cast<unsigned char>(line[i]);
    const bool last = i + 1 == line.size();
    const bool literal = (u >= 33 && u <= 126 && u != '=') || ((u == ' ' || u == '\t') && !last);
    const size_t need = literal ? 1 : 3;
    if (width + need > 75) {
      out += "=\r\n";
      width = 0;
    }
    if (literal) {
      out += static_cast<char>(u);
    } else {
      out += '=';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
    width += need;
  }
}

// USER@HOST:PORT, into `u`; the port stays as it is when none is given.
Status ParseAuthority(std::string_view authority, SmtpUrl& u) {
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
    const std::string_view userinfo = authority.substr(0, at);
    if (userinfo.find(':') != std::string_view::npos) {
      return InvalidArgument(
          "a password does not go in the URL; name a variable with password-env");
    }
    auto user = PercentDecode(userinfo);
    if (!user || user->empty() || user->find('\0') != std::string::npos) {
      return InvalidArgument("bad user name in the URL");
    }
    u.user = *user;
    authority = authority.substr(at + 1);
  }
  std::optional<std::string_view> port_text;
  bool bracketed = false;
  if (StartsWith(authority, "[")) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return InvalidArgument("unclosed '[' in the host");
    u.host = std::string(authority.substr(1, close - 1));
    bracketed = true;
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after[0] != ':') return InvalidArgument("bad host in the URL");
    if (!after.empty()) port_text = after.substr(1);
  } else {
    const size_t colon = authority.find(':');
    u.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  const std::string_view host_chars = bracketed
                                          ? "0123456789abcdefABCDEF:."
                                          : "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789.-_";
  if (u.host.empty() || u.host.find_first_not_of(host_chars) != std::string::npos) {
    return InvalidArgument("bad host in the URL");
  }
  if (port_text) {
    const int port = port_text->empty() || port_text->size() > 5 ||
                             port_text->find_first_not_of("0123456789") != std::string_view::npos
                         ? 0
                         : std::atoi(std::string(*port_text).c_str());
    if (port <= 0 || port > 65535) return InvalidArgument("bad port in the URL");
    u.port = static_cast<uint16_t>(port);
  }
  return Ok();
}

// The query's parameters, into `u` and `starttls`.
Status ParseQuery(std::string_view query, SmtpUrl& u, std::optional<SmtpTls>& starttls) {
  for (std::string_view pair : SplitString(query, '&')) {
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    const std::string_view key = pair.substr(0, eq);
    auto value = PercentDecode(eq == std::string_view::npos ? "" : pair.substr(eq + 1));
    if (!value) {
      return InvalidArgument("bad percent-encoding in the value of " + EscapeForMessage(key, 40));
    }
    if (key == "to") {
      for (std::string_view a : SplitString(*value, ',')) {
        a = TrimWhitespace(a);
        if (!IsPlainAddress(a)) return InvalidArgument("bad recipient address in 'to'");
        u.to.emplace_back(a);
      }
    } else if (key == "from") {
      if (!IsPlainAddress(*value)) return InvalidArgument("bad sender address in 'from'");
      u.from = *value;
    } else if (key == "starttls") {
      if (*value == "required") {
        starttls = SmtpTls::kRequired;
      } else if (*value == "auto") {
        starttls = SmtpTls::kAuto;
      } else if (*value == "off") {
        starttls = SmtpTls::kOff;
      } else {
        return InvalidArgument("starttls must be required, auto or off");
      }
    } else if (key == "password-env") {
      if (value->empty()) return InvalidArgument("password-env names no variable");
      u.password_env = *value;
    } else {
      return InvalidArgument("unknown SMTP URL parameter '" + EscapeForMessage(key, 40) + "'");
    }
  }
  return Ok();
}

}  // namespace

bool IsLoopbackHost(const std::string& host) {
  if (EqualsIgnoreCase(host, "localhost") || EndsWith(AsciiLower(host), ".localhost")) return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

std::string LocalHostName() {
  std::array<char, 256> buf{};
  if (gethostname(buf.data(), buf.size() - 1) != 0) return "localhost";
  std::string name(buf.data());
  const bool ok = !name.empty() && name.find_first_not_of(
                                       "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789.-") == std::string::npos;
  return ok ? name : "localhost";
}

Result<SmtpUrl> ParseSmtpUrl(std::string_view url) {
  SmtpUrl u;
  std::string_view rest;
  if (StartsWith(AsciiLower(url.substr(0, 7)), "smtp://")) {
    rest = url.substr(7);
  } else if (StartsWith(AsciiLower(url.substr(0, 8)), "smtps://")) {
    u.tls = SmtpTls::kImplicit;
    u.port = 465;
    rest = url.substr(8);
  } else {
    return InvalidArgument("not an smtp:// or smtps:// URL");
  }
  const size_t q = rest.find('?');
  std::string_view authority = rest.substr(0, q);
  const std::string_view query = q == std::string_view::npos ? "" : rest.substr(q + 1);
  if (EndsWith(authority, "/")) authority.remove_suffix(1);
  if (authority.find('/') != std::string_view::npos) {
    return InvalidArgument("an SMTP URL has no path");
  }
  SLUICE_TRY(ParseAuthority(authority, u));
  u.loopback = IsLoopbackHost(u.host);
  const bool v6 = u.host.find(':') != std::string::npos;
  u.where = (v6 ? "[" + u.host + "]" : u.host) + ":" + std::to_string(u.port);
  std::optional<SmtpTls> starttls;
  SLUICE_TRY(ParseQuery(query, u, starttls));
  if (u.to.empty()) return InvalidArgument("no recipient: add to=ADDR to the query");
  if (starttls) {
    if (u.tls == SmtpTls::kImplicit) return InvalidArgument("starttls does not apply to smtps://");
    u.tls = *starttls;
  } else if (u.tls != SmtpTls::kImplicit && u.loopback) {
    u.tls = SmtpTls::kAuto;
  }
  if (!u.user.empty() && u.password_env.empty()) {
    return InvalidArgument("a user is given but no password-env");
  }
  if (u.from.empty()) u.from = "sluice@" + LocalHostName();
  return u;
}

// RFC 2047 encoded words for a non-ASCII (or very long) subject, each at most 75 characters and
// split between UTF-8 characters, folded onto continuation lines.
std::string EncodeSubject(std::string_view subject) {
  if (IsPrintableAscii(subject) && subject.size() <= 900) return std::string(subject);
  constexpr size_t kMaxRaw = 45;  // 60 base64 characters + "=?UTF-8?B?" + "?=" <= 75
  std::string out;
  size_t i = 0;
  while (i < subject.size()) {
    size_t end = std::min(subject.size(), i + kMaxRaw);
    while (end < subject.size() && end > i + 1 &&
           (static_cast<unsigned char>(subject[end]) & 0xC0) == 0x80) {
      --end;
    }
    if (!out.empty()) out += "\r\n ";
    out += "=?UTF-8?B?" + Base64Encode(subject.substr(i, end - i)) + "?=";
    i = end;
  }
  return out;
}

// Headers and body as DATA carries them: CRLF line endings, dot-stuffed, ending in "\r\n.\r\n".
std::string BuildSmtpData(const SmtpUrl& url, const Message& message, std::time_t now) {
  std::vector<std::string_view> lines = SplitString(message.body, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  bool seven_bit = true;
  for (std::string_view& line : lines) {
    if (EndsWith(line, "\r")) line.remove_suffix(1);
    for (char c : line) {
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\t') || u >= 0x7f) seven_bit = false;
    }
    if (line.size() > 998) seven_bit = false;
  }
  const std::string domain = url.from.substr(url.from.rfind('@') + 1);
  std::string content_type = OneLine(message.content_type);
  if (content_type.empty()) content_type = "text/plain; charset=utf-8";
  std::string head;
  head += "From: " + url.from + "\r\n";
  // Folded between addresses so that many recipients never make an over-long line.
  head += "To: ";
  size_t width = 4;
  for (size_t i = 0; i < url.to.size(); ++i) {
    if (i > 0) {
      const bool fold = width + url.to[i].size() + 2 > 78;
      head += fold ? ",\r\n " : ", ";
      width = fold ? 1 : width + 2;
    }
    head += url.to[i];
    width += url.to[i].size();
  }
  head += "\r\n";
  head += "Subject: " + EncodeSubject(OneLine(message.subject)) + "\r\n";
  head += "Date: " + RfcDate(now) + "\r\n";
  head += "Message-ID: <" + MessageIdPart(message.id) + "@" + domain + ">\r\n";
  if (!message.id.empty()) head += "X-Sluice-Delivery: " + MessageIdPart(message.id) + "\r\n";
  head += "MIME-Version: 1.0\r\n";
  head += "Content-Type: " + content_type + "\r\n";
  head += std::string("Content-Transfer-Encoding: ") + (seven_bit ? "7bit" : "quoted-printable") +
          "\r\n\r\n";
  std::string body;
  for (std::string_view line : lines) {
    if (seven_bit) {
      body += line;
    } else {
      AppendQuotedPrintable(body, line);
    }
    body += "\r\n";
  }
  // Dot-stuffing (RFC 5321 4.5.2): every line that starts with '.' gets one more.
  std::string data;
  data.reserve(head.size() + body.size() + body.size() / 64 + 8);
  data += head;
  bool line_start = true;
  for (char c : body) {
    if (line_start && c == '.') data += '.';
    data += c;
    line_start = c == '\n';
  }
  data += ".\r\n";
  return data;
}

}  // namespace sluice::alert::internal
