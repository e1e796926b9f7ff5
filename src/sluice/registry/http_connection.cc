#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "sluice/registry/http_server_internal.h"

namespace sluice::registry {

using internal::AppendAnswer;
using internal::Connection;
using internal::IoStatus;
using internal::kMaxRequestsPerConnection;
using internal::kNever;
using internal::kReadChunk;
using internal::Phase;
using internal::TimePoint;

namespace {

// Reads per connection per turn of the loop, so one fast client cannot hold the loop while
// others wait.
constexpr int kReadsPerTurn = 4;
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

bool LessNoCase(std::string_view a, std::string_view b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) <
           std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace

namespace internal {

void AppendAnswer(std::string& out, const HttpResponse& r, bool head, bool close,
                  std::string_view keep_alive) {
  std::vector<std::pair<std::string_view, std::string_view>> headers;
  const std::string length = std::to_string(r.body.size());
  if (head) headers.emplace_back("Accept-Ranges", "bytes");
  if (close) headers.emplace_back("Connection", "close");
  headers.emplace_back("Content-Length", length);
  if (!r.content_type.empty()) headers.emplace_back("Content-Type", r.content_type);
  if (!close) headers.emplace_back("Keep-Alive", keep_alive);
  if (!r.headers.empty()) {
    for (const auto& [name, value] : r.headers) headers.emplace_back(name, value);
    std::stable_sort(headers.begin(), headers.end(),
                     [](const auto& a, const auto& b) { return LessNoCase(a.first, b.first); });
  }
  out.reserve(out.size() + 160 + (head ? 0 : r.body.size()));
  out += "HTTP/1.1 ";
  out += std::to_string(r.status);
  out += ' ';
  out += HttpReason(r.status);
  out += "\r\n";
  for (const auto& [name, value] : headers) {
    out += name;
    out += ": ";
    out += value;
    out += "\r\n";
  }
  out += "\r\n";
  if (!head) out += r.body;
}

}  // namespace internal

// ---- one connection ----

void HttpServer::Impl::Advance(Connection& c) {
  // Each step works until it must wait for the socket or the handler; a change of phase means
  // the next phase may have work at once (an answer written, a pipelined request to parse).
  while (true) {
    const Phase before = c.phase;
    switch (c.phase) {
      case Phase::kHandshake:
        Handshake(c);
        break;
      case Phase::kReading:
      case Phase::kIdle:
        ReadRequest(c);
        break;
      case Phase::kWriting:
        WriteAnswer(c);
        break;
      case Phase::kLingering:
        DiscardInput(c);
        break;
      case Phase::kHandling:
      case Phase::kClosed:
        break;
    }
    if (c.phase == Phase::kClosed) return;
    if (c.phase == before) break;
  }
  UpdateDeadline(c);
}

void HttpServer::Impl::Handshake(Connection& c) {
  const internal::IoResult r = c.socket.Handshake();
  switch (r.status) {
    case IoStatus::kDone:
      c.phase = Phase::kReading;  // the request's deadline still counts from the accept
      c.last_progress = now_;
      return;
    case IoStatus::kWantRead:
      c.readable = false;
      return;
    case IoStatus::kWantWrite:
      c.writable = false;
      return;
    case IoStatus::kEof:
    case IoStatus::kError:
      Close(c);
      return;
  }
}

void HttpServer::Impl::ReadRequest(Connection& c) {
  if (!c.out.empty() && !Flush(c)) return;  // a 100 Continue on its way
  if (!c.pending.empty()) {
    c.phase = Phase::kReading;
    c.request_start = now_;
    std::string pending = std::move(c.pending);
    c.pending.clear();
    Consume(c, pending);
    if (c.phase != Phase::kReading) return;
  }
  if (c.read_needs_write) {
    if (!c.writable) return;
    c.read_needs_write = false;
  }
  for (int i = 0; i < kReadsPerTurn; ++i) {
    if (!c.readable) return;
    const internal::IoResult r = c.socket.Read(scratch_.get(), kReadChunk);
    switch (r.status) {
      case IoStatus::kDone:
        break;
      case IoStatus::kWantRead:
        c.readable = false;
        return;
      case IoStatus::kWantWrite:
        c.read_needs_write = true;
        c.writable = false;
        return;
      case IoStatus::kEof:
      case IoStatus::kError:
        // A client that goes away mid-request gets no answer.
        Close(c);
        return;
    }
    c.last_progress = now_;
    if (c.phase == Phase::kIdle) {
      c.phase = Phase::kReading;
      c.request_start = now_;
    }
    // Edge-triggered: a short plain read emptied the socket, so the next byte brings an event;
    // but a FIN that came with the bytes brings none, so then the read that sees it must come.
    // TLS keeps reading until OpenSSL says it wants more.
    if (!c.socket.tls() && r.bytes < kReadChunk && !c.peer_closed) c.readable = false;
    Consume(c, std::string_view(scratch_.get(), r.bytes));
    if (c.phase != Phase::kReading) return;
  }
  if (c.readable) ready_.push_back(c.id);  // more to read on the next turn
}

void HttpServer::Impl::Consume(Connection& c, std::string_view bytes) {
  while (true) {
    const HttpRequestParser::Progress p = c.parser.Feed(bytes);
    bytes.remove_prefix(p.consumed);
    switch (p.event) {
      case HttpRequestParser::Event::kNeedMore:
        return;
      case HttpRequestParser::Event::kHeadComplete:
        if (c.parser.request().expect_continue) {
          c.out.append(kContinue);
          if (!Flush(c)) return;
        }
        continue;
      case HttpRequestParser::Event::kComplete:
        c.pending.assign(bytes);
        Dispatch(c);
        return;
      case HttpRequestParser::Event::kError:
        RefuseRequest(c, c.parser.error().status, c.parser.error().message);
        return;
    }
  }
}

void HttpServer::Impl::Dispatch(Connection& c) {
  HttpRequest& request = c.parser.request();
  c.phase = Phase::kHandling;
  c.answering_head = request.method == "HEAD";
  c.close_after_answer =
      !request.keep_alive || stopping_ || ++c.requests >= kMaxRequestsPerConnection;
  {
    std::lock_guard<std::mutex> lock(jobs_mu_);
    jobs_.push_back({c.id, std::move(request)});
  }
  jobs_cv_.notify_one();
}

void HttpServer::Impl::Answer(Connection& c, const HttpResponse& response) {
  if (stopping_) c.close_after_answer = true;
  AppendAnswer(c.out, response, c.answering_head, c.close_after_answer, keep_alive_header_);
  c.phase = Phase::kWriting;
  c.last_progress = now_;
  Advance(c);
}

void HttpServer::Impl::RefuseRequest(Connection& c, int status, const char* message) {
  // The rest of the input cannot be trusted to start a request: answer and close.
  c.pending.clear();
  c.answering_head = false;
  c.close_after_answer = true;
  AppendAnswer(c.out, error_answer_(status, message), false, true, keep_alive_header_);
  c.phase = Phase::kWriting;
  c.last_progress = now_;
}

void HttpServer::Impl::WriteAnswer(Connection& c) {
  if (!Flush(c) || !c.out.empty()) return;
  if (c.close_after_answer) {
    if (stopping_) {
      Close(c);
      return;
    }
    c.socket.ShutdownWrite();
    c.phase = Phase::kLingering;
    c.linger_start = now_;
    return;
  }
  c.parser.Reset();
  c.phase = Phase::kIdle;
  c.last_progress = now_;
}

bool HttpServer::Impl::Flush(Connection& c) {
  while (c.out_sent < c.out.size()) {
    if (c.write_needs_read) {
      if (!c.readable) return true;
      c.write_needs_read = false;
    }
    if (!c.writable) return true;
    const internal::IoResult r =
        c.socket.Write(c.out.data() + c.out_sent, c.out.size() - c.out_sent);
    switch (r.status) {
      case IoStatus::kDone:
        c.out_sent += r.bytes;
        c.last_progress = now_;
        continue;
      case IoStatus::kWantWrite:
        c.writable = false;
        return true;
      case IoStatus::kWantRead:
        c.write_needs_read = true;
        c.readable = false;
        return true;
      case IoStatus::kEof:
      case IoStatus::kError:
        Close(c);
        return false;
    }
  }
  // A large answer's buffer is not kept for the next one.
  if (c.out.capacity() > kReadChunk) {
    std::string().swap(c.out);
  } else {
    c.out.clear();
  }
  c.out_sent = 0;
  return true;
}

void HttpServer::Impl::DiscardInput(Connection& c) {
  for (int i = 0; i < kReadsPerTurn; ++i) {
    if (!c.readable) return;
    const internal::IoResult r = c.socket.Discard(scratch_.get(), kReadChunk);
    switch (r.status) {
      case IoStatus::kDone:
        continue;
      case IoStatus::kWantRead:
      case IoStatus::kWantWrite:
        c.readable = false;
        return;
      case IoStatus::kEof:
      case IoStatus::kError:
        Close(c);
        return;
    }
  }
  ready_.push_back(c.id);
}

void HttpServer::Impl::Close(Connection& c) {
  if (c.phase == Phase::kClosed) return;
  c.phase = Phase::kClosed;
  auto it = per_client_.find(c.client);
  if (it != per_client_.end() && --it->second == 0) per_client_.erase(it);
  // The descriptor goes now (closing it leaves the epoll set); the object at the end of the
  // turn, as events later in this turn may still name it.
  c.socket.Close();
  closed_.push_back(c.id);
}

// ---- deadlines ----

void HttpServer::Impl::UpdateDeadline(Connection& c) {
  TimePoint deadline = kNever;
  switch (c.phase) {
    case Phase::kHandshake:
    case Phase::kReading:
      deadline = std::min(c.request_start + options_.request_timeout,
                          c.last_progress + options_.idle_timeout);
      break;
    case Phase::kIdle:
      deadline = c.last_progress + options_.keep_alive_timeout;
      break;
    case Phase::kWriting:
      deadline = c.last_progress + options_.idle_timeout;
      break;
    case Phase::kLingering:
      deadline = c.linger_start + options_.linger;
      break;
    case Phase::kHandling:
    case Phase::kClosed:
      break;
  }
  c.deadline = deadline;
  // One live timer entry per connection: a later deadline is found when the entry fires, an
  // earlier one needs a new entry.
  if (deadline < c.timer_at) {
    c.timer_at = deadline;
    timers_.push({deadline, c.id});
  }
}

void HttpServer::Impl::Expire(Connection& c) {
  if (c.phase == Phase::kReading && c.parser.started()) {
    RefuseRequest(c, 408, "Request timeout");
    Advance(c);
    return;
  }
  if (c.phase == Phase::kHandling) return;
  // Nothing of a request yet, or an answer the client does not take, or the end of a linger.
  Close(c);
}

}  // namespace sluice::registry
