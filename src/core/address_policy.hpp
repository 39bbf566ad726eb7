// SSRF address policy: classifies IP addresses (loopback, private, link-local, CGNAT,
// multicast, documentation, benchmarking, reserved, cloud metadata, ...) and decides whether
// an outbound delivery may connect to one. Checked on every resolved address before
// connecting, so DNS tricks (a public name resolving to 127.0.0.1, decimal/hex IPv4 forms)
// are caught on the bytes, not the URL text.
//
// IPv6 forms that carry an IPv4 address are judged by it: IPv4-mapped ::ffff:a.b.c.d and
// IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16 and Teredo 2001::/32 (server
// and client). Only publicly routable (global) addresses pass, unless a configured CIDR
// allow-list covers the address. Cloud metadata addresses are only let through by an
// allow-list entry naming that single host (/32 or /128), never by a wider subnet.
// Pure: parsing uses inet_pton/inet_ntop only; no sockets, no DNS.
// Thread-safety: all types are immutable values; share an AddressPolicy freely.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hookd/result.hpp"

namespace hookd {

class IpAddress {
 public:
  enum class Family { kV4, kV6 };

  static IpAddress v4(std::span<const std::uint8_t, 4> bytes);   // like in_addr, network order
  static IpAddress v6(std::span<const std::uint8_t, 16> bytes);  // like in6_addr
  // "192.0.2.1", "2001:db8::1", "[::1]", "fe80::1%eth0" (the zone is dropped). IPv4 must be
  // a strict dotted quad (no octal, hex or short forms).
  static Result<IpAddress> parse(std::string_view text);

  Family family() const { return family_; }
  bool is_v4() const { return family_ == Family::kV4; }
  // 4 bytes for IPv4, 16 for IPv6.
  std::span<const std::uint8_t> bytes() const;
  std::string to_string() const;

  friend bool operator==(const IpAddress&, const IpAddress&) = default;

 private:
  IpAddress() = default;
  Family family_ = Family::kV4;
  std::array<std::uint8_t, 16> bytes_{};
};

enum class AddressClass {
  kGlobal,         // publicly routable
  kUnspecified,    // 0.0.0.0, ::
  kLoopback,       // 127/8, ::1
  kPrivate,        // RFC 1918, ULA fc00::/7, site-local fec0::/10, NAT64 local 64:ff9b:1::/48
  kLinkLocal,      // 169.254/16, fe80::/10
  kSharedCgnat,    // 100.64/10
  kMulticast,      // 224/4, ff00::/8
  kBroadcast,      // 255.255.255.255
  kDocumentation,  // 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32, 3fff::/20
  kBenchmarking,   // 198.18/15, 2001:2::/48
  kReserved,       // 0/8, 240/4, 192.0.0/24, 192.88.99/24, 100::/64, 2001::/23, non-2000::/3
  kCloudMetadata,  // 169.254.169.254, 169.254.170.2, 100.100.100.200, 168.63.129.16,
                   // fd00:ec2::254
};

// "global", "unspecified", "loopback", "private", "link-local", "cgnat", "multicast",
// "broadcast", "documentation", "benchmarking", "reserved", "cloud-metadata".
std::string_view to_string(AddressClass cls);

AddressClass classify(const IpAddress& address);

// A network in CIDR notation: "10.0.0.0/8", "fd00::/8"; a bare address means one host.
class Cidr {
 public:
  // kInvalidArgument on a bad address or prefix length, or when host bits are set
  // ("10.0.0.1/8"), which is usually a typo.
  static Result<Cidr> parse(std::string_view text);

  bool contains(const IpAddress& address) const;
  const IpAddress& network() const { return network_; }
  int prefix_length() const { return prefix_length_; }
  bool is_single_host() const;
  std::string to_string() const;

 private:
  Cidr(IpAddress network, int prefix_length) : network_(network), prefix_length_(prefix_length) {}
  IpAddress network_;
  int prefix_length_;
};

struct AddressDecision {
  bool allowed = false;
  AddressClass address_class = AddressClass::kReserved;
  std::string reason;  // e.g. "10.1.2.3 is private", "127.0.0.1 is loopback, allow-listed"
};

class AddressPolicy {
 public:
  explicit AddressPolicy(std::vector<Cidr> allow_list = {}) : allow_list_(std::move(allow_list)) {}
  // From config text; kInvalidArgument naming the first bad entry.
  static Result<AddressPolicy> from_strings(std::span<const std::string> allow_list);

  AddressDecision check(const IpAddress& address) const;
  const std::vector<Cidr>& allow_list() const { return allow_list_; }

 private:
  bool allow_listed(const IpAddress& address, bool single_host_only) const;
  std::vector<Cidr> allow_list_;
};

}  // namespace hookd
