// Internal to hookd_config: the readers that lay the file and the environment over a
// Config (which starts at its defaults), recording each value's origin and every problem.
// Thread-safety: no shared state; call from one thread.
#pragma once

#include <toml++/toml.h>

#include <string_view>

#include "config/config.hpp"
#include "config/environment.hpp"
#include "config/problems.hpp"

namespace hookd::config {

// `file_label` names the file in origins ("hookd.toml line 12").
void read_toml(const toml::table& root, std::string_view file_label, Config& config,
               Origins& origins, Problems& problems);

// Applies every HOOKD_* variable that names a key (sources and proxies: only those in
// `config`), and reports HOOKD_<SECTION>_* variables that name no key.
void read_env(const Environment& env, Config& config, Origins& origins, Problems& problems);

// The dotted path prefix of a source: "source[stripe]", or "source[#2]" without a name.
std::string source_path(const SourceConfig& source, std::size_t index);
// The same for a proxy: "proxy[esign]", or "proxy[#0]" without a name.
std::string proxy_path(const ProxyConfig& proxy, std::size_t index);

}  // namespace hookd::config
