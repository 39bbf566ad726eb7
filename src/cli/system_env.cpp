#include "cli/system_env.hpp"

#include <chrono>
#include <random>
#include <string_view>

namespace hookd::cli {

std::int64_t unix_now_seconds() {
  using namespace std::chrono;
  return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
}

// Placeholder until hookd/ids.hpp (make_id) lands: "msg_" + 27 base62 characters.
std::string new_message_id() {
  static constexpr std::string_view kAlphabet =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  std::random_device device;
  std::uniform_int_distribution<std::size_t> pick(0, kAlphabet.size() - 1);
  std::string id = "msg_";
  for (int i = 0; i < 27; ++i) id.push_back(kAlphabet[pick(device)]);
  return id;
}

}  // namespace hookd::cli
