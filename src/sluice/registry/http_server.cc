#include "sluice/registry/http_server.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <queue>
#include <thread>
#include <unordered_map>

#include "sluice/registry/http_socket_internal.h"

namespace sluice::registry {
namespace {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;
using internal::IoStatus;
using internal::Socket;
using internal::TlsContext;

constexpr TimePoint kNever = TimePoint::max();
// epoll tags: connection ids start above these.
constexpr uint64_t kListenTag = 0;
constexpr uint64_t kWakeTag = 1;
constexpr size_t kReadChunk = 64 << 10;
// Reads (and accepts) per connection per turn of the loop, so one fast client cannot hold the
// loop while others wait.
constexpr int kReadsPerTurn = 4;
constexpr int kAcceptsPerTurn = 64;
constexpr int kMaxEvents = 256;
// The Keep-Alive header promises this many requests per connection.
constexpr size_t kMaxRequestsPerConnection = 100000;
// Descriptors kept free of connections: listening socket, epoll, store files and connections.
constexpr size_t kReservedDescriptors = 64;
// How long accepting pauses when the process is out of descriptors.
constexpr std::chrono::milliseconds kAcceptPause{100};
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

enum class Phase : uint8_t {
  kHandshake,  // TLS handshake under way
  kReading,    // a request under way (or expected on a new connection)
  kIdle,       // kept alive between requests
  kHandling,   // the request is with a handler thread; nothing is read meanwhile
  kWriting,    // the answer is being written
  kLingering,  // answered and closing: what the client still sends is dropped
  kClosed,
};

struct Connection {
  Connection(uint64_t id_in, std::string client_in, int fd, SSL* tls, const HttpLimits& limits)
      : id(id_in), client(std::move(client_in)), socket(fd, tls), parser(limits) {}

  uint64_t id;
  std::string client;  // the peer's address bytes: the key of the per-client count
  Socket socket;
  Phase phase = Phase::kReading;
  HttpRequestParser parser;
  std::string pending;  // read but not parsed: a pipelined request, parsed after this answer
  std::string out;      // to write, from out_sent on
  size_t out_sent = 0;
  // Edge-triggered readiness: set by epoll, cleared when a call would block.
  bool readable = true;
  bool writable = true;
  bool peer_closed = false;  // the client's FIN has arrived (after whatever it sent before)
  // TLS may need the other direction first (a read that must write, a write that must read).
  bool read_needs_write = false;
  bool write_needs_read = false;
  bool close_after_answer = false;
  bool answering_head = false;
  size_t requests = 0;
  TimePoint request_start;  // the current request's first byte (the accept for the first)
  TimePoint last_progress;  // the last byte read or written
  TimePoint linger_start;
  TimePoint deadline = kNever;
  TimePoint timer_at = kNever;  // the time of this connection's live timer entry
};

struct Job {
  uint64_t connection;
  HttpRequest request;
};

struct Done {
  uint64_t connection;
  HttpResponse response;
};

struct Timer {
  TimePoint at;
  uint64_t connection;
  bool operator>(const Timer& o) const { return at > o.at; }
};

bool LessNoCase(std::string_view a, std::string_view b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) <
           std::tolower(static_cast<unsigned char>(y));
  });
}

// The address bytes of a peer; an IPv4 address mapped into IPv6 counts as the IPv4 one.
std::string ClientKey(const sockaddr_storage& addr) {
  if (addr.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(addr);
    return std::string(reinterpret_cast<const char*>(&a.sin_addr), sizeof a.sin_addr);
  }
  if (addr.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(addr);
    const auto* bytes = reinterpret_cast<const char*>(&a.sin6_addr);
    if (IN6_IS_ADDR_V4MAPPED(&a.sin6_addr)) return std::string(bytes + 12, 4);
    return std::string(bytes, sizeof a.sin6_addr);
  }
  return {};
}

// Append an answer's bytes to `out`: the headers cpp-httplib wrote, in its order (sorted by
// name), so that clients see no change. A HEAD answer has the headers of the GET answer alone.
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

int CeilSeconds(std::chrono::milliseconds ms) {
  return static_cast<int>((ms.count() + 999) / 1000);
}

}  // namespace

class HttpServer::Impl {
 public:
  Impl(HttpServerOptions options, Handler handler, ErrorAnswer error_answer,
       std::unique_ptr<TlsContext> tls)
      : options_(std::move(options)),
        handler_(std::move(handler)),
        error_answer_(std::move(error_answer)),
        tls_(std::move(tls)),
        scratch_(new char[kReadChunk]) {
    keep_alive_header_ = "timeout=" + std::to_string(CeilSeconds(options_.keep_alive_timeout)) +
                         ", max=" + std::to_string(kMaxRequestsPerConnection);
  }

  ~Impl() {
    StopWorkers();
    conns_.clear();
    if (listen_fd_ >= 0) ::close(listen_fd_);
    if (epoll_fd_ >= 0) ::close(epoll_fd_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
  }

  Status Open() {
    epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (epoll_fd_ < 0 || wake_fd_ < 0) return IoError("cannot create the server's event loop");
    if (!Watch(wake_fd_, EPOLLIN, kWakeTag)) return IoError("cannot watch the wake-up descriptor");
    return Ok();
  }

  Status Bind();
  Status Run();

  void Stop() {
    // Only async-signal-safe calls: an atomic store and a write.
    stop_requested_.store(true);
    Wake();
  }

  int port_ = 0;

 private:
  // -- the loop
  bool Watch(int fd, uint32_t events, uint64_t tag);
  void Turn(const epoll_event* events, int n);
  int TimeoutMs() const;
  void BeginStop();
  void Accept();
  void RefuseConnection(int fd);
  Connection* Find(uint64_t id);
  void ReapClosed();
  // -- one connection
  void Advance(Connection& c);
  void Handshake(Connection& c);
  void ReadRequest(Connection& c);
  void Consume(Connection& c, std::string_view bytes);
  void Dispatch(Connection& c);
  void Answer(Connection& c, const HttpResponse& response);
  void RefuseRequest(Connection& c, int status, const char* message);
  void WriteAnswer(Connection& c);
  bool Flush(Connection& c);
  void DiscardInput(Connection& c);
  void Close(Connection& c);
  // -- deadlines
  void UpdateDeadline(Connection& c);
  void RunTimers();
  void Expire(Connection& c);
  // -- handler threads
  void StartWorkers();
  void StopWorkers();
  void WorkerLoop();
  void Complete(Done done);
  void DrainCompletions();
  void Wake();

  HttpServerOptions options_;
  Handler handler_;
  ErrorAnswer error_answer_;
  std::unique_ptr<TlsContext> tls_;
  std::unique_ptr<char[]> scratch_;  // one read buffer for every connection
  std::string keep_alive_header_;
  std::string refusal_;  // the 503 for a connection over a cap

  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  size_t max_connections_ = 0;
  std::atomic<bool> stop_requested_{false};

  // Owned by the loop's thread.
  TimePoint now_ = Clock::now();
  bool stopping_ = false;
  TimePoint grace_end_ = kNever;
  TimePoint accept_paused_until_ = kNever;
  uint64_t next_id_ = 2;
  std::unordered_map<uint64_t, std::unique_ptr<Connection>> conns_;
  std::unordered_map<std::string, size_t> per_client_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
  std::vector<uint64_t> ready_;  // connections with input left after their turn
  std::vector<uint64_t> closed_;

  // Shared with the handler threads.
  std::vector<std::thread> workers_;
  std::mutex jobs_mu_;
  std::condition_variable jobs_cv_;
  std::deque<Job> jobs_;
  bool workers_stop_ = false;
  std::mutex done_mu_;
  std::vector<Done> done_;
  bool wake_pending_ = false;
};

// ---- binding and the loop ----

Status HttpServer::Impl::Bind() {
  // Each connection is a descriptor: let the process have as many as the hard limit allows,
  // and keep connections below it, so that running out refuses clients instead of failing
  // the store's files.
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0) {
    if (files.rlim_cur < files.rlim_max) {
      files.rlim_cur = files.rlim_max;
      ::setrlimit(RLIMIT_NOFILE, &files);
      ::getrlimit(RLIMIT_NOFILE, &files);
    }
  }
  const size_t reserve = kReservedDescriptors + static_cast<size_t>(std::max(1, options_.threads));
  max_connections_ = options_.max_connections;
  if (files.rlim_cur != RLIM_INFINITY) {
    const auto available = static_cast<size_t>(files.rlim_cur);
    max_connections_ = std::min(max_connections_, available > reserve ? available - reserve : 1);
  }

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(options_.port);
  const char* host = options_.host.empty() ? nullptr : options_.host.c_str();
  if (::getaddrinfo(host, service.c_str(), &hints, &found) == 0) {
    for (addrinfo* a = found; a && listen_fd_ < 0; a = a->ai_next) {
      int fd =
          ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) continue;
      // SO_REUSEADDR allows a quick restart; SO_REUSEPORT is not set, so a second server
      // cannot silently share a port in use.
      int yes = 1;
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
      if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
        listen_fd_ = fd;
      } else {
        ::close(fd);
      }
    }
    ::freeaddrinfo(found);
  }
  if (listen_fd_ < 0) {
    if (options_.port == 0) return IoError("cannot bind to " + options_.host);
    return IoError("cannot listen on " + options_.host + ":" + std::to_string(options_.port) +
                   " (in use, or not an address of this machine)");
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len);
  port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6&>(bound).sin6_port
                                            : reinterpret_cast<sockaddr_in&>(bound).sin_port);
  if (!Watch(listen_fd_, EPOLLIN, kListenTag)) return IoError("cannot watch the listening socket");
  return Ok();
}

bool HttpServer::Impl::Watch(int fd, uint32_t events, uint64_t tag) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = tag;
  return ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) == 0;
}

Status HttpServer::Impl::Run() {
  if (listen_fd_ < 0) return Internal("HttpServer::Run before Bind");
  // The answer to a connection over a cap is the same every time: make it once.
  refusal_.clear();
  AppendAnswer(refusal_, error_answer_(503, "Too many connections"), false, true, {});
  StartWorkers();
  std::vector<epoll_event> events(kMaxEvents);
  Status result = Ok();
  while (true) {
    if (stop_requested_.load() && !stopping_) BeginStop();
    if (stopping_ && (conns_.empty() || now_ >= grace_end_)) break;
    const int n = ::epoll_wait(epoll_fd_, events.data(), kMaxEvents, TimeoutMs());
    now_ = Clock::now();
    if (n < 0 && errno != EINTR) {
      result = IoError(std::string("the server's event loop failed: ") + std::strerror(errno));
      break;
    }
    Turn(events.data(), std::max(n, 0));
  }
  for (auto& [id, c] : conns_) Close(*c);
  ReapClosed();
  StopWorkers();
  return result;
}

void HttpServer::Impl::Turn(const epoll_event* events, int n) {
  for (int i = 0; i < n; ++i) {
    const uint64_t tag = events[i].data.u64;
    if (tag == kListenTag) {
      Accept();
      continue;
    }
    if (tag == kWakeTag) {
      uint64_t count;
      while (::read(wake_fd_, &count, sizeof count) > 0) {
      }
      continue;
    }
    Connection* c = Find(tag);
    if (!c) continue;
    const uint32_t e = events[i].events;
    if (e & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) c->readable = true;
    if (e & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) c->peer_closed = true;
    if (e & (EPOLLOUT | EPOLLHUP | EPOLLERR)) c->writable = true;
    Advance(*c);
  }
  DrainCompletions();
  std::vector<uint64_t> ready;
  ready.swap(ready_);
  for (uint64_t id : ready) {
    if (Connection* c = Find(id)) Advance(*c);
  }
  if (accept_paused_until_ <= now_ && listen_fd_ >= 0) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kListenTag;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, listen_fd_, &ev);
    accept_paused_until_ = kNever;
  }
  RunTimers();
  ReapClosed();
}

int HttpServer::Impl::TimeoutMs() const {
  if (!ready_.empty()) return 0;
  TimePoint next = std::min(accept_paused_until_, stopping_ ? grace_end_ : kNever);
  if (!timers_.empty()) next = std::min(next, timers_.top().at);
  if (next == kNever) return -1;
  const auto wait = std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(wait, 0, 60000));
}

void HttpServer::Impl::BeginStop() {
  stopping_ = true;
  grace_end_ = now_ + options_.shutdown_grace;
  if (listen_fd_ >= 0) {
    ::close(listen_fd_);  // also leaves the epoll set
    listen_fd_ = -1;
  }
  for (auto& [id, c] : conns_) {
    switch (c->phase) {
      case Phase::kHandling:
      case Phase::kWriting:
        c->close_after_answer = true;  // a request already received is answered
        break;
      case Phase::kHandshake:
      case Phase::kReading:
      case Phase::kIdle:
      case Phase::kLingering:
        Close(*c);
        break;
      case Phase::kClosed:
        break;
    }
  }
}

void HttpServer::Impl::Accept() {
  for (int i = 0; i < kAcceptsPerTurn; ++i) {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    const int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors: the listening socket would stay readable and spin the loop.
        epoll_event ev{};
        ev.data.u64 = kListenTag;
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, listen_fd_, &ev);
        accept_paused_until_ = now_ + kAcceptPause;
      }
      return;
    }
    std::string client = ClientKey(addr);
    auto [slot, inserted] = per_client_.try_emplace(client, 0);
    if (conns_.size() >= max_connections_ || slot->second >= options_.max_connections_per_client) {
      if (slot->second == 0) per_client_.erase(slot);
      RefuseConnection(fd);
      continue;
    }
    SSL* session = nullptr;
    if (tls_ && !(session = tls_->NewSession(fd))) {
      if (slot->second == 0) per_client_.erase(slot);
      ::close(fd);
      continue;
    }
    ++slot->second;
    // Answers go out in one write; without this a small one could wait for the client's
    // delayed ACK.
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    const uint64_t id = next_id_++;
    auto conn = std::make_unique<Connection>(id, std::move(client), fd, session, options_.limits);
    conn->phase = session ? Phase::kHandshake : Phase::kReading;
    conn->request_start = conn->last_progress = now_;
    Connection& c = *conn;
    conns_.emplace(id, std::move(conn));
    if (!Watch(fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, id)) {
      Close(c);
      continue;
    }
    UpdateDeadline(c);
  }
}

void HttpServer::Impl::RefuseConnection(int fd) {
  // Plain HTTP gets a 503 if the socket takes it at once; a TLS client would need a handshake
  // first, which is what the cap saves, so it is closed.
  if (!tls_) ::send(fd, refusal_.data(), refusal_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::close(fd);
}

Connection* HttpServer::Impl::Find(uint64_t id) {
  auto it = conns_.find(id);
  if (it == conns_.end() || it->second->phase == Phase::kClosed) return nullptr;
  return it->second.get();
}

void HttpServer::Impl::ReapClosed() {
  for (uint64_t id : closed_) conns_.erase(id);
  closed_.clear();
}

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

void HttpServer::Impl::RunTimers() {
  while (!timers_.empty() && timers_.top().at <= now_) {
    const Timer t = timers_.top();
    timers_.pop();
    Connection* c = Find(t.connection);
    if (!c || c->timer_at != t.at) continue;  // closed, or an entry replaced by an earlier one
    c->timer_at = kNever;
    if (c->deadline <= now_) {
      Expire(*c);
    } else if (c->deadline != kNever) {
      c->timer_at = c->deadline;
      timers_.push({c->deadline, c->id});
    }
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

// ---- handler threads ----

void HttpServer::Impl::StartWorkers() {
  workers_stop_ = false;
  const int n = std::max(1, options_.threads);
  for (int i = 0; i < n; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

void HttpServer::Impl::StopWorkers() {
  {
    std::lock_guard<std::mutex> lock(jobs_mu_);
    workers_stop_ = true;
    jobs_.clear();  // their connections are closed
  }
  jobs_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
}

void HttpServer::Impl::WorkerLoop() {
  while (true) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(jobs_mu_);
      jobs_cv_.wait(lock, [this] { return workers_stop_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    HttpResponse response;
    try {
      response = handler_(job.request);
    } catch (...) {
      // A handler must not throw; if one does, the client still gets an answer.
      response = error_answer_(500, "Internal server error");
    }
    Complete({job.connection, std::move(response)});
  }
}

void HttpServer::Impl::Complete(Done done) {
  {
    std::lock_guard<std::mutex> lock(done_mu_);
    done_.push_back(std::move(done));
    // One wake-up per batch: the loop takes every answer waiting when it wakes.
    if (wake_pending_) return;
    wake_pending_ = true;
  }
  Wake();
}

void HttpServer::Impl::Wake() {
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);
}

void HttpServer::Impl::DrainCompletions() {
  std::vector<Done> done;
  {
    std::lock_guard<std::mutex> lock(done_mu_);
    done.swap(done_);
    wake_pending_ = false;
  }
  for (Done& d : done) {
    Connection* c = Find(d.connection);
    if (c && c->phase == Phase::kHandling) Answer(*c, d.response);
  }
}

// ---- HttpServer ----

Result<std::unique_ptr<HttpServer>> HttpServer::Create(HttpServerOptions options, Handler handler,
                                                       ErrorAnswer error_answer) {
  std::unique_ptr<TlsContext> tls;
  if (!options.tls_cert.empty() || !options.tls_key.empty()) {
    if (options.tls_cert.empty() || options.tls_key.empty()) {
      return InvalidArgument("--tls-cert and --tls-key go together");
    }
    SLUICE_ASSIGN_OR_RETURN(tls, TlsContext::Load(options.tls_cert, options.tls_key));
  }
  auto impl = std::make_unique<Impl>(std::move(options), std::move(handler),
                                     std::move(error_answer), std::move(tls));
  SLUICE_TRY(impl->Open());
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() = default;
Status HttpServer::Bind() { return impl_->Bind(); }
int HttpServer::port() const { return impl_->port_; }
Status HttpServer::Run() { return impl_->Run(); }
void HttpServer::Stop() { impl_->Stop(); }

}  // namespace sluice::registry
