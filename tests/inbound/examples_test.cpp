// examples/sources/*.toml stay valid: each loads with the config loader and builds its
// inbound sources through app's translation (verifier, forward signer, retry policy,
// business key).
#include <gtest/gtest.h>

#include <filesystem>

#include "app/module_options.hpp"
#include "config/loader.hpp"
#include "inbound/source.hpp"

namespace hookd::inbound {
namespace {

std::filesystem::path source_dir() {
#ifdef HOOKD_SOURCE_DIR
  return HOOKD_SOURCE_DIR;
#else
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
#endif
}

TEST(InboundExamples, EveryExampleSourceConfigLoadsAndBuilds) {
  const auto dir = source_dir() / "examples/sources";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".toml") continue;
    ++files;
    auto config = config::load_config_file(entry.path(), config::MapEnvironment{});
    ASSERT_TRUE(config.has_value()) << entry.path() << ": " << config.error().message;
    ASSERT_EQ(config->sources.size(), 1u) << entry.path();
    auto sources = build_sources(app::source_settings(config->sources));
    EXPECT_TRUE(sources.has_value()) << entry.path() << ": " << sources.error().message;
  }
  EXPECT_EQ(files, 5);
}

}  // namespace
}  // namespace hookd::inbound
