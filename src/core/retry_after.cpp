// Retry-After (RFC 9110 §10.2.3) and HTTP-date (RFC 9110 §5.6.7) parsing.
#include <algorithm>
#include <array>
#include <cstdint>

#include "hookd/retry.hpp"

namespace hookd {
namespace {

using namespace std::chrono;

constexpr std::array<std::string_view, 7> kShortDays = {"Mon", "Tue", "Wed", "Thu",
                                                        "Fri", "Sat", "Sun"};
constexpr std::array<std::string_view, 7> kLongDays = {
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
// Beyond this many seconds a delay is "forever"; the policy clamps it anyway.
constexpr std::int64_t kMaxDelaySeconds = 1'000'000'000;

// A forward-only reader over the header value; every step fails softly.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : rest_(text) {}

  bool literal(std::string_view expected) {
    if (!rest_.starts_with(expected)) return false;
    rest_.remove_prefix(expected.size());
    return true;
  }
  // Exactly `count` digits.
  std::optional<int> digits(std::size_t count) {
    if (rest_.size() < count) return std::nullopt;
    int value = 0;
    for (std::size_t i = 0; i < count; ++i) {
      if (rest_[i] < '0' || rest_[i] > '9') return std::nullopt;
      value = value * 10 + (rest_[i] - '0');
    }
    rest_.remove_prefix(count);
    return value;
  }
  // One of `names`; returns its index.
  template <std::size_t N>
  std::optional<int> one_of(const std::array<std::string_view, N>& names) {
    for (std::size_t i = 0; i < N; ++i) {
      if (literal(names[i])) return static_cast<int>(i);
    }
    return std::nullopt;
  }
  bool at_end() const { return rest_.empty(); }

 private:
  std::string_view rest_;
};

struct Fields {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
};

// time-of-day = hour ":" minute ":" second
bool read_time(Cursor& in, Fields& f) {
  const auto h = in.digits(2);
  if (!h || !in.literal(":")) return false;
  const auto m = in.digits(2);
  if (!m || !in.literal(":")) return false;
  const auto s = in.digits(2);
  if (!s) return false;
  f.hour = *h, f.minute = *m, f.second = *s;
  return true;
}

std::optional<int> read_month(Cursor& in) {
  const auto index = in.one_of(kMonths);
  if (!index) return std::nullopt;
  return *index + 1;
}

// IMF-fixdate after "Sun, ": "06 Nov 1994 08:49:37 GMT"
std::optional<Fields> read_imf_fixdate(Cursor& in) {
  Fields f;
  const auto d = in.digits(2);
  if (!d || !in.literal(" ")) return std::nullopt;
  const auto m = read_month(in);
  if (!m || !in.literal(" ")) return std::nullopt;
  const auto y = in.digits(4);
  if (!y || !in.literal(" ") || !read_time(in, f) || !in.literal(" GMT")) return std::nullopt;
  f.day = *d, f.month = *m, f.year = *y;
  return f;
}

// rfc850-date after "Sunday, ": "06-Nov-94 08:49:37 GMT"
std::optional<Fields> read_rfc850(Cursor& in, int now_year) {
  Fields f;
  const auto d = in.digits(2);
  if (!d || !in.literal("-")) return std::nullopt;
  const auto m = read_month(in);
  if (!m || !in.literal("-")) return std::nullopt;
  const auto yy = in.digits(2);
  if (!yy || !in.literal(" ") || !read_time(in, f) || !in.literal(" GMT")) return std::nullopt;
  // RFC 9110: more than 50 years in the future means the most recent past such year.
  int year = now_year - now_year % 100 + *yy;
  if (year > now_year + 50) year -= 100;
  f.day = *d, f.month = *m, f.year = year;
  return f;
}

// asctime-date after "Sun ": "Nov  6 08:49:37 1994" (day is 2DIGIT or SP DIGIT)
std::optional<Fields> read_asctime(Cursor& in) {
  Fields f;
  const auto m = read_month(in);
  if (!m || !in.literal(" ")) return std::nullopt;
  std::optional<int> d = in.literal(" ") ? in.digits(1) : in.digits(2);
  if (!d || !in.literal(" ") || !read_time(in, f) || !in.literal(" ")) return std::nullopt;
  const auto y = in.digits(4);
  if (!y) return std::nullopt;
  f.day = *d, f.month = *m, f.year = *y;
  return f;
}

std::optional<TimePoint> to_time_point(const Fields& f) {
  const year_month_day date{year{f.year}, month{static_cast<unsigned>(f.month)},
                            day{static_cast<unsigned>(f.day)}};
  // second 60 is a leap second; it lands on the next minute's :00.
  if (!date.ok() || f.hour > 23 || f.minute > 59 || f.second > 60) return std::nullopt;
  const auto tp = sys_days{date} + hours{f.hour} + minutes{f.minute} + seconds{f.second};
  return time_point_cast<milliseconds>(tp);
}

std::string_view trim_ows(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace

std::optional<TimePoint> parse_http_date(std::string_view text, TimePoint now) {
  text = trim_ows(text);
  Cursor in(text);
  std::optional<Fields> fields;
  const auto comma = text.find(',');
  if (comma == 3) {
    if (!in.one_of(kShortDays) || !in.literal(", ")) return std::nullopt;
    fields = read_imf_fixdate(in);
  } else if (comma != std::string_view::npos) {
    if (!in.one_of(kLongDays) || !in.literal(", ")) return std::nullopt;
    const int now_year = static_cast<int>(year_month_day{floor<days>(now)}.year());
    fields = read_rfc850(in, now_year);
  } else {
    if (!in.one_of(kShortDays) || !in.literal(" ")) return std::nullopt;
    fields = read_asctime(in);
  }
  if (!fields || !in.at_end()) return std::nullopt;
  return to_time_point(*fields);
}

std::optional<Duration> parse_retry_after(std::string_view value, TimePoint now) {
  value = trim_ows(value);
  if (value.empty()) return std::nullopt;
  if (value.front() >= '0' && value.front() <= '9') {
    std::int64_t delay_seconds = 0;
    for (char c : value) {
      if (c < '0' || c > '9') return std::nullopt;
      delay_seconds = std::min(delay_seconds * 10 + (c - '0'), kMaxDelaySeconds);
    }
    return duration_cast<Duration>(seconds{delay_seconds});
  }
  const auto when = parse_http_date(value, now);
  if (!when) return std::nullopt;
  return *when > now ? *when - now : Duration{0};
}

}  // namespace hookd
