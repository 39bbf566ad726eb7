// Personal-data masking in free text: e-mail addresses and digit runs (phones, resident IDs,
// card numbers). See text_masking.hpp for the rules.
#include <array>
#include <cctype>
#include <vector>

#include "ops/text_masking.hpp"

namespace hookd::ops {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_local_char(char c) {
  return is_alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
}
bool is_domain_char(char c) { return is_alnum(c) || c == '.' || c == '-'; }

int two_digits(std::string_view s, std::size_t at) {
  return (s[at] - '0') * 10 + (s[at + 1] - '0');
}

bool valid_month_day(int month, int day) {
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

// --- e-mail ---------------------------------------------------------------------------------

// Domain at [begin, end): labels of [A-Za-z0-9-], at least one dot, a top-level label of 2+
// letters. Returns the end of the valid domain (trailing dots/hyphens trimmed) or npos.
std::size_t domain_end(std::string_view s, std::size_t begin) {
  std::size_t end = begin;
  while (end < s.size() && is_domain_char(s[end])) ++end;
  while (end > begin && (s[end - 1] == '.' || s[end - 1] == '-')) --end;
  const std::string_view domain = s.substr(begin, end - begin);
  const std::size_t dot = domain.rfind('.');
  if (domain.empty() || !is_alnum(domain[0]) || dot == std::string_view::npos) {
    return std::string_view::npos;
  }
  const std::string_view tld = domain.substr(dot + 1);
  if (tld.size() < 2) return std::string_view::npos;
  for (char c : tld) {
    if (!std::isalpha(static_cast<unsigned char>(c))) return std::string_view::npos;
  }
  return end;
}

std::string mask_emails(std::string_view s) {
  if (s.find('@') == std::string_view::npos) return std::string(s);
  std::string out;
  out.reserve(s.size());
  std::size_t copied = 0;
  for (std::size_t at = s.find('@'); at != std::string_view::npos; at = s.find('@', at + 1)) {
    std::size_t local = at;
    while (local > copied && is_local_char(s[local - 1])) --local;
    while (local < at && s[local] == '.') ++local;
    const std::size_t end = domain_end(s, at + 1);
    if (local == at || end == std::string_view::npos) continue;
    out.append(s.substr(copied, local - copied));
    out += s[local];
    out += "***@";
    out.append(s.substr(at + 1, end - at - 1));
    copied = end;
    at = end - 1;
  }
  out.append(s.substr(copied));
  return out;
}

// --- digit runs -----------------------------------------------------------------------------

struct Group {
  std::size_t begin, end;
};

std::string digits_of(std::string_view s, const std::vector<Group>& groups) {
  std::string d;
  for (const auto& g : groups) d.append(s.substr(g.begin, g.end - g.begin));
  return d;
}

// Appends s[begin, end) with every digit except the first `head` and last `tail` replaced by
// '*'; separators are kept as they are.
void append_masked(std::string_view s, std::size_t begin, std::size_t end, std::size_t head,
                   std::size_t tail, std::string& out) {
  std::size_t total = 0;
  for (std::size_t i = begin; i < end; ++i) total += is_digit(s[i]) ? 1 : 0;
  std::size_t seen = 0;
  for (std::size_t i = begin; i < end; ++i) {
    if (!is_digit(s[i])) {
      out += s[i];
      continue;
    }
    const bool keep = seen < head || seen >= total - tail;
    out += keep ? s[i] : '*';
    ++seen;
  }
}

bool chinese_mobile(std::string_view d) {
  return d.size() == 11 && d[0] == '1' && d[1] >= '3' && d[1] <= '9';
}

bool card_like(std::string_view d) {
  return d.size() >= 13 && d.size() <= 19 && d[0] >= '3' && d[0] <= '6' && luhn_valid(d);
}

// How many leading and trailing digits to keep for a single digit run d, or {0,0} if d is
// not personal data.
std::pair<std::size_t, std::size_t> hint_for_run(std::string_view d) {
  if (chinese_mobile(d)) return {3, 4};
  if (d.size() == 13 && d.starts_with("86") && chinese_mobile(d.substr(2))) return {5, 4};
  if ((d.size() == 18 || d.size() == 15) && valid_resident_id(d)) return {4, 4};
  if (card_like(d)) return {4, 4};
  return {0, 0};
}

// Groups in digit-separated form: phones 3-4-4 and cards in groups of 4-6.
std::pair<std::size_t, std::size_t> hint_for_groups(std::string_view s,
                                                    const std::vector<Group>& groups) {
  const std::string d = digits_of(s, groups);
  auto len = [&](std::size_t i) { return groups[i].end - groups[i].begin; };
  if (groups.size() == 3 && len(0) == 3 && len(1) == 4 && len(2) == 4 && chinese_mobile(d)) {
    return {3, 4};
  }
  bool card_groups = groups.size() >= 3 && groups.size() <= 5 && len(0) == 4;
  for (std::size_t i = 0; i < groups.size(); ++i) card_groups = card_groups && len(i) <= 6;
  if (card_groups && card_like(d)) return {4, 4};
  return {0, 0};
}

// Digit groups starting at i, separated by one ' ' or '-', at most max_digits in total.
std::vector<Group> collect_groups(std::string_view s, std::size_t i, std::size_t max_digits) {
  std::vector<Group> groups;
  std::size_t total = 0;
  while (true) {
    std::size_t end = i;
    while (end < s.size() && is_digit(s[end])) ++end;
    if (!groups.empty() && total + (end - i) > max_digits) break;
    groups.push_back({i, end});
    total += end - i;
    if (end + 1 < s.size() && (s[end] == ' ' || s[end] == '-') && is_digit(s[end + 1])) {
      i = end + 1;
    } else {
      break;
    }
  }
  return groups;
}

// True when a token ending at `end` is not glued to a letter/digit or a decimal part
// (a dot between digits: amounts, versions, IP addresses).
bool clean_end(std::string_view s, std::size_t end) {
  if (end >= s.size()) return true;
  if (is_alnum(s[end])) return false;
  return !(s[end] == '.' && end + 1 < s.size() && is_digit(s[end + 1]));
}

bool clean_start(std::string_view s, std::size_t i) {
  if (i == 0) return true;
  if (is_alnum(s[i - 1])) return false;
  return !(s[i - 1] == '.' && i >= 2 && is_digit(s[i - 2]));
}

// Handles a token starting at i (a digit, or '+' followed by a digit) at a clean start.
// Appends the token, masked or not, and returns the position after what was consumed.
std::size_t mask_number_at(std::string_view s, std::size_t i, std::string& out) {
  if (s[i] == '+') {
    const auto groups = collect_groups(s, i + 1, 15);
    const std::size_t end = groups.back().end;
    const std::size_t n = digits_of(s, groups).size();
    if (n >= 8 && n <= 15 && clean_end(s, end)) {
      append_masked(s, i, end, 2, 4, out);
      return end;
    }
    out += '+';
    return i + 1;
  }
  const auto groups = collect_groups(s, i, 19);
  if (groups.size() > 1 && clean_end(s, groups.back().end)) {
    const auto [head, tail] = hint_for_groups(s, groups);
    if (head > 0) {
      append_masked(s, i, groups.back().end, head, tail, out);
      return groups.back().end;
    }
  }
  const std::size_t end = groups.front().end;
  const std::string_view run = s.substr(i, end - i);
  // An 18-char resident ID may end in X.
  if (run.size() == 17 && end < s.size() && (s[end] == 'X' || s[end] == 'x') &&
      clean_end(s, end + 1) && valid_resident_id(s.substr(i, 18))) {
    append_masked(s, i, end + 1, 4, 3, out);  // the X is the 4th kept character
    return end + 1;
  }
  const auto [head, tail] =
      clean_end(s, end) ? hint_for_run(run) : std::pair<std::size_t, std::size_t>{0, 0};
  if (head > 0) {
    append_masked(s, i, end, head, tail, out);
  } else {
    out.append(run);
  }
  return end;
}

std::string mask_numbers(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const bool starts_number =
        is_digit(s[i]) || (s[i] == '+' && i + 1 < s.size() && is_digit(s[i + 1]));
    if (starts_number && clean_start(s, i)) {
      i = mask_number_at(s, i, out);
    } else if (is_alnum(s[i])) {
      while (i < s.size() && is_alnum(s[i])) out += s[i++];  // a word: digits inside stay
    } else {
      out += s[i++];
    }
  }
  return out;
}

}  // namespace

bool luhn_valid(std::string_view digits) {
  int sum = 0;
  bool double_it = false;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (!is_digit(*it)) return false;
    int v = *it - '0';
    if (double_it) v = v * 2 > 9 ? v * 2 - 9 : v * 2;
    sum += v;
    double_it = !double_it;
  }
  return !digits.empty() && sum % 10 == 0;
}

bool valid_resident_id(std::string_view id) {
  const bool long_form = id.size() == 18;
  if (!long_form && id.size() != 15) return false;
  const std::size_t digit_count = long_form ? 17 : 15;
  for (std::size_t i = 0; i < digit_count; ++i) {
    if (!is_digit(id[i])) return false;
  }
  if (long_form && !is_digit(id[17]) && id[17] != 'X' && id[17] != 'x') return false;
  if (id[0] < '1' || id[0] > '8') return false;  // province codes 11…82
  if (!long_form) return valid_month_day(two_digits(id, 8), two_digits(id, 10));
  const int century = two_digits(id, 6);
  if (century < 18 || century > 20) return false;
  return valid_month_day(two_digits(id, 10), two_digits(id, 12));
}

std::string mask_personal_data(std::string_view text) {
  std::string emails_masked = mask_emails(text);
  for (char c : emails_masked) {
    if (is_digit(c)) return mask_numbers(emails_masked);
  }
  return emails_masked;
}

}  // namespace hookd::ops
