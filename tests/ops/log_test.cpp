#include "ops/log.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace hookd::ops {
namespace {

using nlohmann::json;

// 2026-11-29T20:04:00.123Z
std::chrono::system_clock::time_point fixed_time() {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(1795982640123));
}

struct Fixture {
  explicit Fixture(LogOptions options = {}, std::shared_ptr<const Masker> masker = nullptr)
      : sink(std::make_shared<CaptureSink>()),
        logger(options, sink, std::move(masker), [] { return fixed_time(); }) {}
  std::shared_ptr<CaptureSink> sink;
  Logger logger;
};

TEST(LogTest, JsonLineHasTsLevelMsgAndFieldsInOrder) {
  Fixture f;
  f.logger.info("delivery.failed", {{"endpoint", "ep_2Xb9"}, {"status", 503}, {"retry", true}});
  const auto lines = f.sink->lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], R"({"ts":"2026-11-29T20:04:00.123Z","level":"info","msg":"delivery.failed",)"
                      R"("endpoint":"ep_2Xb9","status":503,"retry":true})");
  const json parsed = json::parse(lines[0]);
  EXPECT_EQ(parsed["status"], 503);
}

// A31: every field is masked before it is written.
TEST(LogTest, FieldsAreMasked) {
  auto masker = Masker::create({.json_pointers = {"/customer/name"}});
  ASSERT_TRUE(masker.has_value());
  Fixture f({}, std::make_shared<const Masker>(*masker));
  f.logger.warn("inbound.rejected for bob@example.com",
                {{"secret", "whsec_c2VjcmV0"},
                 {"authorization", "Bearer abc"},
                 {"note", "call 13812345678"},
                 {"payload", json{{"customer", {{"name", "Alice"}, {"phone", "13912345678"}}}}},
                 {"header", "webhook-signature: v1,c2ln"}});
  const auto lines = f.sink->lines();
  ASSERT_EQ(lines.size(), 1u);
  const json line = json::parse(lines[0]);
  EXPECT_EQ(line["msg"], "inbound.rejected for b***@example.com");
  EXPECT_EQ(line["secret"], "[REDACTED]");
  EXPECT_EQ(line["authorization"], "[REDACTED]");
  EXPECT_EQ(line["note"], "call 138****5678");
  EXPECT_EQ(line["payload"]["customer"]["name"], "***");
  EXPECT_EQ(line["payload"]["customer"]["phone"], "139****5678");
  EXPECT_EQ(line["header"], "webhook-signature: [REDACTED]");
  for (const char* leaked : {"c2VjcmV0", "abc", "Alice", "13812345678", "c2ln"}) {
    EXPECT_EQ(lines[0].find(leaked), std::string::npos) << leaked;
  }
}

TEST(LogTest, LevelFilter) {
  Fixture f({.level = LogLevel::kWarn});
  f.logger.debug("a");
  f.logger.info("b");
  f.logger.warn("c");
  f.logger.error("d");
  EXPECT_FALSE(f.logger.enabled(LogLevel::kInfo));
  f.logger.set_level(LogLevel::kDebug);
  f.logger.debug("e");
  f.logger.trace("f");
  f.logger.set_level(LogLevel::kOff);
  f.logger.error("g");
  const auto lines = f.sink->lines();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(json::parse(lines[0])["msg"], "c");
  EXPECT_EQ(json::parse(lines[1])["level"], "error");
  EXPECT_EQ(json::parse(lines[2])["msg"], "e");
}

TEST(LogTest, TextFormat) {
  Fixture f({.format = LogFormat::kText});
  f.logger.error("delivery.failed", {{"endpoint", "ep_1"}, {"status", 503}, {"why", "timed out"}});
  EXPECT_EQ(
      f.sink->lines().at(0),
      R"(2026-11-29T20:04:00.123Z ERROR delivery.failed endpoint=ep_1 status=503 why="timed out")");
}

TEST(LogTest, ReservedKeysRenamedAndBadUtf8Survives) {
  Fixture f;
  f.logger.info("x", {{"msg", "shadow"}, {"bytes", std::string("\xff\xfe ok")}});
  const json line = json::parse(f.sink->lines().at(0));
  EXPECT_EQ(line["msg"], "x");
  EXPECT_EQ(line["_msg"], "shadow");
  EXPECT_TRUE(line["bytes"].is_string());
}

TEST(LogTest, ParsesLevelsAndFormats) {
  EXPECT_EQ(parse_log_level("WARNING").value(), LogLevel::kWarn);
  EXPECT_EQ(parse_log_level("debug").value(), LogLevel::kDebug);
  EXPECT_FALSE(parse_log_level("loud").has_value());
  EXPECT_EQ(parse_log_format("Text").value(), LogFormat::kText);
  EXPECT_FALSE(parse_log_format("xml").has_value());
}

TEST(LogTest, ConcurrentLoggingKeepsLinesWhole) {
  Fixture f;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) f.logger.info("tick", {{"thread", t}, {"i", i}});
    });
  }
  for (auto& t : threads) t.join();
  const auto lines = f.sink->lines();
  ASSERT_EQ(lines.size(), 2000u);
  for (const auto& line : lines) EXPECT_TRUE(json::accept(line)) << line;
}

}  // namespace
}  // namespace hookd::ops
