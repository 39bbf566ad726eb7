// Built-in masking of free text, used for log fields, JSON string values and header values
// before they reach logs or the console (A31). Hand-written linear scanners, no regex.
//
// Secrets are always fully redacted (the non-secret prefix stays as a hint):
//   whsec_… whsk_… sk_live_… sk_test_… rk_live_… rk_test_…  → whsec_[REDACTED]
//   Bearer …, Basic …                                        → Bearer [REDACTED]
//   key=value / "key": "value" where key looks secret (is_secret_name) → key=[REDACTED]
//   https://user:password@host                               → https://user:[REDACTED]@host
// Personal data keeps a short hint:
//   e-mail                          alice@example.com        → a***@example.com
//   Chinese mobile (opt. 86 prefix) 13812345678, 138 1234 5678 → 138****5678, 138 **** 5678
//   international +CC number        +44 20 7946 0958         → +44 ** **** 0958
//   resident ID (18, last may be X; 15 legacy), valid birth date → 1101**********1234
//   bank-card-like 13-19 digits, first digit 3-6, Luhn-valid → 6222********1234
// Digit runs glued to letters, or part of a decimal/dotted number, are left alone, which
// keeps ids, versions, timestamps and amounts readable.
// Thread-safety: pure functions.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace hookd::ops {

inline constexpr std::string_view kRedacted = "[REDACTED]";

// A letter or digit to the scanners (the C locale's isalnum).
inline bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// True for header names or JSON keys whose values are secrets: contains authorization,
// signature, secret, token, password, passwd, cookie, credential, api-key/api_key/apikey,
// private-key/private_key (case-insensitive).
bool is_secret_name(std::string_view name);

// Secrets only (what must never be logged, even when personal-data masking is off).
std::string redact_secrets(std::string_view text);
// Personal data only: e-mail addresses, phone numbers, ID numbers, card numbers.
std::string mask_personal_data(std::string_view text);
// Both: redact_secrets then mask_personal_data.
std::string mask_text(std::string_view text);

// Checks exposed for tests.
bool valid_resident_id(std::string_view id);  // 18 (checksum not required) or 15 chars
bool luhn_valid(std::string_view digits);

}  // namespace hookd::ops
