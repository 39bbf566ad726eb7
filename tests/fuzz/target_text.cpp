// Fuzz targets for the small text parsers of the core: Retry-After / HTTP-date, status
// overrides, ids, base64/hex, IP addresses and CIDRs.
#include <chrono>

#include "core/address_policy.hpp"
#include "fuzz/fuzz_target.hpp"
#include "hookd/encoding.hpp"
#include "hookd/ids.hpp"
#include "hookd/retry.hpp"

namespace hookd::fuzz {

namespace {

const TimePoint kNow = TimePoint(std::chrono::milliseconds(1'700'000'000'000));

void run_retry_after(std::string_view input) {
  if (auto delay = parse_retry_after(input, kNow)) {
    expect(delay->count() >= 0, "Retry-After gave a negative delay");
  }
  (void)parse_http_date(input, kNow);
  StatusOverrides overrides;
  const auto eq = input.find('=');
  if (eq != std::string_view::npos) {
    if (overrides.add(input.substr(0, eq), input.substr(eq + 1))) {
      expect(!overrides.empty(), "an accepted override left the table empty");
    }
  }
  (void)parse_status_action(input);
}

void run_ids(std::string_view input) {
  auto parsed = parse_id(input);
  if (parsed) {
    expect(is_valid_id_prefix(parsed->prefix), "parse_id accepted an invalid prefix");
    // A valid id is canonical: rebuilding it from its parts gives the same text.
    const auto again = make_id(parsed->prefix, parsed->unix_ms, parsed->random);
    expect(again == input, "parse_id/make_id round trip differs");
  }
  if (input.size() >= kIdRandomBytes + 1) {
    IdRandomBytes random{};
    for (std::size_t i = 0; i < kIdRandomBytes; ++i)
      random[i] = static_cast<std::uint8_t>(input[i]);
    const auto ms = static_cast<std::int64_t>(static_cast<std::uint8_t>(input[kIdRandomBytes]))
                    << 32;
    const auto id = make_id("msg", ms, random);
    auto back = parse_id(id, "msg");
    expect(back.has_value(), "make_id produced an id parse_id refuses");
    expect(back->unix_ms == ms && back->random == random, "id round trip lost data");
  }
}

void run_encoding(std::string_view input) {
  if (auto bytes = base64_decode(input)) {
    auto again = base64_decode(base64_encode(*bytes));
    expect(again && *again == *bytes, "base64 re-encode round trip differs");
  }
  if (auto bytes = hex_decode(input)) {
    auto again = hex_decode(hex_encode(*bytes));
    expect(again && *again == *bytes, "hex re-encode round trip differs");
  }
  auto b64 = base64_decode(base64_encode(as_bytes(input)));
  expect(b64 && std::string(b64->begin(), b64->end()) == input, "base64 round trip differs");
  auto hex = hex_decode(hex_encode(as_bytes(input)));
  expect(hex && std::string(hex->begin(), hex->end()) == input, "hex round trip differs");
}

void run_address(std::string_view input) {
  if (auto ip = IpAddress::parse(input)) {
    auto again = IpAddress::parse(ip->to_string());
    expect(again && *again == *ip, "IpAddress to_string/parse round trip differs");
    (void)AddressPolicy{}.check(*ip);
  }
  if (auto cidr = Cidr::parse(input)) {
    expect(cidr->contains(cidr->network()), "a CIDR does not contain its own network");
    auto again = Cidr::parse(cidr->to_string());
    expect(again && again->to_string() == cidr->to_string(), "Cidr round trip differs");
  }
}

}  // namespace

FuzzTarget retry_after_target() {
  return {"retry_after",
          run_retry_after,
          {"120", "0", "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
           "Sun Nov  6 08:49:37 1994", "Wed, 21 Oct 2026 07:28:00 GMT", "4xx=retry",
           "404=dead-letter", "503=retry"},
          {"GMT", "Sun", "Nov", ", ", ":", "-94", "1994", "99999999999", "xx", "=", "disable"}};
}

FuzzTarget ids_target() {
  return {"ids",
          run_ids,
          {"msg_2bPQ9fAkvLxC1uSJ3nZtY0wHc7E", "app_1", "ep_", "0123456789abcdefghijklm"},
          {"msg_", "app_", "_", "zzzzzzzzzzzzzz", "00000000000000"}};
}

FuzzTarget encoding_target() {
  return {"encoding",
          run_encoding,
          {"aGVsbG8=", "aGVsbG8", "00ff", "QUJD", "", "=="},
          {"=", "==", "+/", "\n"}};
}

FuzzTarget address_target() {
  return {"address",
          run_address,
          {"127.0.0.1", "10.0.0.0/8", "::1", "[::1]", "fe80::1%eth0", "169.254.169.254",
           "2001:db8::/32", "::ffff:10.0.0.1", "0.0.0.0/0", "100.64.0.0/10"},
          {":", "::", ".", "/", "%", "[", "]", "ffff", "255", "/128", "/33"}};
}

}  // namespace hookd::fuzz
