// The parser's own limit for the data-plane benchmark: a bare simdjson on-demand pass over the
// orders of bench_gen_orders that reads every field of bench/orders_bench.ddl as its typed value
// (get_int64, get_string, get_double, get_bool, the shipping object, the items array) and does
// nothing else with it but fold it into a checksum. No timestamp, date or decimal is converted,
// no output is written: what is left is the cost of reading the values.
//   bench_simdjson_ceiling FILE THREADS [typed|stage1|newlines|read]
// The other modes measure what bounds any one-pass reader of the same bytes, on any shape of
// record: `stage1` runs simdjson's stage 1 alone over each block (the SIMD structural scan and
// UTF-8 validation that every on-demand parse starts with; the checksum sums the structural
// indexes found), `newlines` counts line breaks with memchr, `read` only reads the file into the
// blocks (from the page cache when it is warm).
// The file is read in 512 KiB blocks (BLOCK_KIB=N for others) cut after a line break, like
// sluice's reader. With THREADS 1 everything runs on one thread; with more, the main thread
// reads and THREADS workers parse.
// Blocks come from a fixed pool of padded buffers, so nothing is allocated per block or record.
// Prints "SECONDS s BYTES bytes MB/s ... records ... checksum ... errors ..."; the checksum does
// not depend on THREADS.
#include <fcntl.h>
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

namespace od = simdjson::ondemand;

namespace {

// As sluice's default (data::kDefaultBlockBytes); BLOCK_KIB in the environment sets another.
size_t BlockBytes() {
  static const size_t bytes = [] {
    const char* kib = std::getenv("BLOCK_KIB");
    const long n = kib != nullptr ? std::atol(kib) : 0;
    return n > 0 ? static_cast<size_t>(n) << 10 : size_t{512} << 10;
  }();
  return bytes;
}

uint64_t Mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001B3ull; }
uint64_t Cents(double d) { return static_cast<uint64_t>(static_cast<int64_t>(d * 100 + 0.5)); }

// A padded buffer holding whole lines.
struct Block {
  std::vector<char> bytes;  // size() is the capacity, padding included
  size_t size = 0;          // bytes of whole lines at the front
};

struct Tally {
  uint64_t checksum = 0;  // a sum of per-record hashes: the same in any order
  uint64_t records = 0;
  uint64_t errors = 0;
};

simdjson::error_code ReadString(od::object& o, std::string_view key, uint64_t& h) {
  std::string_view s;
  auto error = o[key].get_string().get(s);
  if (error == simdjson::SUCCESS) h = Mix(h, s.size() + (s.empty() ? 0 : s[0]));
  return error;
}

// One order, field by field with the type the schema gives it.
simdjson::error_code ReadOrder(od::object o, uint64_t& h) {
  int64_t i = 0;
  double d = 0;
  bool b = false;
  if (auto e = o["order_id"].get_int64().get(i)) return e;
  h = Mix(h, static_cast<uint64_t>(i));
  if (auto e = o["customer_id"].get_int64().get(i)) return e;
  h = Mix(h, static_cast<uint64_t>(i));
  for (std::string_view key : {"created_at", "order_date", "status", "currency"}) {
    if (auto e = ReadString(o, key, h)) return e;
  }
  if (auto e = o["amount"].get_double().get(d)) return e;
  h = Mix(h, Cents(d));
  if (auto e = o["express"].get_bool().get(b)) return e;
  h = Mix(h, b);
  od::value coupon;
  if (auto e = o["coupon"].get(coupon)) return e;
  bool is_null = false;
  if (auto e = coupon.is_null().get(is_null)) return e;
  if (is_null) {
    h = Mix(h, 7);
  } else {
    std::string_view s;
    if (auto e = coupon.get_string().get(s)) return e;
    h = Mix(h, s.size());
  }
  if (auto e = ReadString(o, "note", h)) return e;

  od::object shipping;
  if (auto e = o["shipping"].get_object().get(shipping)) return e;
  for (std::string_view key : {"method", "city", "postcode"}) {
    if (auto e = ReadString(shipping, key, h)) return e;
  }
  if (auto e = shipping["cost"].get_double().get(d)) return e;
  h = Mix(h, Cents(d));

  od::array items;
  if (auto e = o["items"].get_array().get(items)) return e;
  for (auto element : items) {
    od::object item;
    if (auto e = element.get_object().get(item)) return e;
    if (auto e = ReadString(item, "sku", h)) return e;
    if (auto e = item["qty"].get_int64().get(i)) return e;
    h = Mix(h, static_cast<uint64_t>(i));
    if (auto e = item["price"].get_double().get(d)) return e;
    h = Mix(h, Cents(d));
  }
  return simdjson::SUCCESS;
}

enum class Mode { kTyped, kStage1, kNewlines, kRead };

// What one thread keeps across blocks: its parser, or its stage-1 scanner.
struct Scanner {
  od::parser parser;
  std::unique_ptr<simdjson::internal::dom_parser_implementation> stage1;
};

// Parse every line of `block` (one parser per thread, reused for every record).
void ParseOrders(od::parser& parser, const Block& block, Tally& tally) {
  const char* data = block.bytes.data();
  const size_t capacity = block.bytes.size();
  size_t pos = 0;
  while (pos < block.size) {
    const void* nl = std::memchr(data + pos, '\n', block.size - pos);
    const size_t end =
        nl != nullptr ? static_cast<size_t>(static_cast<const char*>(nl) - data) : block.size;
    if (end > pos) {
      od::document doc;
      od::object order;
      uint64_t h = 0xCBF29CE484222325ull;
      if (parser.iterate(data + pos, end - pos, capacity - pos).get(doc) ||
          doc.get_object().get(order) || ReadOrder(order, h)) {
        ++tally.errors;
      } else {
        tally.checksum += h;
        ++tally.records;
      }
    }
    pos = end + 1;
  }
}

// Stage 1 over the whole block: newline-delimited documents, as a stream.
void Stage1Block(Scanner& scanner, const Block& block, Tally& tally) {
  if (!scanner.stage1 || scanner.stage1->capacity() < block.bytes.size()) {
    scanner.stage1.reset();
    if (simdjson::get_active_implementation()->create_dom_parser_implementation(
            block.bytes.size(), 1024, scanner.stage1) != simdjson::SUCCESS) {
      ++tally.errors;
      return;
    }
  }
  const auto* data = reinterpret_cast<const uint8_t*>(block.bytes.data());
  if (scanner.stage1->stage1(data, block.size, simdjson::stage1_mode::streaming_final) !=
      simdjson::SUCCESS) {
    ++tally.errors;
    return;
  }
  tally.checksum += scanner.stage1->n_structural_indexes;
}

void NewlinesBlock(const Block& block, Tally& tally) {
  const char* data = block.bytes.data();
  const char* end = data + block.size;
  for (const char* p = data; p < end;) {
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    if (nl == nullptr) break;
    ++tally.records;
    p = static_cast<const char*>(nl) + 1;
  }
}

void ScanBlock(Mode mode, Scanner& scanner, const Block& block, Tally& tally) {
  switch (mode) {
    case Mode::kTyped:
      return ParseOrders(scanner.parser, block, tally);
    case Mode::kStage1:
      return Stage1Block(scanner, block, tally);
    case Mode::kNewlines:
      return NewlinesBlock(block, tally);
    case Mode::kRead:
      return;
  }
}

// Fill `block` with the carried-over tail of the last read and new bytes up to whole lines;
// the bytes after the last line break are carried to the next block. Returns false at the end.
bool FillBlock(int fd, Block& block, std::vector<char>& carry, size_t& carry_size) {
  if (block.bytes.size() < carry_size + BlockBytes() + simdjson::SIMDJSON_PADDING) {
    block.bytes.resize(carry_size + BlockBytes() + simdjson::SIMDJSON_PADDING);
  }
  std::memcpy(block.bytes.data(), carry.data(), carry_size);
  size_t have = carry_size;
  const size_t want = carry_size + BlockBytes();
  bool eof = false;
  while (have < want) {
    const ssize_t r = ::read(fd, block.bytes.data() + have, want - have);
    if (r <= 0) {
      eof = true;
      break;
    }
    have += static_cast<size_t>(r);
  }
  size_t cut = have;
  if (!eof) {
    const void* nl = memrchr(block.bytes.data(), '\n', have);
    // A line longer than a block is carried whole and read on with a bigger block.
    cut = nl != nullptr ? static_cast<size_t>(static_cast<const char*>(nl) - block.bytes.data()) + 1
                        : 0;
  }
  carry_size = have - cut;
  if (carry.size() < carry_size) carry.resize(carry_size);
  std::memcpy(carry.data(), block.bytes.data() + cut, carry_size);
  block.size = cut;
  std::memset(block.bytes.data() + cut, ' ', simdjson::SIMDJSON_PADDING);
  return !eof;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode_name = argc == 4 ? argv[3] : "typed";
  Mode mode = Mode::kTyped;
  if (mode_name == "stage1") {
    mode = Mode::kStage1;
  } else if (mode_name == "newlines") {
    mode = Mode::kNewlines;
  } else if (mode_name == "read") {
    mode = Mode::kRead;
  } else if (mode_name != "typed") {
    argc = 0;
  }
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr,
                 "usage: bench_simdjson_ceiling FILE THREADS [typed|stage1|newlines|read]\n");
    return 2;
  }
  const int threads = std::max(1, std::atoi(argv[2]));
  const int fd = ::open(argv[1], O_RDONLY);
  if (fd < 0) {
    std::perror(argv[1]);
    return 2;
  }
  std::vector<char> carry;
  size_t carry_size = 0;
  uint64_t bytes = 0;
  Tally total;
  const auto start = std::chrono::steady_clock::now();

  if (threads == 1) {
    Scanner scanner;
    Block block;
    bool more = true;
    while (more) {
      more = FillBlock(fd, block, carry, carry_size);
      bytes += block.size;
      ScanBlock(mode, scanner, block, total);
    }
  } else {
    // As many blocks in flight as sluice keeps: two per worker and two more.
    std::vector<Block> pool(2 * static_cast<size_t>(threads) + 2);
    std::mutex mu;
    std::condition_variable cv_full;
    std::condition_variable cv_free;
    std::deque<Block*> full_blocks;
    std::deque<Block*> free_blocks;
    for (Block& b : pool) free_blocks.push_back(&b);
    bool done = false;

    auto worker = [&] {
      Scanner scanner;
      Tally tally;
      while (true) {
        Block* block;
        {
          std::unique_lock lock(mu);
          cv_full.wait(lock, [&] { return done || !full_blocks.empty(); });
          if (full_blocks.empty()) break;
          block = full_blocks.front();
          full_blocks.pop_front();
        }
        ScanBlock(mode, scanner, *block, tally);
        {
          std::lock_guard lock(mu);
          free_blocks.push_back(block);
        }
        cv_free.notify_one();
      }
      std::lock_guard lock(mu);
      total.checksum += tally.checksum;
      total.records += tally.records;
      total.errors += tally.errors;
    };
    std::vector<std::thread> workers;
    for (int i = 0; i < threads; ++i) workers.emplace_back(worker);
    bool more = true;
    while (more) {
      Block* block;
      {
        std::unique_lock lock(mu);
        cv_free.wait(lock, [&] { return !free_blocks.empty(); });
        block = free_blocks.front();
        free_blocks.pop_front();
      }
      more = FillBlock(fd, *block, carry, carry_size);
      bytes += block->size;
      {
        std::lock_guard lock(mu);
        full_blocks.push_back(block);
      }
      cv_full.notify_one();
    }
    {
      std::lock_guard lock(mu);
      done = true;
    }
    cv_full.notify_all();
    for (std::thread& t : workers) t.join();
  }

  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::close(fd);
  std::printf("%.3f s %llu bytes %.1f MB/s %llu records checksum %llu errors %llu\n", secs,
              static_cast<unsigned long long>(bytes), bytes / 1e6 / secs,
              static_cast<unsigned long long>(total.records),
              static_cast<unsigned long long>(total.checksum),
              static_cast<unsigned long long>(total.errors));
  return total.errors == 0 ? 0 : 1;
}
