// The parser's own limit for the data-plane benchmark: a bare simdjson on-demand pass over JSON
// lines that reads every field as its typed value (strings, numbers, booleans, nested objects
// and arrays) and does nothing else but fold them into a checksum.
//   bench_simdjson_ceiling FILE THREADS
// The file is read in 4 MiB blocks cut after a line break, like sluice's reader; each block is
// parsed line by line on one of THREADS threads. Prints seconds, MB/s and the checksum.
#include <fcntl.h>
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace od = simdjson::ondemand;

namespace {

uint64_t Fold(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001B3ull; }

uint64_t Value(od::value v, int depth);

uint64_t Object(od::object o, int depth) {
  uint64_t h = 0;
  for (auto field : o) {
    od::field f;
    if (std::move(field).get(f)) return h;
    std::string_view key;
    if (f.unescaped_key().get(key)) return h;
    h = Fold(h, key.size());
    h = Fold(h, Value(f.value(), depth + 1));
  }
  return h;
}

uint64_t Value(od::value v, int depth) {
  od::json_type t;
  if (v.type().get(t) || depth > 64) return 0;
  switch (t) {
    case od::json_type::object: {
      od::object o;
      return v.get_object().get(o) ? 0 : Object(o, depth);
    }
    case od::json_type::array: {
      od::array a;
      if (v.get_array().get(a)) return 0;
      uint64_t h = 0;
      for (auto item : a) {
        od::value e;
        if (std::move(item).get(e)) return h;
        h = Fold(h, Value(e, depth + 1));
      }
      return h;
    }
    case od::json_type::string: {
      std::string_view s;
      return v.get_string().get(s) ? 0 : s.size();
    }
    case od::json_type::number: {
      od::number_type nt;
      if (v.get_number_type().get(nt)) return 0;
      if (nt == od::number_type::signed_integer) {
        int64_t i;
        return v.get_int64().get(i) ? 0 : static_cast<uint64_t>(i);
      }
      double d;
      return v.get_double().get(d) ? 0 : static_cast<uint64_t>(d * 100);
    }
    case od::json_type::boolean: {
      bool b;
      return v.get_bool().get(b) ? 0 : b;
    }
    case od::json_type::null:
      return 7;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: bench_simdjson_ceiling FILE THREADS\n");
    return 2;
  }
  const int threads = std::max(1, std::atoi(argv[2]));
  int fd = ::open(argv[1], O_RDONLY);
  if (fd < 0) {
    std::perror(argv[1]);
    return 2;
  }
  constexpr size_t kBlock = size_t{4} << 20;
  std::mutex mu;
  std::condition_variable cv_work;
  std::condition_variable cv_room;
  std::deque<std::string> queue;  // blocks of whole lines, padded
  bool done = false;
  std::atomic<uint64_t> sum{0};
  std::atomic<uint64_t> records{0};

  auto worker = [&] {
    od::parser parser;
    uint64_t h = 0;
    uint64_t count = 0;
    while (true) {
      std::string block;
      {
        std::unique_lock lock(mu);
        cv_work.wait(lock, [&] { return done || !queue.empty(); });
        if (queue.empty()) break;
        block = std::move(queue.front());
        queue.pop_front();
      }
      cv_room.notify_one();
      const size_t n = block.size() - simdjson::SIMDJSON_PADDING;
      size_t pos = 0;
      while (pos < n) {
        const char* nl = static_cast<const char*>(std::memchr(block.data() + pos, '\n', n - pos));
        size_t end = nl ? static_cast<size_t>(nl - block.data()) : n;
        if (end > pos) {
          od::document doc;
          if (!parser.iterate(block.data() + pos, end - pos, block.size() - pos).get(doc)) {
            od::object o;
            if (!doc.get_object().get(o)) {
              h += Object(o, 1);  // a sum: the same for any thread count
              ++count;
            }
          }
        }
        pos = end + 1;
      }
    }
    sum += h;
    records += count;
  };

  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back(worker);
  std::string carry;
  uint64_t bytes = 0;
  while (true) {
    std::string block = carry;
    block.resize(kBlock + carry.size() + simdjson::SIMDJSON_PADDING);
    size_t have = carry.size();
    bool eof = false;
    while (have < kBlock + carry.size()) {
      ssize_t r = ::read(fd, block.data() + have, kBlock + carry.size() - have);
      if (r <= 0) {
        eof = true;
        break;
      }
      have += static_cast<size_t>(r);
    }
    size_t cut = have;
    if (!eof) {
      const void* nl = memrchr(block.data(), '\n', have);
      cut = nl ? static_cast<size_t>(static_cast<const char*>(nl) - block.data()) + 1 : have;
    }
    carry.assign(block.data() + cut, have - cut);
    bytes += cut;
    block.resize(cut);
    block.append(simdjson::SIMDJSON_PADDING, ' ');
    if (cut > 0) {
      std::unique_lock lock(mu);
      cv_room.wait(lock, [&] { return queue.size() < static_cast<size_t>(2 * threads); });
      queue.push_back(std::move(block));
    }
    cv_work.notify_one();
    if (eof) break;
  }
  {
    std::lock_guard lock(mu);
    done = true;
  }
  cv_work.notify_all();
  for (std::thread& t : pool) t.join();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%.3f s %.1f MB/s %llu records checksum %llu\n", secs, bytes / 1e6 / secs,
              static_cast<unsigned long long>(records.load()),
              static_cast<unsigned long long>(sum.load()));
  ::close(fd);
  return 0;
}
