// The HTTP server's insides, shared by its two source files: the loop (http_server.cc: accept,
// epoll, timers, handler threads, stop) and one connection's state machine (http_connection.cc:
// handshake, reading and parsing, answers, lingering close). Not for use outside the server.
#pragma once

#include <sys/epoll.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "sluice/registry/http_parser.h"
#include "sluice/registry/http_server.h"
#include "sluice/registry/http_socket_internal.h"

namespace sluice::registry {
namespace internal {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;

inline constexpr TimePoint kNever = TimePoint::max();
// One read buffer's size: the loop's, shared by every connection.
inline constexpr size_t kReadChunk = 64 << 10;
// The Keep-Alive header promises this many requests per connection.
inline constexpr size_t kMaxRequestsPerConnection = 100000;

enum class Phase : uint8_t {
  kHandshake,  // TLS handshake under way
  kReading,    // a request under way (or expected on a new connection)
  kIdle,       // kept alive between requests
  kHandling,   // the request is with a handler thread; nothing is read meanwhile
  kWriting,    // the answer is being written
  kLingering,  // answered and closing: what the client still sends is dropped
  kClosed,
};

/// One client connection, owned by the loop's thread (a handler thread gets only its request).
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

/// A complete request on its way to a handler thread.
struct Job {
  uint64_t connection;
  HttpRequest request;
};

/// A handler's answer on its way back to the loop.
struct Done {
  uint64_t connection;
  HttpResponse response;
};

/// A deadline in the loop's timer heap (stale once the connection's timer_at differs).
struct Timer {
  TimePoint at;
  uint64_t connection;
  bool operator>(const Timer& o) const { return at > o.at; }
};

/// Append an answer's bytes to `out`: status line, headers sorted by name as cpp-httplib wrote
/// them (so clients see no change), body. A HEAD answer (`head`) has the GET answer's headers and
/// no body; `close` writes `Connection: close`, else `Keep-Alive: <keep_alive>`.
void AppendAnswer(std::string& out, const HttpResponse& r, bool head, bool close,
                  std::string_view keep_alive);

}  // namespace internal

class HttpServer::Impl {
 public:
  Impl(HttpServerOptions options, Handler handler, ErrorAnswer error_answer,
       std::unique_ptr<internal::TlsContext> tls);
  ~Impl();
  /// Make the epoll set and the wake-up descriptor.
  Status Open();
  Status Bind();
  Status Run();

  /// Ask the loop to stop: async-signal-safe.
  void Stop();

  int port_ = 0;

 private:
  // -- the loop
  bool Watch(int fd, uint32_t events, uint64_t tag);
  void Turn(const epoll_event* events, int n);
  int TimeoutMs() const;
  void BeginStop();
  void Accept();
  void RefuseConnection(int fd);
  internal::Connection* Find(uint64_t id);
  void ReapClosed();
  // -- one connection
  void Advance(internal::Connection& c);
  void Handshake(internal::Connection& c);
  void ReadRequest(internal::Connection& c);
  void Consume(internal::Connection& c, std::string_view bytes);
  void Dispatch(internal::Connection& c);
  void Answer(internal::Connection& c, const HttpResponse& response);
  void RefuseRequest(internal::Connection& c, int status, const char* message);
  void WriteAnswer(internal::Connection& c);
  bool Flush(internal::Connection& c);
  void DiscardInput(internal::Connection& c);
  void Close(internal::Connection& c);
  // -- deadlines
  void UpdateDeadline(internal::Connection& c);
  void RunTimers();
  void Expire(internal::Connection& c);
  // -- handler threads
  void StartWorkers();
  void StopWorkers();
  void WorkerLoop();
  void Complete(internal::Done done);
  void DrainCompletions();
  void Wake();

  HttpServerOptions options_;
  Handler handler_;
  ErrorAnswer error_answer_;
  std::unique_ptr<internal::TlsContext> tls_;
  std::unique_ptr<char[]> scratch_;  // one read buffer for every connection
  std::string keep_alive_header_;
  std::string refusal_;  // the 503 for a connection over a cap

  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  size_t max_connections_ = 0;
  std::atomic<bool> stop_requested_{false};

  // Owned by the loop's thread.
  internal::TimePoint now_ = internal::Clock::now();
  bool stopping_ = false;
  internal::TimePoint grace_end_ = internal::kNever;
  internal::TimePoint accept_paused_until_ = internal::kNever;
  uint64_t next_id_ = 2;
  std::unordered_map<uint64_t, std::unique_ptr<internal::Connection>> conns_;
  std::unordered_map<std::string, size_t> per_client_;
  std::priority_queue<internal::Timer, std::vector<internal::Timer>, std::greater<internal::Timer>>
      timers_;
  std::vector<uint64_t> ready_;  // connections with input left after their turn
  std::vector<uint64_t> closed_;

  // Shared with the handler threads.
  std::vector<std::thread> workers_;
  std::mutex jobs_mu_;
  std::condition_variable jobs_cv_;
  std::deque<internal::Job> jobs_;
  bool workers_stop_ = false;
  std::mutex done_mu_;
  std::vector<internal::Done> done_;
  bool wake_pending_ = false;
};

}  // namespace sluice::registry
