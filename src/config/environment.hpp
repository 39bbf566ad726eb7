// Where configuration overrides from environment variables are read. Injected, so tests pass
// a fake map and the loader never touches the real process environment by itself.
// Naming: HOOKD_<SECTION>_<KEY>, upper-case, dots and dashes become underscores
// (server.listen -> HOOKD_SERVER_LISTEN); sources: HOOKD_SOURCE_<NAME>_<KEY>
// (source "stripe-live", forward.url -> HOOKD_SOURCE_STRIPE_LIVE_FORWARD_URL); proxies:
// HOOKD_PROXY_<NAME>_<KEY> (proxy "esign", timeout -> HOOKD_PROXY_ESIGN_TIMEOUT).
// Thread-safety: ProcessEnvironment reads `environ`, so do not call setenv() concurrently;
// MapEnvironment is immutable after construction.
#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hookd::config {

class Environment {
 public:
  virtual ~Environment() = default;
  virtual std::optional<std::string> get(std::string_view name) const = 0;
  // Every variable name; used to report unknown HOOKD_<SECTION>_... variables (typos).
  virtual std::vector<std::string> names() const = 0;
};

// The real process environment.
class ProcessEnvironment final : public Environment {
 public:
  std::optional<std::string> get(std::string_view name) const override;
  std::vector<std::string> names() const override;
};

// A fixed map, for tests and for embedding hookd.
class MapEnvironment final : public Environment {
 public:
  MapEnvironment() = default;
  explicit MapEnvironment(std::map<std::string, std::string, std::less<>> vars)
      : vars_(std::move(vars)) {}
  MapEnvironment(std::initializer_list<std::pair<const std::string, std::string>> vars)
      : vars_(vars) {}
  std::optional<std::string> get(std::string_view name) const override;
  std::vector<std::string> names() const override;

 private:
  std::map<std::string, std::string, std::less<>> vars_;
};

inline constexpr std::string_view kEnvPrefix = "HOOKD_";

// "forward.url" -> "FORWARD_URL", "stripe-live" -> "STRIPE_LIVE".
std::string env_name_part(std::string_view key);

}  // namespace hookd::config
