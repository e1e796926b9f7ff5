// The registry benchmark's peer (bench/registry): a bare HTTP server, cpp-httplib with the
// settings the registry's server had when it was built on cpp-httplib (a pool of 64 threads, the
// same body limit, timeouts, keep-alive count and timeout, Nagle's algorithm off, a raised listen
// backlog), answering every GET with one fixed body. The registry now serves on an event loop of
// its own (src/sluice/registry/http_server.h); the peer stays what a plain thread-per-connection
// server does with no registry work at all.
//   bench_bare_httplib --body FILE --port-file FILE [--port N] [--threads N]
// Listens on 127.0.0.1; port 0 (the default) takes any free port, written to the port file once
// the socket is bound.
#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

namespace {

// The registry's settings (ServerOptions' defaults and Server::Impl::Setup).
constexpr const char* kContentType = "application/vnd.schemaregistry.v1+json";
constexpr size_t kMaxBodyBytes = 16u << 20;
constexpr int kReadTimeoutSeconds = 10;
constexpr size_t kKeepAliveMaxCount = 100000;
constexpr int kKeepAliveTimeoutSeconds = 5;

int Usage() {
  std::cerr << "usage: bench_bare_httplib --body FILE --port-file FILE [--port N] "
               "[--threads N]\n";
  return 2;
}

int Run(int argc, char** argv) {
  std::string body_file;
  std::string port_file;
  int port = 0;
  int threads = 64;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (i + 1 >= argc) return Usage();
    const char* value = argv[++i];
    if (arg == "--body") {
      body_file = value;
    } else if (arg == "--port-file") {
      port_file = value;
    } else if (arg == "--port") {
      port = std::atoi(value);
    } else if (arg == "--threads") {
      threads = std::max(1, std::atoi(value));
    } else {
      return Usage();
    }
  }
  if (body_file.empty() || (port == 0 && port_file.empty())) return Usage();
  std::ifstream in(body_file, std::ios::binary);
  if (!in) {
    std::cerr << "bench_bare_httplib: cannot read " << body_file << "\n";
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  const std::string body = text.str();

  httplib::Server http;
  http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http.set_payload_max_length(kMaxBodyBytes);
  http.set_read_timeout(kReadTimeoutSeconds, 0);
  http.set_write_timeout(kReadTimeoutSeconds, 0);
  http.set_keep_alive_max_count(kKeepAliveMaxCount);
  http.set_keep_alive_timeout(kKeepAliveTimeoutSeconds);
  http.set_tcp_nodelay(true);
  // As the registry: SO_REUSEADDR only, and the listen backlog raised after the bind.
  int listen_fd = -1;
  http.set_socket_options([&listen_fd](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listen_fd = sock;
  });
  http.Get(".*", [&body](const httplib::Request&, httplib::Response& res) {
    res.set_content(body, kContentType);
  });
  if (port == 0) {
    port = http.bind_to_any_port("127.0.0.1");
    if (port <= 0) {
      std::cerr << "bench_bare_httplib: cannot bind to 127.0.0.1\n";
      return 1;
    }
  } else if (!http.bind_to_port("127.0.0.1", port)) {
    std::cerr << "bench_bare_httplib: cannot listen on 127.0.0.1:" << port << "\n";
    return 1;
  }
  if (listen_fd >= 0) ::listen(listen_fd, SOMAXCONN);
  if (!port_file.empty()) {
    // Written whole under another name, then renamed: a reader never sees half a number.
    const std::string tmp = port_file + ".tmp";
    std::ofstream(tmp) << port << "\n";
    if (std::rename(tmp.c_str(), port_file.c_str()) != 0) {
      std::cerr << "bench_bare_httplib: cannot write " << port_file << "\n";
      return 1;
    }
  }
  return http.listen_after_bind() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  // cpp-httplib throws on allocation failures and the like; a benchmark peer just reports it.
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "bench_bare_httplib: " << e.what() << "\n";
    return 1;
  }
}
