// SSRF address policy: IP parsing, classification and the CIDR allow-list.
#include "core/address_policy.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <optional>

namespace hookd {
namespace {

struct V4Range {
  std::uint32_t network;
  int prefix_length;
  AddressClass cls;
};

constexpr std::uint32_t ip4(int a, int b, int c, int d) {
  return (static_cast<std::uint32_t>(a) << 24) | (static_cast<std::uint32_t>(b) << 16) |
         (static_cast<std::uint32_t>(c) << 8) | static_cast<std::uint32_t>(d);
}

// Most specific first: the first match wins.
constexpr V4Range kV4Ranges[] = {
    {ip4(0, 0, 0, 0), 32, AddressClass::kUnspecified},
    {ip4(169, 254, 169, 254), 32, AddressClass::kCloudMetadata},  // AWS, GCP, Azure, ...
    {ip4(169, 254, 170, 2), 32, AddressClass::kCloudMetadata},    // AWS ECS task metadata
    {ip4(100, 100, 100, 200), 32, AddressClass::kCloudMetadata},  // Alibaba Cloud
    {ip4(168, 63, 129, 16), 32, AddressClass::kCloudMetadata},    // Azure wire server
    {ip4(255, 255, 255, 255), 32, AddressClass::kBroadcast},
    {ip4(0, 0, 0, 0), 8, AddressClass::kReserved},  // "this network"
    {ip4(10, 0, 0, 0), 8, AddressClass::kPrivate},
    {ip4(100, 64, 0, 0), 10, AddressClass::kSharedCgnat},
    {ip4(127, 0, 0, 0), 8, AddressClass::kLoopback},
    {ip4(169, 254, 0, 0), 16, AddressClass::kLinkLocal},
    {ip4(172, 16, 0, 0), 12, AddressClass::kPrivate},
    {ip4(192, 0, 0, 0), 24, AddressClass::kReserved},  // IETF protocol assignments
    {ip4(192, 0, 2, 0), 24, AddressClass::kDocumentation},
    {ip4(192, 88, 99, 0), 24, AddressClass::kReserved},  // deprecated 6to4 relay anycast
    {ip4(192, 168, 0, 0), 16, AddressClass::kPrivate},
    {ip4(198, 18, 0, 0), 15, AddressClass::kBenchmarking},
    {ip4(198, 51, 100, 0), 24, AddressClass::kDocumentation},
    {ip4(203, 0, 113, 0), 24, AddressClass::kDocumentation},
    {ip4(224, 0, 0, 0), 4, AddressClass::kMulticast},
    {ip4(240, 0, 0, 0), 4, AddressClass::kReserved},
};

bool prefix_matches(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b,
                    int prefix_length) {
  const int whole = prefix_length / 8;
  if (!std::equal(a.begin(), a.begin() + whole, b.begin())) return false;
  const int rest = prefix_length % 8;
  if (rest == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xff << (8 - rest));
  return (a[whole] & mask) == (b[whole] & mask);
}

AddressClass classify_v4(std::span<const std::uint8_t> b) {
  const std::uint32_t value = ip4(b[0], b[1], b[2], b[3]);
  for (const auto& range : kV4Ranges) {
    const std::uint32_t mask =
        range.prefix_length == 0 ? 0 : ~std::uint32_t{0} << (32 - range.prefix_length);
    if ((value & mask) == range.network) return range.cls;
  }
  return AddressClass::kGlobal;
}

using V6Bytes = std::array<std::uint8_t, 16>;

// An IPv6 prefix written as its leading bytes (the rest zero) and a length.
struct V6Prefix {
  V6Bytes bytes;
  int prefix_length;
  bool contains(std::span<const std::uint8_t> address) const {
    return prefix_matches(bytes, address, prefix_length);
  }
};

constexpr V6Prefix kMapped{{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, 96};
constexpr V6Prefix kCompatible{{}, 96};
constexpr V6Prefix kNat64{{0x00, 0x64, 0xff, 0x9b}, 96};
constexpr V6Prefix kNat64Local{{0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}, 48};
constexpr V6Prefix kSixToFour{{0x20, 0x02}, 16};
constexpr V6Prefix kTeredo{{0x20, 0x01, 0x00, 0x00}, 32};
constexpr V6Prefix kBenchmarking6{{0x20, 0x01, 0x00, 0x02, 0x00, 0x00}, 48};
constexpr V6Prefix kIetfProtocol6{{0x20, 0x01}, 23};
constexpr V6Prefix kDocumentation6{{0x20, 0x01, 0x0d, 0xb8}, 32};
constexpr V6Prefix kDocumentation6New{{0x3f, 0xff}, 20};
constexpr V6Prefix kDiscardOnly{{0x01, 0x00}, 64};
constexpr V6Prefix kMetadata6{{0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54},
                              128};
constexpr V6Prefix kUniqueLocal{{0xfc}, 7};
constexpr V6Prefix kLinkLocal6{{0xfe, 0x80}, 10};
constexpr V6Prefix kSiteLocal{{0xfe, 0xc0}, 10};
constexpr V6Prefix kMulticast6{{0xff}, 8};
constexpr V6Prefix kGlobalUnicast{{0x20}, 3};

// The IPv4 address a 6to4 or Teredo address leads to is judged; a public one keeps the
// IPv6 address global.
AddressClass via_embedded(std::span<const std::uint8_t> v4) { return classify_v4(v4); }

AddressClass classify_v6(std::span<const std::uint8_t> b) {
  const V6Bytes zero{};
  if (std::equal(b.begin(), b.end(), zero.begin())) return AddressClass::kUnspecified;
  V6Bytes loopback{};
  loopback[15] = 1;
  if (std::equal(b.begin(), b.end(), loopback.begin())) return AddressClass::kLoopback;
  if (kMapped.contains(b) || kNat64.contains(b)) return via_embedded(b.subspan(12, 4));
  if (kCompatible.contains(b)) {
    // Deprecated; never a legitimate public destination.
    const AddressClass embedded = classify_v4(b.subspan(12, 4));
    return embedded == AddressClass::kGlobal ? AddressClass::kReserved : embedded;
  }
  if (kNat64Local.contains(b)) return AddressClass::kPrivate;
  if (kSixToFour.contains(b)) return via_embedded(b.subspan(2, 4));
  if (kTeredo.contains(b)) {
    const AddressClass server = classify_v4(b.subspan(4, 4));
    std::array<std::uint8_t, 4> client{};  // stored inverted (RFC 4380)
    for (int i = 0; i < 4; ++i) client[i] = static_cast<std::uint8_t>(~b[12 + i]);
    if (server != AddressClass::kGlobal) return server;
    return classify_v4(client);
  }
  if (kBenchmarking6.contains(b)) return AddressClass::kBenchmarking;
  if (kDocumentation6.contains(b) || kDocumentation6New.contains(b)) {
    return AddressClass::kDocumentation;
  }
  if (kIetfProtocol6.contains(b) || kDiscardOnly.contains(b)) return AddressClass::kReserved;
  if (kMetadata6.contains(b)) return AddressClass::kCloudMetadata;
  if (kUniqueLocal.contains(b) || kSiteLocal.contains(b)) return AddressClass::kPrivate;
  if (kLinkLocal6.contains(b)) return AddressClass::kLinkLocal;
  if (kMulticast6.contains(b)) return AddressClass::kMulticast;
  if (kGlobalUnicast.contains(b)) return AddressClass::kGlobal;
  return AddressClass::kReserved;  // unallocated
}

Result<int> parse_prefix_length(std::string_view text, int max) {
  int value = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || value < 0 ||
      value > max) {
    return fail(ErrorCode::kInvalidArgument, "prefix length must be 0-" + std::to_string(max) +
                                                 ", got \"" + std::string(text) + "\"");
  }
  return value;
}

}  // namespace

IpAddress IpAddress::v4(std::span<const std::uint8_t, 4> bytes) {
  IpAddress address;
  address.family_ = Family::kV4;
  std::copy(bytes.begin(), bytes.end(), address.bytes_.begin());
  return address;
}

IpAddress IpAddress::v6(std::span<const std::uint8_t, 16> bytes) {
  IpAddress address;
  address.family_ = Family::kV6;
  std::copy(bytes.begin(), bytes.end(), address.bytes_.begin());
  return address;
}

Result<IpAddress> IpAddress::parse(std::string_view text) {
  std::string_view host = text;
  const bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  if (bracketed) host = host.substr(1, host.size() - 2);
  if (const auto zone = host.find('%'); zone != std::string_view::npos && zone > 0) {
    host = host.substr(0, zone);
  }
  const std::string c_text(host);  // inet_pton needs a terminated string
  std::array<std::uint8_t, 16> buffer{};
  if (!bracketed && inet_pton(AF_INET, c_text.c_str(), buffer.data()) == 1) {
    return v4(std::span<const std::uint8_t, 4>(buffer.data(), 4));
  }
  if (inet_pton(AF_INET6, c_text.c_str(), buffer.data()) == 1) return v6(buffer);
  return fail(ErrorCode::kInvalidArgument, "not an IP address: \"" + std::string(text) + "\"");
}

std::span<const std::uint8_t> IpAddress::bytes() const {
  return std::span<const std::uint8_t>(bytes_).first(is_v4() ? 4 : 16);
}

std::string IpAddress::to_string() const {
  char buffer[INET6_ADDRSTRLEN] = {};
  inet_ntop(is_v4() ? AF_INET : AF_INET6, bytes_.data(), buffer, sizeof buffer);
  return buffer;
}

std::string_view to_string(AddressClass cls) {
  switch (cls) {
    case AddressClass::kGlobal:
      return "global";
    case AddressClass::kUnspecified:
      return "unspecified";
    case AddressClass::kLoopback:
      return "loopback";
    case AddressClass::kPrivate:
      return "private";
    case AddressClass::kLinkLocal:
      return "link-local";
    case AddressClass::kSharedCgnat:
      return "cgnat";
    case AddressClass::kMulticast:
      return "multicast";
    case AddressClass::kBroadcast:
      return "broadcast";
    case AddressClass::kDocumentation:
      return "documentation";
    case AddressClass::kBenchmarking:
      return "benchmarking";
    case AddressClass::kReserved:
      return "reserved";
    case AddressClass::kCloudMetadata:
      return "cloud-metadata";
  }
  return "unknown";
}

AddressClass classify(const IpAddress& address) {
  return address.is_v4() ? classify_v4(address.bytes()) : classify_v6(address.bytes());
}

Result<Cidr> Cidr::parse(std::string_view text) {
  const auto slash = text.find('/');
  auto address = IpAddress::parse(text.substr(0, slash));
  if (!address) return std::unexpected(address.error());
  const int max = address->is_v4() ? 32 : 128;
  int length = max;
  if (slash != std::string_view::npos) {
    const auto parsed = parse_prefix_length(text.substr(slash + 1), max);
    if (!parsed) return std::unexpected(parsed.error());
    length = *parsed;
  }
  const auto bytes = address->bytes();
  for (int bit = length; bit < max; ++bit) {
    if (bytes[bit / 8] & (0x80 >> (bit % 8))) {
      std::string message(text);  // built stepwise: GCC 12 -Wrestrict misfires on a + chain
      message += " has host bits set after the prefix";
      return fail(ErrorCode::kInvalidArgument, std::move(message));
    }
  }
  return Cidr(*address, length);
}

bool Cidr::contains(const IpAddress& address) const {
  return address.family() == network_.family() &&
         prefix_matches(network_.bytes(), address.bytes(), prefix_length_);
}

bool Cidr::is_single_host() const { return prefix_length_ == (network_.is_v4() ? 32 : 128); }

std::string Cidr::to_string() const {
  return network_.to_string() + "/" + std::to_string(prefix_length_);
}

Result<AddressPolicy> AddressPolicy::from_strings(std::span<const std::string> allow_list) {
  std::vector<Cidr> cidrs;
  for (const auto& entry : allow_list) {
    auto cidr = Cidr::parse(entry);
    if (!cidr) return fail(ErrorCode::kInvalidArgument, "allow-list: " + cidr.error().message);
    cidrs.push_back(*cidr);
  }
  return AddressPolicy(std::move(cidrs));
}

bool AddressPolicy::allow_listed(const IpAddress& address, bool single_host_only) const {
  // ::ffff:a.b.c.d is the IPv4 host a.b.c.d to the kernel; IPv4 entries cover it too.
  std::optional<IpAddress> mapped;
  if (!address.is_v4() && kMapped.contains(address.bytes())) {
    mapped = IpAddress::v4(address.bytes().subspan<12, 4>());
  }
  return std::any_of(allow_list_.begin(), allow_list_.end(), [&](const Cidr& cidr) {
    if (single_host_only && !cidr.is_single_host()) return false;
    return cidr.contains(address) || (mapped && cidr.contains(*mapped));
  });
}

AddressDecision AddressPolicy::check(const IpAddress& address) const {
  const AddressClass cls = classify(address);
  std::string reason = address.to_string() + " is " + std::string(hookd::to_string(cls));
  if (cls == AddressClass::kGlobal) return {true, cls, std::move(reason)};
  if (allow_listed(address, cls == AddressClass::kCloudMetadata)) {
    return {true, cls, reason + ", allow-listed"};
  }
  return {false, cls, std::move(reason)};
}

}  // namespace hookd
