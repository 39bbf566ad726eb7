#include "app/api_token.hpp"

#include <array>
#include <cstdint>
#include <string_view>

namespace hookd::app {

std::string generate_api_token(Random& random) {
  static constexpr std::string_view kAlphabet =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  // Bytes of 248 and above are dropped so that every character is equally likely
  // (248 = 4 * 62).
  constexpr std::size_t kLength = 43;
  constexpr std::uint8_t kLimit = 248;
  std::string token = "hookd_";
  std::array<std::uint8_t, 64> bytes{};
  while (token.size() < 6 + kLength) {
    random.fill(bytes);
    for (std::uint8_t b : bytes) {
      if (b < kLimit && token.size() < 6 + kLength) token += kAlphabet[b % kAlphabet.size()];
    }
  }
  return token;
}

std::optional<std::string> ensure_api_token(config::Config& config, Random& random) {
  if (!config.auth.tokens.empty()) return std::nullopt;
  std::string token = generate_api_token(random);
  config.auth.tokens.push_back(config::ApiToken{kGeneratedTokenName, token});
  return token;
}

}  // namespace hookd::app
