#include "config/environment.hpp"

#include <cctype>
#include <cstdlib>
#include <cstring>

extern char** environ;  // POSIX

namespace hookd::config {

std::optional<std::string> ProcessEnvironment::get(std::string_view name) const {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::vector<std::string> ProcessEnvironment::names() const {
  std::vector<std::string> out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const char* equals = std::strchr(*entry, '=');
    out.emplace_back(*entry, equals == nullptr ? std::strlen(*entry) : equals - *entry);
  }
  return out;
}

std::optional<std::string> MapEnvironment::get(std::string_view name) const {
  const auto it = vars_.find(name);
  if (it == vars_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> MapEnvironment::names() const {
  std::vector<std::string> out;
  for (const auto& [name, value] : vars_) out.push_back(name);
  return out;
}

std::string env_name_part(std::string_view key) {
  std::string out;
  for (char c : key) {
    out += (c == '.' || c == '-') ? '_'
                                  : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace hookd::config
