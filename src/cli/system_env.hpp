// The CLI's reads of the outside world that the pure library takes as parameters: the wall
// clock and fresh message ids, from the daemon's env::SystemClock and env::SystemRandom.
// Thread-safety: safe from any thread.
#pragma once

#include <cstdint>
#include <string>

namespace hookd::cli {

// Current Unix time in seconds (system clock).
std::int64_t unix_now_seconds();

// A fresh, time-sortable "msg_..." id.
std::string new_message_id();

}  // namespace hookd::cli
