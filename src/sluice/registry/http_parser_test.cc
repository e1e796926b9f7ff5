#include "sluice/registry/http_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace sluice::registry {
namespace {

using Event = HttpRequestParser::Event;

struct Outcome {
  Event event = Event::kNeedMore;
  size_t consumed = 0;  // bytes of the input used up to the final event
  bool head_complete = false;
  HttpRequest request;
  HttpParseError error;
};

// Feed `input` in pieces of `step` bytes until the request is complete or refused.
Outcome Parse(std::string_view input, size_t step = 0, HttpLimits limits = {}) {
  HttpRequestParser parser(limits);
  Outcome out;
  if (step == 0) step = input.size() + 1;
  size_t pos = 0;
  while (true) {
    const size_t piece_end = std::min(input.size(), pos + step);
    std::string_view piece = input.substr(pos, piece_end - pos);
    auto p = parser.Feed(piece);
    pos += p.consumed;
    if (p.event == Event::kHeadComplete) {
      out.head_complete = true;
      continue;
    }
    if (p.event == Event::kComplete || p.event == Event::kError) {
      out.event = p.event;
      break;
    }
    EXPECT_EQ(p.consumed, piece.size());
    if (pos >= input.size()) break;
  }
  out.consumed = pos;
  out.request = parser.request();
  out.error = parser.error();
  return out;
}

int Status(std::string_view input, HttpLimits limits = {}) {
  Outcome o = Parse(input, 0, limits);
  if (o.event != Event::kError) return o.event == Event::kComplete ? 200 : 0;
  return o.error.status;
}

TEST(HttpParserTest, ParsesAGet) {
  const std::string input = "GET /subjects?deleted=true HTTP/1.1\r\nHost: x\r\nX-A:  b c \r\n\r\n";
  Outcome o = Parse(input);
  ASSERT_EQ(o.event, Event::kComplete);
  EXPECT_EQ(o.consumed, input.size());
  EXPECT_FALSE(o.head_complete);  // no body: straight to complete
  EXPECT_EQ(o.request.method, "GET");
  EXPECT_EQ(o.request.target, "/subjects?deleted=true");
  EXPECT_EQ(o.request.minor_version, 1);
  EXPECT_TRUE(o.request.keep_alive);
  ASSERT_NE(o.request.Header("x-a"), nullptr);
  EXPECT_EQ(*o.request.Header("X-A"), "b c");
  EXPECT_EQ(o.request.Header("Authorization"), nullptr);
  EXPECT_EQ(o.request.body, "");
}

TEST(HttpParserTest, AnySplitOfTheInputGivesTheSameRequest) {
  const std::string input =
      "POST /subjects/s/versions HTTP/1.1\r\nContent-Length: 16\r\n\r\n{\"schema\":\"int\"}";
  const std::string body = R"({"schema":"\"int\""})";  // 20 bytes: chunks of 7, 9 and 4
  const std::string chunked = "POST /s HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n" +
                              body.substr(0, 7) + "\r\n9;ext=1\r\n" + body.substr(7, 9) +
                              "\r\n004 \r\n" + body.substr(16) + "\r\n0\r\nX-T: 1\r\n\r\n";
  for (size_t step = 1; step <= input.size(); ++step) {
    Outcome o = Parse(input, step);
    ASSERT_EQ(o.event, Event::kComplete) << step;
    EXPECT_EQ(o.request.body, "{\"schema\":\"int\"}");
    EXPECT_EQ(o.consumed, input.size());
  }
  for (size_t step = 1; step <= chunked.size(); ++step) {
    Outcome o = Parse(chunked, step);
    ASSERT_EQ(o.event, Event::kComplete) << step;
    EXPECT_TRUE(o.head_complete);
    EXPECT_EQ(o.request.body, body);
    EXPECT_EQ(o.consumed, chunked.size());
  }
}

TEST(HttpParserTest, StopsAtTheEndOfARequestSoPipelinedOnesFollow) {
  const std::string first = "POST /a HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi";
  const std::string second = "GET /b HTTP/1.1\r\n\r\n";
  HttpRequestParser parser;
  std::string input = first + second;
  auto p = parser.Feed(input);
  ASSERT_EQ(p.event, Event::kHeadComplete);
  size_t used = p.consumed;
  p = parser.Feed(std::string_view(input).substr(used));
  ASSERT_EQ(p.event, Event::kComplete);
  used += p.consumed;
  EXPECT_EQ(used, first.size());
  EXPECT_EQ(parser.request().body, "hi");
  parser.Reset();
  EXPECT_FALSE(parser.started());
  p = parser.Feed(std::string_view(input).substr(used));
  ASSERT_EQ(p.event, Event::kComplete);
  EXPECT_EQ(parser.request().target, "/b");
  EXPECT_EQ(parser.request().body, "");
}

TEST(HttpParserTest, ConnectionAndExpect) {
  EXPECT_FALSE(Parse("GET / HTTP/1.1\r\nConnection: keep-alive, Close\r\n\r\n").request.keep_alive);
  // HTTP/1.0 connections close after the answer, whatever they ask.
  EXPECT_FALSE(Parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").request.keep_alive);
  Outcome o = Parse("PUT /c HTTP/1.1\r\nExpect: 100-Continue\r\nContent-Length: 3\r\n\r\n");
  EXPECT_EQ(o.event, Event::kNeedMore);
  EXPECT_TRUE(o.head_complete);
  EXPECT_TRUE(o.request.expect_continue);
  // Without a body there is nothing to continue to.
  EXPECT_FALSE(Parse("GET / HTTP/1.1\r\nExpect: 100-continue\r\n\r\n").request.expect_continue);
}

TEST(HttpParserTest, LeadingEmptyLinesAreIgnored) {
  Outcome o = Parse("\r\n\r\nGET /x HTTP/1.1\r\n\r\n");
  ASSERT_EQ(o.event, Event::kComplete);
  EXPECT_EQ(o.request.target, "/x");
}

TEST(HttpParserTest, StartedOnceAByteArrives) {
  HttpRequestParser parser;
  EXPECT_FALSE(parser.started());
  EXPECT_EQ(parser.Feed("").event, Event::kNeedMore);
  EXPECT_FALSE(parser.started());
  EXPECT_EQ(parser.Feed("G").event, Event::kNeedMore);
  EXPECT_TRUE(parser.started());
}

TEST(HttpParserTest, MalformedRequestsAre400) {
  for (std::string_view bad : {
           "GET / HTTP/1.1\n\n",                         // bare LF
           "get / HTTP/1.1\r\n\r\n",                     // methods are case-sensitive
           "TRACE / HTTP/1.1\r\n\r\n",                   // not a method the server serves
           "GET / HTTP/2.0\r\n\r\n",                     // version
           "GET /\r\n\r\n",                              // HTTP/0.9
           "GET /a b HTTP/1.1\r\n\r\n",                  // space in the target
           "GET  / HTTP/1.1\r\n\r\n",                    // empty target
           "GET /\x01 HTTP/1.1\r\n\r\n",                 // control character
           "\x16\x03\x01 not http at all\r\n\r\n",       // TLS to a plain port
           "GET / HTTP/1.1\r\nHost x\r\n\r\n",           // no colon
           "GET / HTTP/1.1\r\nHost : x\r\n\r\n",         // space before the colon
           "GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n",  // obsolete line folding
           "GET / HTTP/1.1\r\nA: b\x01\r\n\r\n",         // control character in a value
           "GET / HTTP/1.1\r\nA: b\rc\r\n\r\n",          // lone CR
           "POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n",
           "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
           "POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
           "POST / HTTP/1.1\r\nContent-Length: 3, 3\r\n\r\nabc",
           "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n",
           "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
           "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
           "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
           "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
           "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3 x\r\nabc\r\n0\r\n\r\n",
           "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n",
           "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n",
           "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nno colon\r\n\r\n",
       }) {
    EXPECT_EQ(Status(bad), 400) << bad;
  }
  EXPECT_EQ(Status("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"), 501);
}

TEST(HttpParserTest, OversizedHeadsAre414Or431) {
  HttpLimits limits;
  limits.max_target_bytes = 100;
  limits.max_line_bytes = 50;
  limits.max_head_bytes = 400;
  limits.max_headers = 5;
  const std::string target(101, 'a');
  EXPECT_EQ(Status("GET /" + target + " HTTP/1.1\r\n\r\n", limits), 414);
  // Refused before the line ends: a client cannot make the parser hold more.
  EXPECT_EQ(Parse("GET /" + target + target, 0, limits).error.status, 414);
  EXPECT_EQ(Status("GET / HTTP/1.1\r\nA: " + std::string(60, 'b') + "\r\n\r\n", limits), 431);
  EXPECT_EQ(Parse("GET / HTTP/1.1\r\nA: " + std::string(60, 'b'), 0, limits).error.status, 431);
  std::string many = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 6; ++i) many += "A" + std::to_string(i) + ": b\r\n";
  EXPECT_EQ(Status(many + "\r\n", limits), 431);
  std::string big = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 5; ++i) big += "A" + std::to_string(i) + ": " + std::string(45, 'c') + "\r\n";
  EXPECT_EQ(Status(big + "\r\n", limits), 200);  // 5 lines of 49 bytes: under every limit
  EXPECT_EQ(Status(big + "A5: b\r\n\r\n", limits), 431);
  std::string trailers = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n";
  for (int i = 0; i < 6; ++i) trailers += "T" + std::to_string(i) + ": v\r\n";
  EXPECT_EQ(Status(trailers + "\r\n", limits), 431);
  // The empty lines before a request count against the head too.
  EXPECT_EQ(Status(std::string(600, '\n'), limits), 400);
  std::string crlfs;
  for (int i = 0; i < 300; ++i) crlfs += "\r\n";
  EXPECT_EQ(Status(crlfs, limits), 431);
}

TEST(HttpParserTest, BodiesOverTheLimitAre413BeforeTheyArrive) {
  HttpLimits limits;
  limits.max_body_bytes = 100;
  // Content-Length: refused with the head, nothing of the body read.
  Outcome o = Parse("POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n", 0, limits);
  EXPECT_EQ(o.event, Event::kError);
  EXPECT_EQ(o.error.status, 413);
  EXPECT_FALSE(o.head_complete);
  EXPECT_EQ(Status("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", limits),
            413);
  EXPECT_EQ(
      Status("POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\n" + std::string(100, 'x'), limits),
      200);
  // Chunked: one chunk announced over the limit, or a sum of chunks that passes it.
  const std::string chunked = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  EXPECT_EQ(Status(chunked + "65\r\n", limits), 413);
  EXPECT_EQ(Status(chunked + "ffffffffffffffffffffffffffff\r\n", limits), 413);
  std::string many = chunked;
  for (int i = 0; i < 20; ++i) many += "a\r\n0123456789\r\n";
  for (size_t step : {1, 7, 1000}) {
    Outcome cut = Parse(many, step, limits);
    EXPECT_EQ(cut.event, Event::kError);
    EXPECT_EQ(cut.error.status, 413);
    EXPECT_EQ(cut.request.body.size(), 100u);
    EXPECT_LE(cut.request.body.capacity(), 100u) << step;  // never more memory than the limit
  }
  std::string exact = chunked;
  for (int i = 0; i < 10; ++i) exact += "a\r\n0123456789\r\n";
  EXPECT_EQ(Status(exact + "0\r\n\r\n", limits), 200);
}

TEST(HttpParserTest, AnErrorStays) {
  HttpRequestParser parser;
  EXPECT_EQ(parser.Feed("BREW / HTTP/1.1\r\n\r\n").event, Event::kError);
  EXPECT_EQ(parser.Feed("GET / HTTP/1.1\r\n\r\n").event, Event::kError);
  EXPECT_EQ(parser.error().status, 400);
  EXPECT_STREQ(parser.error().message, "Bad request");
}

TEST(HttpParserTest, ReasonPhrases) {
  EXPECT_STREQ(HttpReason(413), "Payload Too Large");
  EXPECT_STREQ(HttpReason(422), "Unprocessable Entity");
  EXPECT_STREQ(HttpReason(431), "Request Header Fields Too Large");
  EXPECT_STREQ(HttpReason(299), "Unknown");
}

}  // namespace
}  // namespace sluice::registry
