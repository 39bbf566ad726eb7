#include "cli/system_env.hpp"

#include <chrono>

#include "env/system_env.hpp"
#include "hookd/ids.hpp"

namespace hookd::cli {

std::int64_t unix_now_seconds() {
  env::SystemClock clock;
  return std::chrono::duration_cast<std::chrono::seconds>(clock.now().time_since_epoch()).count();
}

std::string new_message_id() {
  env::SystemClock clock;
  env::SystemRandom random;
  IdRandomBytes bytes{};
  random.fill(bytes);
  return make_id(id_prefix::kMessage, clock.now_ms(), bytes);
}

}  // namespace hookd::cli
