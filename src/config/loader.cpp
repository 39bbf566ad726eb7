#include "config/loader.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "config/readers.hpp"
#include "config/validate.hpp"

namespace hookd::config {
namespace {

void apply_flags(const Overrides& flags, Config& config, Origins& origins) {
  if (flags.listen) {
    config.server.listen = *flags.listen;
    origins.set("server.listen", "flag --listen");
  }
  if (flags.database) {
    config.database.url = *flags.database;
    origins.set("database.url", "flag --database");
  }
  if (flags.token) {
    config.auth.tokens = {ApiToken{"cli", *flags.token}};
    origins.set("auth.tokens", "flag --token");
  }
}

// Keys a source inherits from [delivery] and [server] unless it sets them itself.
void inherit_source_defaults(Config& config, const Origins& origins) {
  for (std::size_t i = 0; i < config.sources.size(); ++i) {
    SourceConfig& source = config.sources[i];
    const std::string path = source_path(source, i) + ".";
    const RetryConfig& base = config.delivery.retry;
    RetryConfig& retry = source.retry;
    if (!origins.has(path + "max_body_bytes")) source.max_body_bytes = config.server.max_body_bytes;
    if (!origins.has(path + "retry.max_attempts")) retry.max_attempts = base.max_attempts;
    if (!origins.has(path + "retry.max_age")) retry.max_age = base.max_age;
    if (!origins.has(path + "retry.backoff_base")) retry.backoff_base = base.backoff_base;
    if (!origins.has(path + "retry.backoff_max")) retry.backoff_max = base.backoff_max;
    if (!origins.has(path + "retry.schedule")) retry.schedule = base.schedule;
  }
}

Result<Config> to_result(LoadOutcome outcome) {
  if (!outcome.problems.empty()) {
    return fail(ErrorCode::kInvalidArgument, format_problems(outcome.problems));
  }
  return std::move(outcome.config);
}

}  // namespace

LoadOutcome load_config_detailed(std::optional<std::string_view> toml_text, std::string_view label,
                                 const Environment& env, const Overrides& flags) {
  LoadOutcome out;
  Problems problems;
  if (toml_text) {
    try {
      const toml::table root = toml::parse(*toml_text, label);
      read_toml(root, label, out.config, out.origins, problems);
    } catch (const toml::parse_error& error) {
      const auto& where = error.source().begin;
      problems.add("(file)",
                   std::string(label) + " line " + std::to_string(where.line) + " column " +
                       std::to_string(where.column),
                   "TOML syntax error: " + std::string(error.description()));
      out.problems = problems.list();
      return out;
    }
  }
  read_env(env, out.config, out.origins, problems);
  apply_flags(flags, out.config, out.origins);
  inherit_source_defaults(out.config, out.origins);
  out.problems = problems.list();
  for (auto& problem : validate(out.config, out.origins))
    out.problems.push_back(std::move(problem));
  return out;
}

Result<Config> load_config_string(std::string_view toml_text, const Environment& env,
                                  const Overrides& flags, std::string_view label) {
  return to_result(load_config_detailed(toml_text, label, env, flags));
}

Result<Config> load_config_file(const std::optional<std::filesystem::path>& file,
                                const Environment& env, const Overrides& flags) {
  if (!file) return to_result(load_config_detailed(std::nullopt, "", env, flags));
  std::ifstream in(*file, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) {
    return fail(ErrorCode::kNotFound,
                "cannot read config file " + file->string() + ": " + std::strerror(errno));
  }
  return to_result(load_config_detailed(text.str(), file->string(), env, flags));
}

}  // namespace hookd::config
