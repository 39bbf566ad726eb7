#include "app/api_token.hpp"

#include <random>
#include <string_view>

namespace hookd::app {

std::string generate_api_token() {
  static constexpr std::string_view kAlphabet =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  std::random_device device;  // getrandom() on Linux: fine for a one-off secret
  std::uniform_int_distribution<std::size_t> pick(0, kAlphabet.size() - 1);
  std::string token = "hookd_";
  for (int i = 0; i < 43; ++i) token += kAlphabet[pick(device)];
  return token;
}

std::optional<std::string> ensure_api_token(config::Config& config) {
  if (!config.auth.tokens.empty()) return std::nullopt;
  std::string token = generate_api_token();
  config.auth.tokens.push_back(config::ApiToken{kGeneratedTokenName, token});
  return token;
}

}  // namespace hookd::app
