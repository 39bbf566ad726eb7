#include "cli/system_env.hpp"

#include <chrono>
#include <random>

#include "hookd/ids.hpp"

namespace hookd::cli {

std::int64_t unix_now_seconds() {
  using namespace std::chrono;
  return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
}

std::string new_message_id() {
  using namespace std::chrono;
  const std::int64_t unix_ms =
      duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  std::random_device device;  // a few bytes per CLI run; no need for a seeded engine
  IdRandomBytes random{};
  for (std::uint8_t& byte : random) byte = static_cast<std::uint8_t>(device());
  return make_id(id_prefix::kMessage, unix_ms, random);
}

}  // namespace hookd::cli
