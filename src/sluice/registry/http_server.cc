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
#include <cerrno>
#include <cstring>

#include "sluice/registry/http_server_internal.h"

namespace sluice::registry {

using internal::AppendAnswer;
using internal::Clock;
using internal::Connection;
using internal::Done;
using internal::Job;
using internal::kNever;
using internal::Phase;
using internal::TimePoint;
using internal::Timer;
using internal::TlsContext;

namespace {

// epoll tags: connection ids start above these.
constexpr uint64_t kListenTag = 0;
constexpr uint64_t kWakeTag = 1;
constexpr int kMaxEvents = 256;
// Accepts per turn of the loop, so a flood of new connections cannot hold it.
constexpr int kAcceptsPerTurn = 64;
// Descriptors kept free of connections: the store's files and connections, the handler threads'.
constexpr size_t kReservedDescriptors = 64;
// How long accepting pauses when the process is out of descriptors.
constexpr std::chrono::milliseconds kAcceptPause{100};

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

int CeilSeconds(std::chrono::milliseconds ms) {
  return static_cast<int>((ms.count() + 999) / 1000);
}

}  // namespace

HttpServer::Impl::Impl(HttpServerOptions options, Handler handler, ErrorAnswer error_answer,
                       std::unique_ptr<TlsContext> tls)
    : options_(std::move(options)),
      handler_(std::move(handler)),
      error_answer_(std::move(error_answer)),
      tls_(std::move(tls)),
      scratch_(new char[internal::kReadChunk]) {
  keep_alive_header_ = "timeout=" + std::to_string(CeilSeconds(options_.keep_alive_timeout)) +
                       ", max=" + std::to_string(internal::kMaxRequestsPerConnection);
}

HttpServer::Impl::~Impl() {
  StopWorkers();
  conns_.clear();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

Status HttpServer::Impl::Open() {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epoll_fd_ < 0 || wake_fd_ < 0) return IoError("cannot create the server's event loop");
  if (!Watch(wake_fd_, EPOLLIN, kWakeTag)) {
    return IoError("cannot watch the wake-up descriptor");
  }
  return Ok();
}

void HttpServer::Impl::Stop() {
  // Only async-signal-safe calls: an atomic store and a write.
  stop_requested_.store(true);
  Wake();
}

// ---- binding and the loop ----

Status HttpServer::Impl::Bind() {
  // Each connection is a descriptor: let the process have as many as the hard limit allows,
  // and keep connections below it, so that running out refuses clients instead of failing
  // the store's files.
  rlimit files{};
  const bool known = ::getrlimit(RLIMIT_NOFILE, &files) == 0;
  if (known && files.rlim_cur < files.rlim_max) {
    rlimit raised = files;
    raised.rlim_cur = files.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) files = raised;
  }
  const size_t reserve = kReservedDescriptors + static_cast<size_t>(std::max(1, options_.threads));
  max_connections_ = options_.max_connections;
  if (known && files.rlim_cur != RLIM_INFINITY) {
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
  now_ = Clock::now();
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
  // Now, so that the loop sees at once whether anything is left to wait for.
  ReapClosed();
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

// ---- deadlines ----

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
