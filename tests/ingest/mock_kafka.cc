// sluice-mock-kafka: librdkafka's mock Kafka cluster as a process, for tests that drive real
// clients (kafkajs, confluent-kafka) against it.
//
//   sluice-mock-kafka --brokers N --topic NAME:PARTITIONS [--topic ...]
//
// Prints "bootstrap=HOST:PORT,..." on one stdout line once the brokers listen and the topics
// exist, then serves until stdin closes (EOF) or SIGTERM/SIGINT arrives. Exit 0 then, 2 on a
// usage error, 1 when the cluster cannot start. Each partition keeps its newest ~5 MB or
// 100,000 message sets; older ones are dropped, as retention would.
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/ingest/kafka_client.h"

namespace {

constexpr const char* kUsage =
    "usage: sluice-mock-kafka [--brokers N] --topic NAME:PARTITIONS [--topic ...]\n";

bool ParseInt(std::string_view text, int& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// Wait for EOF on stdin or a termination signal; the signals are blocked in every thread and
// read from a signalfd, so librdkafka's threads never see them.
void ServeUntilTold(int signal_fd) {
  std::array<pollfd, 2> fds = {pollfd{STDIN_FILENO, POLLIN, 0}, pollfd{signal_fd, POLLIN, 0}};
  char buffer[4096];
  while (true) {
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if (fds[0].revents != 0) {
      ssize_t n = read(STDIN_FILENO, buffer, sizeof(buffer));
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  int brokers = 1;
  std::vector<std::pair<std::string, int>> topics;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "sluice-mock-kafka: %s needs a value\n%s", argv[i], kUsage);
      return 2;
    }
    std::string_view value = argv[++i];
    if (arg == "--brokers") {
      if (!ParseInt(value, brokers) || brokers < 1) {
        std::fprintf(stderr, "sluice-mock-kafka: --brokers wants a positive count, not '%s'\n",
                     argv[i]);
        return 2;
      }
    } else if (arg == "--topic") {
      size_t colon = value.rfind(':');
      int partitions = 0;
      if (colon == std::string_view::npos || colon == 0 ||
          !ParseInt(value.substr(colon + 1), partitions) || partitions < 1) {
        std::fprintf(stderr, "sluice-mock-kafka: --topic wants NAME:PARTITIONS, not '%s'\n",
                     argv[i]);
        return 2;
      }
      topics.emplace_back(std::string(value.substr(0, colon)), partitions);
    } else {
      std::fprintf(stderr, "sluice-mock-kafka: unknown option %s\n%s", argv[i], kUsage);
      return 2;
    }
  }

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  int signal_fd = signalfd(-1, &signals, SFD_CLOEXEC);
  if (signal_fd < 0) {
    std::perror("sluice-mock-kafka: signalfd");
    return 1;
  }

  auto mock = sluice::ingest::MockKafkaCluster::Start(brokers);
  if (!mock) {
    std::fprintf(stderr, "sluice-mock-kafka: %s\n", mock.error().ToString().c_str());
    return 1;
  }
  for (const auto& [name, partitions] : topics) {
    auto created = (*mock)->CreateTopic(name, partitions, std::min(brokers, 3));
    if (!created) {
      std::fprintf(stderr, "sluice-mock-kafka: %s\n", created.error().ToString().c_str());
      return 1;
    }
  }
  std::printf("bootstrap=%s\n", (*mock)->bootstrap().c_str());
  std::fflush(stdout);
  ServeUntilTold(signal_fd);
  close(signal_fd);
  return 0;
}
