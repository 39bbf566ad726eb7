// The HTTP/1.1 wire format as far as TestReceiver needs it: reading one request from a
// blocking socket (Content-Length or chunked body) and writing a response.
// Thread-safety: stateless functions; each socket is used by one thread.
#pragma once

#include <optional>
#include <string>

#include "support/test_receiver.hpp"

namespace hookd::testing::wire {

// Reads the next request from `fd`; `buffer` keeps bytes read past it (keep-alive).
// nullopt on EOF, error or a malformed request.
std::optional<ReceivedRequest> read_request(int fd, std::string& buffer);

// Writes all bytes; false when the peer is gone.
bool write_all(int fd, std::string_view bytes);

std::string format_response(const ReceiverBehavior& behavior);

bool wants_close(const ReceivedRequest& request);

}  // namespace hookd::testing::wire
