#include "sluice/table/time_travel.h"

#include <fmt/format.h>

#include <charconv>
#include <chrono>

namespace sluice::table {
namespace {

// A cursor over the text that reads fixed-width digit groups.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  bool Digits(int width, int* out) {
    if (pos_ + static_cast<size_t>(width) > text_.size()) return false;
    int v = 0;
    for (int i = 0; i < width; ++i) {
      char c = text_[pos_ + static_cast<size_t>(i)];
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    pos_ += static_cast<size_t>(width);
    *out = v;
    return true;
  }
  bool Take(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool AtEnd() const { return pos_ == text_.size(); }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

// The zone offset in minutes east of UTC: Z, +HH, +HH:MM or +HHMM.
bool ReadZone(Scanner& s, int* offset_minutes) {
  *offset_minutes = 0;
  if (s.AtEnd() || s.Take('Z') || s.Take('z')) return s.AtEnd();
  int sign = s.Take('+') ? 1 : s.Take('-') ? -1 : 0;
  int hours = 0;
  int minutes = 0;
  if (sign == 0 || !s.Digits(2, &hours)) return false;
  if (!s.AtEnd()) {
    s.Take(':');
    if (!s.Digits(2, &minutes)) return false;
  }
  if (hours > 18 || minutes > 59) return false;
  *offset_minutes = sign * (hours * 60 + minutes);
  return s.AtEnd();
}

}  // namespace

Result<int64_t> ParseTimestampMs(std::string_view text) {
  auto bad = [&] {
    return InvalidArgument(fmt::format(
        "'{}' is not a timestamp: give milliseconds since the epoch or an ISO-8601 date and time "
        "such as 2026-12-04T10:11:12Z",
        text));
  };
  if (text.empty()) return bad();
  // All digits (with an optional sign): milliseconds since the epoch.
  if (text.find_first_not_of("0123456789", text[0] == '-' ? 1 : 0) == std::string_view::npos) {
    int64_t ms = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
    if (ec != std::errc() || end != text.data() + text.size()) return bad();
    return ms;
  }
  Scanner s(text);
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, offset = 0;
  int64_t millis = 0;
  if (!s.Digits(4, &year) || !s.Take('-') || !s.Digits(2, &month) || !s.Take('-') ||
      !s.Digits(2, &day)) {
    return bad();
  }
  if (s.Take('T') || s.Take('t') || s.Take(' ')) {
    if (!s.Digits(2, &hour) || !s.Take(':') || !s.Digits(2, &minute)) return bad();
    if (s.Take(':')) {
      if (!s.Digits(2, &second)) return bad();
      if (s.Take('.') || s.Take(',')) {
        int digits = 0;
        int64_t scale = 100;
        for (int d = 0; s.Digits(1, &d); ++digits) {
          if (digits < 3) millis += d * scale;
          scale /= 10;
        }
        if (digits == 0 || digits > 9) return bad();
      }
    }
    if (!ReadZone(s, &offset)) return bad();
  } else if (!s.AtEnd()) {
    return bad();
  }
  using namespace std::chrono;
  year_month_day date{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
                      std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok() || hour > 23 || minute > 59 || second > 59) return bad();
  int64_t days = sys_days(date).time_since_epoch().count();
  int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - int64_t{offset} * 60;
  return seconds * 1000 + millis;
}

std::string FormatTimestampMs(int64_t ms, bool millis, char separator) {
  using namespace std::chrono;
  sys_time<milliseconds> t{milliseconds(ms)};
  sys_days day = floor<days>(t);
  year_month_day date{day};
  hh_mm_ss<milliseconds> time{t - day};
  std::string out =
      fmt::format("{:04d}-{:02d}-{:02d}{}{:02d}:{:02d}:{:02d}", int(date.year()),
                  unsigned(date.month()), unsigned(date.day()), separator, time.hours().count(),
                  time.minutes().count(), time.seconds().count());
  if (millis) out += fmt::format(".{:03d}", time.subseconds().count());
  out += 'Z';
  return out;
}

}  // namespace sluice::table
