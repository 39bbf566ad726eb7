#include "app/listen_address.hpp"

#include <charconv>

namespace hookd::app {

Result<ListenAddress> parse_listen_address(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    return fail(ErrorCode::kInvalidArgument, "listen address has no port: " + std::string(text));
  }
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  unsigned port = 0;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || end != port_text.data() + port_text.size() || port_text.empty() ||
      port > 65535) {
    return fail(ErrorCode::kInvalidArgument, "listen port must be 0-65535: " + std::string(text));
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) {
    return fail(ErrorCode::kInvalidArgument, "listen address has no host: " + std::string(text));
  }
  return ListenAddress{std::string(host), static_cast<std::uint16_t>(port)};
}

std::string base_url(const ListenAddress& address) {
  const bool v6 = address.host.find(':') != std::string::npos;
  const std::string host = v6 ? "[" + address.host + "]" : address.host;
  return "http://" + host + ":" + std::to_string(address.port);
}

}  // namespace hookd::app
