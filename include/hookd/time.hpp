// hookd's time types: Unix time in milliseconds on the system clock (TimePoint) and spans of
// it (Duration). Every module uses these for wall time; a Clock (hookd/env.hpp) gives now.
// Thread-safety: plain value types.
#pragma once

#include <chrono>

namespace hookd {

using Duration = std::chrono::milliseconds;
using TimePoint = std::chrono::sys_time<std::chrono::milliseconds>;

}  // namespace hookd
