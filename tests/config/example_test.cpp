// examples/hookd.toml and docs/configuration.md stay complete: the example parses and is
// valid, shows every key (of every section, [[source]] and [[proxy]]), and the docs name
// every key's environment variable or, for sources and proxies, the key itself.
#include <gtest/gtest.h>
#include <toml++/toml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/dump.hpp"
#include "config/fields.hpp"
#include "config/loader.hpp"

namespace hookd::config {
namespace {

std::filesystem::path source_dir() {
#ifdef HOOKD_SOURCE_DIR
  return HOOKD_SOURCE_DIR;
#else
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
#endif
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Key {
  std::string path;  // "server.listen", "forward.url" (for sources: relative to [[source]])
  std::string env;   // "HOOKD_SERVER_LISTEN", "HOOKD_SOURCE_<NAME>_FORWARD_URL"
};

// Walks the key lists of config/fields.hpp and records every key.
struct KeyLister {
  std::string path_prefix;
  std::string env_prefix;
  std::vector<Key>* out;

  template <class T>
  void field(std::string_view key, T&) {
    out->push_back({path_prefix + std::string(key), env_prefix + env_name_part(key)});
  }
  void bytes(std::string_view key, std::uint64_t&) { field(key, key); }
  template <class F>
  void table(std::string_view key, F&& visit) {
    KeyLister child{path_prefix + std::string(key) + ".", env_prefix + env_name_part(key) + "_",
                    out};
    visit(child);
  }
  template <class T, class F>
  void optional_table(std::string_view key, std::optional<T>&, F&& visit) {
    T value;
    table(key, [&](KeyLister& child) { visit(child, value); });
  }
};

std::vector<Key> section_keys() {
  std::vector<Key> keys;
  Config config;
  KeyLister root{"", "HOOKD_", &keys};
  visit_sections(root, config);
  return keys;
}

std::vector<Key> source_keys() {
  std::vector<Key> keys;
  SourceConfig source;
  KeyLister root{"", "HOOKD_SOURCE_<NAME>_", &keys};
  visit_source(root, source);
  return keys;
}

std::vector<Key> proxy_keys() {
  std::vector<Key> keys;
  ProxyConfig proxy;
  KeyLister root{"", "HOOKD_PROXY_<NAME>_", &keys};
  visit_proxy(root, proxy);
  return keys;
}

TEST(ConfigExample, ParsesAndIsValid) {
  const auto config = load_config_file(source_dir() / "examples/hookd.toml", MapEnvironment{});
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->server.listen, Config{}.server.listen);
  EXPECT_EQ(config->sources.size(), 7u);
  EXPECT_EQ(config->proxies.size(), 1u);
}

TEST(ConfigExample, DumpRoundTrips) {
  const auto config = load_config_file(source_dir() / "examples/hookd.toml", MapEnvironment{});
  ASSERT_TRUE(config.has_value()) << config.error().message;
  const std::string text = dump_toml(*config, Secrets::kShow);
  const auto again = load_config_string(text, MapEnvironment{}, {}, "dump");
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_EQ(dump_toml(*again, Secrets::kShow), text);
}

TEST(ConfigExample, ShowsEveryKey) {
  const toml::table example = toml::parse_file((source_dir() / "examples/hookd.toml").string());
  for (const auto& key : section_keys()) {
    EXPECT_TRUE(example.at_path(key.path)) << "examples/hookd.toml lacks " << key.path;
  }
  const auto* sources = example.get_as<toml::array>("source");
  ASSERT_NE(sources, nullptr);
  for (const auto& key : source_keys()) {
    bool found = false;
    for (const auto& source : *sources) found = found || source.as_table()->at_path(key.path);
    EXPECT_TRUE(found) << "no [[source]] in examples/hookd.toml shows " << key.path;
  }
  const auto* proxies = example.get_as<toml::array>("proxy");
  ASSERT_NE(proxies, nullptr);
  for (const auto& key : proxy_keys()) {
    bool found = false;
    for (const auto& proxy : *proxies) found = found || proxy.as_table()->at_path(key.path);
    EXPECT_TRUE(found) << "no [[proxy]] in examples/hookd.toml shows " << key.path;
  }
}

TEST(ConfigExample, DocsNameEveryKeyAndVariable) {
  const std::string docs = read_text(source_dir() / "docs/configuration.md");
  ASSERT_FALSE(docs.empty());
  for (const auto& key : section_keys()) {
    EXPECT_NE(docs.find(key.env), std::string::npos) << "docs/configuration.md lacks " << key.env;
  }
  for (const auto& key : source_keys()) {
    EXPECT_NE(docs.find("`" + key.path + "`"), std::string::npos)
        << "docs/configuration.md lacks `" << key.path << "`";
  }
  // The proxies' keys in their own section (several are also keys of [delivery]).
  const auto section = docs.find("## `[[proxy]]`");
  ASSERT_NE(section, std::string::npos) << "docs/configuration.md has no [[proxy]] section";
  const std::string proxy_docs = docs.substr(section, docs.find("\n## ", section + 1) - section);
  for (const auto& key : proxy_keys()) {
    EXPECT_NE(proxy_docs.find("| `" + key.path + "` |"), std::string::npos)
        << "the [[proxy]] section of docs/configuration.md lacks `" << key.path << "`";
  }
  EXPECT_NE(proxy_docs.find("HOOKD_PROXY_<NAME>_"), std::string::npos);
}

}  // namespace
}  // namespace hookd::config

namespace hookd::config {
namespace {

TEST(ConfigExample, DocsExampleIsValidWithItsEnvironment) {
  const std::string docs = read_text(source_dir() / "docs/configuration.md");
  const std::string start = "## Example\n\n```toml\n";
  const auto begin = docs.find(start);
  ASSERT_NE(begin, std::string::npos);
  const auto end = docs.find("```", begin + start.size());
  const std::string toml = docs.substr(begin + start.size(), end - begin - start.size());
  const MapEnvironment env{
      {"HOOKD_AUTH_TOKENS", "ops:ops-token-123"},
      {"HOOKD_SOURCE_ESIGN_SECRETS", "esign-secret"},
      {"HOOKD_SOURCE_ESIGN_FORWARD_SECRET", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}};
  const auto config = load_config_string(toml, env, {}, "docs example");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->sources.at(0).secrets, std::vector<std::string>{"esign-secret"});
}

}  // namespace
}  // namespace hookd::config
