// Writes a Config back as TOML: the effective configuration after file, environment and
// flags, for `hookd config show`-style output and for debugging a deployment. Secrets
// (API tokens, source secrets, forward secrets, reconcile feed tokens, a password in the
// database URL) are replaced by "<redacted>" unless asked otherwise. Keys come out sorted within
// each table. Thread-safety: pure function.
#pragma once

#include <string>

#include "config/config.hpp"

namespace hookd::config {

enum class Secrets { kRedact, kShow };

std::string dump_toml(const Config& config, Secrets secrets = Secrets::kRedact);

}  // namespace hookd::config
