// Splits a validated `server.listen` value ("127.0.0.1:8071", "[::1]:0", "localhost:8071")
// into the host and port the HttpServer binds. Pure.
// Thread-safety: free function over values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "hookd/result.hpp"

namespace hookd::app {

struct ListenAddress {
  std::string host;  // without IPv6 brackets
  std::uint16_t port = 0;
};

// kInvalidArgument when there is no ":port" or the port is not 0-65535.
Result<ListenAddress> parse_listen_address(std::string_view text);

// "http://127.0.0.1:8071", with IPv6 hosts in brackets.
std::string base_url(const ListenAddress& address);

}  // namespace hookd::app
