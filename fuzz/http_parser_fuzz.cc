// Fuzz the registry's HTTP request parser the way a hostile client reaches it: bytes from the
// socket, in pieces of any size, one request after another on a kept-alive connection.
//
// Input layout: byte 0 picks the piece size (1..16, or all at once) and the limits (the server's
// own, or small ones that hostile input hits often); the rest is what the client sends.
// Checked: every piece is consumed unless a request ends or is refused inside it; a refusal is
// one of 400, 413, 414, 431, 501 with a message; a request holds a method the server serves, a
// target within its limit and a body within the body limit (the buffer too: no more memory than
// the limit); and cutting the input into other pieces gives the same requests and the same
// refusal.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/registry/http_parser.h"

namespace {

using sluice::registry::HttpLimits;
using sluice::registry::HttpRequest;
using sluice::registry::HttpRequestParser;
using Event = HttpRequestParser::Event;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "invariant failed: %s\n", what);
    std::abort();
  }
}

struct Run {
  std::vector<HttpRequest> requests;
  int error_status = 0;
  size_t consumed = 0;
};

// Parse requests from `input` fed `step` bytes at a time (0: all at once).
Run Parse(std::string_view input, size_t step, const HttpLimits& limits) {
  Run run;
  HttpRequestParser parser(limits);
  size_t pos = 0;
  // Bounded: every request consumes at least one byte.
  while (pos < input.size()) {
    const size_t n = step == 0 ? input.size() - pos : std::min(step, input.size() - pos);
    const std::string_view piece = input.substr(pos, n);
    const HttpRequestParser::Progress p = parser.Feed(piece);
    Check(p.consumed <= piece.size(), "consumed more than fed");
    pos += p.consumed;
    switch (p.event) {
      case Event::kNeedMore:
        Check(p.consumed == piece.size(), "kNeedMore left bytes unconsumed");
        // (30: what an empty std::string holds before it allocates to the exact size.)
        Check(parser.request().body.capacity() <= std::max<size_t>(limits.max_body_bytes, 30),
              "body buffer over the limit");
        continue;
      case Event::kHeadComplete:
        continue;
      case Event::kComplete: {
        HttpRequest& r = parser.request();
        Check(!r.method.empty() && !r.target.empty(), "empty method or target");
        Check(r.target.size() <= limits.max_target_bytes, "target over the limit");
        Check(r.body.size() <= limits.max_body_bytes, "body over the limit");
        Check(r.headers.size() <= limits.max_headers, "too many headers");
        Check(r.minor_version == 0 || r.minor_version == 1, "version");
        run.requests.push_back(std::move(r));
        parser.Reset();
        continue;
      }
      case Event::kError: {
        const int s = parser.error().status;
        Check(s == 400 || s == 413 || s == 414 || s == 431 || s == 501, "refusal status");
        Check(parser.error().message && std::strlen(parser.error().message) > 0, "message");
        Check(parser.Feed("GET / HTTP/1.1\r\n\r\n").event == Event::kError, "error not sticky");
        run.error_status = s;
        run.consumed = pos;
        return run;
      }
    }
  }
  run.consumed = pos;
  return run;
}

bool Same(const HttpRequest& a, const HttpRequest& b) {
  return a.method == b.method && a.target == b.target && a.minor_version == b.minor_version &&
         a.headers == b.headers && a.body == b.body && a.keep_alive == b.keep_alive &&
         a.expect_continue == b.expect_continue;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t control = data[0];
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  HttpLimits limits;
  if (control & 0x80) {
    limits.max_target_bytes = 64;
    limits.max_line_bytes = 48;
    limits.max_head_bytes = 256;
    limits.max_headers = 4;
    limits.max_body_bytes = 100;
  }
  const size_t step = (control & 0x0f) + 1 == 16 ? 0 : (control & 0x0f) + 1;
  const Run run = Parse(input, step, limits);
  const Run whole = Parse(input, step == 0 ? 1 : 0, limits);
  Check(run.requests.size() == whole.requests.size(), "request count depends on the pieces");
  for (size_t i = 0; i < run.requests.size(); ++i) {
    Check(Same(run.requests[i], whole.requests[i]), "request depends on the pieces");
  }
  Check(run.error_status == whole.error_status, "refusal depends on the pieces");
  return 0;
}
