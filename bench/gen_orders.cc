// Seeded generator of orders-like JSON lines for the data-plane benchmark:
//   bench_gen_orders OUT N SEED
// Each record: ids, timestamps as strings, status, currency, a 2-decimal amount, a boolean, a
// nullable coupon (30% set), a note of 0-80 characters with escapes (\" \n \\ \u00e9) now and
// then, a `shipping` struct and an `items` array of 1-6 {sku, qty, price}, most orders having one
// or two; about 400 bytes on average. The same N and SEED give the same bytes on any machine (own
// PRNG, own formatting).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <string_view>

#include "gen_common.h"

namespace {

using bench::Money;
using bench::Num;
using bench::Rng;

const char* kStatus[] = {"placed", "paid", "shipped", "delivered", "cancelled"};
const char* kCurrency[] = {"EUR", "USD", "GBP", "JPY", "CHF"};
const char* kMethod[] = {"standard", "express", "pickup", "locker"};
const char* kCity[] = {"Paris", "Lyon", "Berlin", "Hamburg", "Madrid", "Lisbon", "Zürich", "Oslo"};
const char* kWords[] = {"please", "leave",  "at",       "the",    "door",
                        "ring",   "twice",  "gift",     "wrap",   "fragile",
                        "call",   "before", "delivery", "thanks", "back"};

// Most orders carry one or two lines: 40% one, 25% two, then 15, 10, 5 and 5% for three to six.
uint64_t ItemCount(Rng& rng) {
  const uint64_t p = rng.Below(100);
  if (p < 40) return 1;
  if (p < 65) return 2;
  if (p < 80) return 3;
  if (p < 90) return 4;
  return p < 95 ? 5 : 6;
}

// A free-text note: empty for 35% of orders, else 1-80 characters of words, one in six with an
// escape sequence that a reader must decode.
void Note(std::string& out, Rng& rng) {
  if (rng.Below(100) < 35) return;
  const char* escapes[] = {"\\\"urgent\\\" ", "\\nsecond line", " caf\\u00e9", " door\\\\gate"};
  const uint64_t kind = rng.Below(24);
  const std::string_view escape = kind < std::size(escapes) ? escapes[kind] : "";
  const size_t target = 1 + rng.Below(80);
  const size_t words = target > escape.size() ? target - escape.size() : 1;
  const size_t start = out.size();
  while (out.size() - start < words) {
    if (out.size() > start) out += ' ';
    out += kWords[rng.Below(std::size(kWords))];
  }
  out.resize(start + words);
  if (out.back() == ' ') out.back() = '.';
  if (kind == 0) {
    out.insert(start, escape);  // a quoted word opens the note
  } else {
    out += escape;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: bench_gen_orders OUT N SEED\n");
    return 2;
  }
  const uint64_t n = std::strtoull(argv[2], nullptr, 10);
  Rng rng{std::strtoull(argv[3], nullptr, 10)};
  uint64_t i = 0;
  return bench::WriteRecords(argv[1], n, [&](std::string& out) {
    out += "{\"order_id\":";
    Num(out, 100000000 + i);
    out += ",\"customer_id\":";
    Num(out, 1 + rng.Below(5000000));
    const uint64_t day = 1 + rng.Below(28);
    const uint64_t month = 1 + rng.Below(12);
    out += ",\"created_at\":\"2026-";
    Num(out, month, 2);
    out += '-';
    Num(out, day, 2);
    bool iso = rng.Below(2) == 0;
    out += iso ? 'T' : ' ';
    Num(out, rng.Below(24), 2);
    out += ':';
    Num(out, rng.Below(60), 2);
    out += ':';
    Num(out, rng.Below(60), 2);
    if (iso) {
      out += '.';
      Num(out, rng.Below(1000), 3);
      out += 'Z';
    }
    out += "\",\"order_date\":\"2026-";
    Num(out, month, 2);
    out += '-';
    Num(out, day, 2);
    out += "\",\"status\":\"";
    out += kStatus[rng.Below(5)];
    out += "\",\"currency\":\"";
    out += kCurrency[rng.Below(5)];
    out += "\",\"amount\":";
    Money(out, 100 + rng.Below(500000));
    out += ",\"express\":";
    out += rng.Below(3) == 0 ? "true" : "false";
    out += ",\"coupon\":";
    if (rng.Below(10) < 3) {
      out += "\"SAVE";
      Num(out, rng.Below(100000), 5);
      out += '"';
    } else {
      out += "null";
    }
    out += ",\"note\":\"";
    Note(out, rng);
    out += "\",\"shipping\":{\"method\":\"";
    out += kMethod[rng.Below(4)];
    out += "\",\"city\":\"";
    out += kCity[rng.Below(8)];
    out += "\",\"postcode\":\"";
    Num(out, rng.Below(100000), 5);
    out += "\",\"cost\":";
    Money(out, rng.Below(4000));
    out += "},\"items\":[";
    const uint64_t items = ItemCount(rng);
    for (uint64_t k = 0; k < items; ++k) {
      if (k > 0) out += ',';
      out += "{\"sku\":\"SKU-";
      Num(out, rng.Below(1000000), 6);
      out += "\",\"qty\":";
      Num(out, 1 + rng.Below(9));
      out += ",\"price\":";
      Money(out, 50 + rng.Below(50000));
      out += '}';
    }
    out += "]}\n";
    ++i;
  });
}
