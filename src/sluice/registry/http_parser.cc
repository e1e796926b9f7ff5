#include "sluice/registry/http_parser.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "sluice/base/strings.h"

namespace sluice::registry {
namespace {

constexpr std::array<std::string_view, 7> kMethods = {"GET",    "HEAD",    "POST", "PUT",
                                                      "DELETE", "OPTIONS", "PATCH"};
// A chunk-size line holds a size and perhaps extensions, which are ignored.
constexpr size_t kMaxChunkSizeLine = 1024;
// Room for the method and the version beside the target on the request line.
constexpr size_t kRequestLineSlack = 32;

// RFC 9110 tchar: the characters of a token (header names, methods, transfer codings).
bool IsTokenChar(unsigned char c) {
  if (c >= '0' && c <= '9') return true;
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return true;
  return c != '\0' && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool IsToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return IsTokenChar(static_cast<unsigned char>(c));
  });
}

std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Call `f` on each trimmed element of a comma-separated header value; stop when it returns false.
template <typename F>
bool ForEachListItem(std::string_view value, F f) {
  while (true) {
    size_t comma = value.find(',');
    if (!f(TrimSpace(value.substr(0, comma)))) return false;
    if (comma == std::string_view::npos) return true;
    value.remove_prefix(comma + 1);
  }
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

const std::string* HttpRequest::Header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (EqualsIgnoreCase(n, name)) return &v;
  }
  return nullptr;
}

HttpRequestParser::HttpRequestParser(HttpLimits limits) : limits_(limits) {}

void HttpRequestParser::Reset() {
  state_ = State::kHead;
  request_.method.clear();
  request_.target.clear();
  request_.minor_version = 1;
  request_.headers.clear();
  request_.body.clear();
  request_.keep_alive = true;
  request_.expect_continue = false;
  started_ = false;
  // A connection keeps its buffers between requests, but not a large head's.
  if (head_.capacity() > 8192) {
    std::string().swap(head_);
  } else {
    head_.clear();
  }
  line_start_ = 0;
  seen_request_line_ = false;
  header_count_ = 0;
  line_.clear();
  trailer_bytes_ = 0;
  trailer_count_ = 0;
  remaining_ = 0;
}

HttpRequestParser::Progress HttpRequestParser::Feed(std::string_view input) {
  switch (state_) {
    case State::kHead:
      return FeedHead(input);
    case State::kBody:
      return FeedBody(input);
    case State::kChunkSize:
    case State::kChunkData:
    case State::kChunkDataEnd:
    case State::kTrailer:
      return FeedChunked(input);
    case State::kDone:
      return {Event::kComplete, 0};
    case State::kError:
      return {Event::kError, 0};
  }
  return {Event::kError, 0};
}

bool HttpRequestParser::Fail(int status, const char* message) {
  state_ = State::kError;
  error_ = {status, message};
  return false;
}

HttpRequestParser::Progress HttpRequestParser::Finish(size_t consumed) {
  state_ = State::kDone;
  return {Event::kComplete, consumed};
}

HttpRequestParser::Progress HttpRequestParser::FeedHead(std::string_view input) {
  size_t pos = 0;
  while (pos < input.size()) {
    started_ = true;
    const char* nl =
        static_cast<const char*>(std::memchr(input.data() + pos, '\n', input.size() - pos));
    const size_t end = nl ? static_cast<size_t>(nl - input.data()) + 1 : input.size();
    // The limits are checked before the bytes are kept, so a head never grows past them. A
    // request line too long is a target too long (414); a header line, 431. +2: the CRLF.
    const size_t line_bytes = head_.size() - line_start_ + (end - pos);
    if (!seen_request_line_ && line_bytes > limits_.max_target_bytes + kRequestLineSlack + 2) {
      Fail(414, "Request URI too long");
      return {Event::kError, pos};
    }
    if ((seen_request_line_ && line_bytes > limits_.max_line_bytes + 2) ||
        head_.size() + (end - pos) > limits_.max_head_bytes) {
      Fail(431, "Request header fields too large");
      return {Event::kError, pos};
    }
    head_.append(input.data() + pos, end - pos);
    pos = end;
    if (!nl) break;
    // A whole line: it must end in CRLF.
    if (head_.size() - line_start_ < 2 || head_[head_.size() - 2] != '\r') {
      Fail(400, "Bad request");
      return {Event::kError, pos};
    }
    const bool empty = head_.size() - line_start_ == 2;
    line_start_ = head_.size();
    if (!seen_request_line_) {
      // Empty lines before the request line are ignored (RFC 9112 2.2); they still count
      // against the head's size.
      if (!empty) seen_request_line_ = true;
      continue;
    }
    if (!empty) {
      if (++header_count_ > limits_.max_headers) {
        Fail(431, "Request header fields too large");
        return {Event::kError, pos};
      }
      continue;
    }
    if (!ParseHead()) return {Event::kError, pos};
    if (state_ == State::kHead) return Finish(pos);  // no body
    return {Event::kHeadComplete, pos};
  }
  return {Event::kNeedMore, pos};
}

bool HttpRequestParser::ParseHead() {
  std::string_view head(head_);
  bool saw_request_line = false;
  while (!head.empty()) {
    const size_t crlf = head.find("\r\n");
    std::string_view line = head.substr(0, crlf);
    head.remove_prefix(crlf + 2);
    if (!saw_request_line) {
      if (line.empty()) continue;  // leading empty lines
      if (!ParseRequestLine(line)) return false;
      saw_request_line = true;
      continue;
    }
    if (line.empty()) break;  // the end of the head
    if (!ParseHeaderLine(line)) return false;
  }
  return ApplyFraming();
}

bool HttpRequestParser::ParseRequestLine(std::string_view line) {
  const size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos) return Fail(400, "Bad request");
  const size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return Fail(400, "Bad request");
  }
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (std::find(kMethods.begin(), kMethods.end(), method) == kMethods.end()) {
    return Fail(400, "Bad request");
  }
  if (target.size() > limits_.max_target_bytes) return Fail(414, "Request URI too long");
  if (target.empty() || !std::all_of(target.begin(), target.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u > 0x20 && u != 0x7f;
      })) {
    return Fail(400, "Bad request");
  }
  if (version == "HTTP/1.1") {
    request_.minor_version = 1;
  } else if (version == "HTTP/1.0") {
    request_.minor_version = 0;
  } else {
    return Fail(400, "Bad request");
  }
  request_.method.assign(method);
  request_.target.assign(target);
  return true;
}

bool HttpRequestParser::ParseHeaderLine(std::string_view line) {
  // A line starting with whitespace would continue the previous one (obsolete folding).
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || !IsToken(line.substr(0, colon))) {
    return Fail(400, "Bad request");
  }
  std::string_view value = TrimSpace(line.substr(colon + 1));
  for (char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && u != '\t') || u == 0x7f) return Fail(400, "Bad request");
  }
  request_.headers.emplace_back(std::string(line.substr(0, colon)), std::string(value));
  return true;
}

bool HttpRequestParser::ApplyFraming() {
  const std::string* content_length = nullptr;
  std::string transfer_encoding;
  bool has_transfer_encoding = false;
  for (const auto& [name, value] : request_.headers) {
    if (EqualsIgnoreCase(name, "Content-Length")) {
      if (value.empty() ||
          !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return Fail(400, "Bad request");
      }
      if (content_length && *content_length != value) return Fail(400, "Bad request");
      content_length = &value;
    } else if (EqualsIgnoreCase(name, "Transfer-Encoding")) {
      if (has_transfer_encoding) transfer_encoding += ',';
      transfer_encoding += value;
      has_transfer_encoding = true;
    } else if (EqualsIgnoreCase(name, "Connection")) {
      ForEachListItem(value, [this](std::string_view token) {
        if (EqualsIgnoreCase(token, "close")) request_.keep_alive = false;
        return true;
      });
    } else if (EqualsIgnoreCase(name, "Expect")) {
      request_.expect_continue = EqualsIgnoreCase(value, "100-continue");
    }
  }
  if (request_.minor_version == 0) request_.keep_alive = false;
  if (request_.minor_version == 0) request_.expect_continue = false;
  if (has_transfer_encoding) {
    // Both framings at once is how requests are smuggled past proxies: refuse it.
    if (content_length || request_.minor_version == 0) return Fail(400, "Bad request");
    size_t codings = 0;
    bool chunked_last = false;
    bool valid = ForEachListItem(transfer_encoding, [&](std::string_view coding) {
      ++codings;
      chunked_last = EqualsIgnoreCase(coding, "chunked");
      return IsToken(coding);
    });
    if (!valid || !chunked_last) return Fail(400, "Bad request");
    if (codings > 1) return Fail(501, "Transfer encoding not supported");
    state_ = State::kChunkSize;
    return true;
  }
  uint64_t length = 0;
  if (content_length) {
    // More digits than any limit allows: too large, whatever their value.
    if (content_length->size() > 18) return Fail(413, "Request body too large");
    for (char c : *content_length) length = length * 10 + static_cast<uint64_t>(c - '0');
  }
  if (length > limits_.max_body_bytes) return Fail(413, "Request body too large");
  if (length == 0) {
    request_.expect_continue = false;
    return true;  // state_ stays kHead: the request is complete
  }
  remaining_ = length;
  state_ = State::kBody;
  return true;
}

void HttpRequestParser::AppendBody(std::string_view bytes) {
  std::string& body = request_.body;
  const size_t needed = body.size() + bytes.size();
  if (needed > body.capacity()) {
    // Grow geometrically, but never past what the request may still hold, so the buffer
    // stays within the body limit; memory follows the bytes received, not the bytes promised.
    // (A new string: reserve on this one could round up to twice its old capacity.)
    const size_t ceiling =
        state_ == State::kBody ? body.size() + remaining_ : limits_.max_body_bytes;
    std::string grown;
    grown.reserve(std::min(std::max(needed, 2 * body.capacity()), std::max(ceiling, needed)));
    grown.append(body);
    body.swap(grown);
  }
  body.append(bytes);
}

HttpRequestParser::Progress HttpRequestParser::FeedBody(std::string_view input) {
  const size_t take = static_cast<size_t>(std::min<uint64_t>(remaining_, input.size()));
  AppendBody(input.substr(0, take));
  remaining_ -= take;
  if (remaining_ == 0) return Finish(take);
  return {Event::kNeedMore, take};
}

bool HttpRequestParser::TakeLine(std::string_view input, size_t* consumed, size_t max,
                                 int status_if_long) {
  std::string_view rest = input.substr(*consumed);
  const size_t nl = rest.find('\n');
  const size_t take = nl == std::string_view::npos ? rest.size() : nl + 1;
  // The line so far may hold its CR, and the LF once found.
  if (line_.size() + take > max + 2) {
    Fail(status_if_long, status_if_long == 431 ? "Request header fields too large" : "Bad request");
    return false;
  }
  line_.append(rest.data(), take);
  *consumed += take;
  if (nl == std::string_view::npos) return false;
  if (line_.size() < 2 || line_[line_.size() - 2] != '\r') {
    Fail(400, "Bad request");
    return false;
  }
  line_.resize(line_.size() - 2);
  return true;
}

bool HttpRequestParser::ParseChunkSize(std::string_view line) {
  size_t i = 0;
  uint64_t size = 0;
  bool too_large = false;
  while (i < line.size() && HexDigit(line[i]) >= 0) {
    size = size * 16 + static_cast<uint64_t>(HexDigit(line[i]));
    if (size > limits_.max_body_bytes) too_large = true;
    if (too_large) size = limits_.max_body_bytes + 1;  // no overflow, however many digits
    ++i;
  }
  if (i == 0) return Fail(400, "Bad request");
  std::string_view rest = TrimSpace(line.substr(i));
  if (!rest.empty() && rest.front() != ';') return Fail(400, "Bad request");
  if (too_large || request_.body.size() + size > limits_.max_body_bytes) {
    return Fail(413, "Request body too large");
  }
  remaining_ = size;
  return true;
}

HttpRequestParser::Progress HttpRequestParser::FeedChunked(std::string_view input) {
  size_t pos = 0;
  while (pos < input.size()) {
    switch (state_) {
      case State::kChunkSize:
        if (!TakeLine(input, &pos, kMaxChunkSizeLine, 400)) break;
        if (!ParseChunkSize(line_)) return {Event::kError, pos};
        line_.clear();
        state_ = remaining_ == 0 ? State::kTrailer : State::kChunkData;
        continue;
      case State::kChunkData: {
        const size_t take = static_cast<size_t>(std::min<uint64_t>(remaining_, input.size() - pos));
        AppendBody(input.substr(pos, take));
        pos += take;
        remaining_ -= take;
        if (remaining_ == 0) state_ = State::kChunkDataEnd;
        continue;
      }
      case State::kChunkDataEnd:
        if (!TakeLine(input, &pos, 0, 400)) break;
        state_ = State::kChunkSize;
        continue;
      case State::kTrailer: {
        const size_t before = pos;
        const bool whole = TakeLine(input, &pos, limits_.max_line_bytes, 431);
        trailer_bytes_ += pos - before;
        if (state_ == State::kError) return {Event::kError, pos};
        if (head_.size() + trailer_bytes_ > limits_.max_head_bytes) {
          Fail(431, "Request header fields too large");
          return {Event::kError, pos};
        }
        if (!whole) continue;
        if (line_.empty()) return Finish(pos);
        // Trailer fields are read and dropped: nothing the registry uses may come in one.
        if (++trailer_count_ > limits_.max_headers) {
          Fail(431, "Request header fields too large");
          return {Event::kError, pos};
        }
        if (line_.find(':') == std::string::npos || line_[0] == ' ' || line_[0] == '\t') {
          Fail(400, "Bad request");
          return {Event::kError, pos};
        }
        line_.clear();
        continue;
      }
      case State::kHead:
      case State::kBody:
      case State::kDone:
      case State::kError:
        break;
    }
    if (state_ == State::kError) return {Event::kError, pos};
    // TakeLine wants more bytes: everything was consumed.
    if (pos == input.size()) break;
  }
  if (state_ == State::kError) return {Event::kError, pos};
  return {Event::kNeedMore, pos};
}

const char* HttpReason(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 406:
      return "Not Acceptable";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 413:
      return "Payload Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

}  // namespace sluice::registry
