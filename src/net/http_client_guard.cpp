// AddressPolicy → AddressGuard (see http_client_guard.hpp).
#include "net/http_client_guard.hpp"

#include <netinet/in.h>

#include <optional>
#include <span>
#include <utility>

namespace hookd::net {
namespace {

std::optional<IpAddress> to_ip_address(const sockaddr* address, socklen_t length) {
  if (address->sa_family == AF_INET && length >= sizeof(sockaddr_in)) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(&v4->sin_addr);
    return IpAddress::v4(std::span<const std::uint8_t, 4>(bytes, 4));
  }
  if (address->sa_family == AF_INET6 && length >= sizeof(sockaddr_in6)) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(&v6->sin6_addr);
    return IpAddress::v6(std::span<const std::uint8_t, 16>(bytes, 16));
  }
  return std::nullopt;
}

}  // namespace

AddressGuard make_address_guard(AddressPolicy policy) {
  return [policy = std::move(policy)](const sockaddr* address, socklen_t length) {
    std::optional<IpAddress> ip = to_ip_address(address, length);
    if (!ip) return AddressVerdict{.allowed = false, .reason = "not an IP address"};
    AddressDecision decision = policy.check(*ip);
    return AddressVerdict{.allowed = decision.allowed, .reason = std::move(decision.reason)};
  };
}

}  // namespace hookd::net
