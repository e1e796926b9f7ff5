// An incremental HTTP/1.1 request parser: bytes in, a request or a 4xx out. It owns no socket and
// no clock, so the server, the unit tests and the fuzz target drive it the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::registry {

/// Bounds on what one request may hold; a request over one gets the status named beside it.
struct HttpLimits {
  size_t max_target_bytes = 8192;     // 414
  size_t max_line_bytes = 8192;       // one header line: 431
  size_t max_head_bytes = 64 << 10;   // request line, headers and chunked trailers: 431
  size_t max_headers = 100;           // header fields (and trailer fields): 431
  size_t max_body_bytes = 16u << 20;  // Content-Length or the chunked total: 413
};

struct HttpRequest {
  std::string method;     // GET, HEAD, POST, PUT, DELETE, OPTIONS or PATCH
  std::string target;     // as sent: /subjects/a%2Fb/versions?deleted=true
  int minor_version = 1;  // HTTP/1.0 or HTTP/1.1
  /// Header fields in order, names as sent, values without surrounding whitespace.
  std::vector<std::pair<std::string, std::string>> headers;
  /// The body, decoded (a chunked body's chunks joined).
  std::string body;
  /// Whether the client lets the connection stay open after the answer (HTTP/1.1 without
  /// `Connection: close`; HTTP/1.0 connections always close).
  bool keep_alive = true;
  /// `Expect: 100-continue` on a request with a body: the client waits for a 100 first.
  bool expect_continue = false;

  /// The first header named `name` (compared without case), or nullptr.
  const std::string* Header(std::string_view name) const;
};

/// A request the parser refused: the status to answer with and a short fixed text.
struct HttpParseError {
  int status = 400;          // 400, 413, 414, 431 or 501
  const char* message = "";  // "Bad request", "Request body too large", ...
};

/// Parses one request at a time from bytes fed in any pieces. Memory held is bounded by the
/// limits: the head by max_head_bytes, the body by max_body_bytes, never more. Not thread-safe.
class HttpRequestParser {
 public:
  enum class Event : uint8_t {
    kNeedMore,      // every byte fed was consumed; feed more
    kHeadComplete,  // the head is parsed and a body follows (see request().expect_continue)
    kComplete,      // request() is whole; bytes after it were not consumed
    kError,         // error() says why; the connection cannot be used for another request
  };
  struct Progress {
    Event event = Event::kNeedMore;
    size_t consumed = 0;  // bytes of the input used
  };

  explicit HttpRequestParser(HttpLimits limits = {});

  /// Consume bytes of `input` up to the next event. After kHeadComplete call Feed again with the
  /// rest; after kComplete take the request and Reset() before feeding the next one; after
  /// kError the parser stays in error.
  Progress Feed(std::string_view input);

  /// Start the next request (keep-alive), keeping buffers' capacity.
  void Reset();

  /// Whether any byte of the current request has been consumed.
  bool started() const { return started_; }
  /// The request parsed so far: complete after kComplete, the head after kHeadComplete.
  HttpRequest& request() { return request_; }
  const HttpParseError& error() const { return error_; }

 private:
  enum class State : uint8_t {
    kHead,          // request line and headers, up to the empty line
    kBody,          // Content-Length bytes
    kChunkSize,     // a chunk-size line
    kChunkData,     // the chunk's bytes
    kChunkDataEnd,  // the CRLF after them
    kTrailer,       // trailer lines, up to the empty line
    kDone,
    kError,
  };

  Progress FeedHead(std::string_view input);
  Progress FeedBody(std::string_view input);
  Progress FeedChunked(std::string_view input);
  // Collect one CRLF-terminated line into line_ (at most `max` bytes without the CRLF); true
  // once it is complete. Consumes into `*consumed`.
  bool TakeLine(std::string_view input, size_t* consumed, size_t max, int status_if_long);
  bool ParseHead();
  bool ParseRequestLine(std::string_view line);
  bool ParseHeaderLine(std::string_view line);
  bool ApplyFraming();
  bool ParseChunkSize(std::string_view line);
  void AppendBody(std::string_view bytes);
  bool Fail(int status, const char* message);
  Progress Finish(size_t consumed);

  HttpLimits limits_;
  State state_ = State::kHead;
  HttpRequest request_;
  HttpParseError error_;
  bool started_ = false;
  std::string head_;       // the head's bytes so far (request line and headers)
  size_t line_start_ = 0;  // where the current line starts in head_
  bool seen_request_line_ = false;
  size_t header_count_ = 0;
  std::string line_;  // a chunk-size or trailer line so far
  size_t trailer_bytes_ = 0;
  size_t trailer_count_ = 0;
  uint64_t remaining_ = 0;  // body or chunk bytes still to come
};

/// The reason phrase of an HTTP status ("Not Found"); "Unknown" for codes the server never sends.
const char* HttpReason(int status);

}  // namespace sluice::registry
