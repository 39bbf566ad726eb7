// Applies HOOKD_* environment variables to Config through the key lists in config/fields.hpp.
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>

#include "config/fields.hpp"
#include "config/readers.hpp"
#include "config/values.hpp"

namespace hookd::config {
namespace {

// Variable name -> dotted key, for every variable hookd understands in this run.
using Registry = std::map<std::string, std::string, std::less<>>;

class EnvReader {
 public:
  EnvReader(const Environment& env, std::string var_prefix, std::string path_prefix,
            Registry& registry, Origins& origins, Problems& problems)
      : env_(env),
        var_prefix_(std::move(var_prefix)),
        path_prefix_(std::move(path_prefix)),
        registry_(registry),
        origins_(origins),
        problems_(problems) {}

  template <class T>
  void field(std::string_view key, T& out) {
    read(key, [&](std::string_view text) { return from_text(text, out); });
  }

  void bytes(std::string_view key, std::uint64_t& out) {
    read(key, [&](std::string_view text) { return size_from_text(text, out); });
  }

  template <class F>
  void table(std::string_view key, F&& visit) {
    EnvReader child(env_, var_prefix_ + env_name_part(key) + "_",
                    path_prefix_ + std::string(key) + ".", registry_, origins_, problems_);
    visit(child);
    applied_ += child.applied_;
  }

  // A sub-table that may be absent: its variables are always known, and setting one creates
  // it (with its defaults for the other keys), so the environment can turn it on.
  template <class T, class F>
  void optional_table(std::string_view key, std::optional<T>& out, F&& visit) {
    T value = out.value_or(T{});
    const int before = applied_;
    table(key, [&](EnvReader& child) { visit(child, value); });
    if (out || applied_ > before) out = std::move(value);
  }

 private:
  template <class F>
  void read(std::string_view key, F&& parse) {
    const std::string var = var_prefix_ + env_name_part(key);
    const std::string path = path_prefix_ + std::string(key);
    const auto [it, inserted] = registry_.emplace(var, path);
    // Two source (or proxy) names with the same variable part ("a-b", "a_b"): validation
    // reports the clash once; the variable is applied to the first one only.
    if (!inserted && it->second != path) return;
    const auto text = env_.get(var);
    if (!text) return;
    if (auto ok = parse(*text); !ok) {
      problems_.add(path, "env " + var, ok.error());
    } else {
      origins_.set(path, "env " + var);
      ++applied_;
    }
  }

  const Environment& env_;
  std::string var_prefix_;
  std::string path_prefix_;
  Registry& registry_;
  Origins& origins_;
  Problems& problems_;
  int applied_ = 0;  // variables applied through this reader and its children
};

constexpr std::array<std::string_view, 9> kSectionPrefixes{
    "HOOKD_SERVER_",  "HOOKD_DATABASE_", "HOOKD_AUTH_",   "HOOKD_DELIVERY_", "HOOKD_SSRF_",
    "HOOKD_LOGGING_", "HOOKD_METRICS_",  "HOOKD_SOURCE_", "HOOKD_PROXY_",
};

bool names_a_section(std::string_view var) {
  return std::ranges::any_of(kSectionPrefixes,
                             [&](std::string_view p) { return var.starts_with(p); });
}

// A HOOKD_<SECTION>_... variable that matches no key is almost always a typo: report it
// rather than silently running with the file's value. Other HOOKD_* names are left alone.
void report_unknown_variables(const Environment& env, const Registry& registry,
                              Problems& problems) {
  std::vector<std::string> known;
  for (const auto& [var, path] : registry) known.push_back(var);
  for (const auto& var : env.names()) {
    if (!names_a_section(var) || registry.contains(var)) continue;
    std::string message = "unknown configuration variable";
    if (const auto guess = closest_match(var, known); !guess.empty()) {
      message += "; did you mean " + guess + "?";
    } else if (var.starts_with("HOOKD_SOURCE_")) {
      message += "; HOOKD_SOURCE_<NAME>_<KEY> can only override a [[source]] defined in the file";
    } else if (var.starts_with("HOOKD_PROXY_")) {
      message += "; HOOKD_PROXY_<NAME>_<KEY> can only override a [[proxy]] defined in the file";
    }
    problems.add("(environment)", "env " + var, message);
  }
}

// HOOKD_<SECTION>_<NAME>_<KEY> for every named item of an array-of-tables section.
template <class T, class Path, class Visit>
void read_named_items(const Environment& env, std::string_view section, std::vector<T>& items,
                      Path path, Visit visit, Registry& registry, Origins& origins,
                      Problems& problems) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    T& item = items[i];
    if (item.name.empty()) continue;
    EnvReader reader(
        env, std::string(kEnvPrefix) + std::string(section) + "_" + env_name_part(item.name) + "_",
        path(item, i) + ".", registry, origins, problems);
    visit(reader, item);
  }
}

}  // namespace

void read_env(const Environment& env, Config& config, Origins& origins, Problems& problems) {
  Registry registry;
  EnvReader root(env, std::string(kEnvPrefix), "", registry, origins, problems);
  visit_sections(root, config);
  read_named_items(
      env, "SOURCE", config.sources, source_path,
      [](EnvReader& r, SourceConfig& s) { visit_source(r, s); }, registry, origins, problems);
  read_named_items(
      env, "PROXY", config.proxies, proxy_path,
      [](EnvReader& r, ProxyConfig& p) { visit_proxy(r, p); }, registry, origins, problems);
  report_unknown_variables(env, registry, problems);
}

}  // namespace hookd::config
