#include "hookd/ids.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

namespace hookd {
namespace {

IdRandomBytes random_bytes(std::mt19937& rng) {
  IdRandomBytes bytes{};
  for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
  return bytes;
}

TEST(IdsTest, HasPrefixAndFixedLength) {
  const IdRandomBytes zeros{};
  const std::string id = make_id(id_prefix::kMessage, 1'700'000'000'000, zeros);
  EXPECT_EQ(id.substr(0, 4), "msg_");
  EXPECT_EQ(id.size(), 4 + kIdBodyChars);
  EXPECT_EQ(make_id("atmpt", 0, zeros), "atmpt_" + std::string(kIdBodyChars, '0'));
}

TEST(IdsTest, OrderFollowsCreationTimeAcrossManyMilliseconds) {
  std::mt19937 rng(7);
  std::vector<std::int64_t> times;
  // Dense neighbours, digit-boundary crossings and spread-out values up to the maximum.
  for (std::int64_t ms = 0; ms < 2000; ++ms) times.push_back(ms);
  for (std::int64_t p = 62; p < kIdMaxUnixMs / 62; p *= 62) {
    times.insert(times.end(), {p - 1, p, p + 1});
  }
  std::uniform_int_distribution<std::int64_t> any_ms(0, kIdMaxUnixMs);
  for (int i = 0; i < 5000; ++i) times.push_back(any_ms(rng));
  times.push_back(kIdMaxUnixMs);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());

  std::string previous;
  for (auto ms : times) {
    const std::string id = make_id("msg", ms, random_bytes(rng));
    EXPECT_LT(previous, id) << "ms=" << ms;
    previous = id;
  }
}

TEST(IdsTest, SameMillisecondDiffersByRandomPart) {
  std::mt19937 rng(11);
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i) ids.insert(make_id("ep", 1'700'000'000'123, random_bytes(rng)));
  EXPECT_EQ(ids.size(), 1000u);
  // Ordering within a millisecond follows the random bytes (big-endian).
  IdRandomBytes low{}, high{};
  high.back() = 1;
  EXPECT_LT(make_id("ep", 5, low), make_id("ep", 5, high));
  EXPECT_LT(make_id("ep", 5, IdRandomBytes{0xff, 0xff}), make_id("ep", 6, IdRandomBytes{}));
}

TEST(IdsTest, ParseRoundTrip) {
  std::mt19937 rng(3);
  for (int i = 0; i < 500; ++i) {
    const std::int64_t ms = std::uniform_int_distribution<std::int64_t>(0, kIdMaxUnixMs)(rng);
    const auto bytes = random_bytes(rng);
    const std::string id = make_id("inb", ms, bytes);
    const auto parsed = parse_id(id, "inb");
    ASSERT_TRUE(parsed.has_value()) << id;
    EXPECT_EQ(parsed->prefix, "inb");
    EXPECT_EQ(parsed->unix_ms, ms);
    EXPECT_EQ(parsed->random, bytes);
  }
  IdRandomBytes all_ones;
  all_ones.fill(0xff);
  const auto max = parse_id(make_id("app", kIdMaxUnixMs, all_ones));
  ASSERT_TRUE(max.has_value());
  EXPECT_EQ(max->unix_ms, kIdMaxUnixMs);
  EXPECT_EQ(max->random, all_ones);
}

TEST(IdsTest, RejectsMalformedIds) {
  const std::string good = make_id("msg", 1'700'000'000'000, IdRandomBytes{1, 2, 3});
  ASSERT_TRUE(parse_id(good).has_value());
  const std::string body = good.substr(4);
  const std::vector<std::string> bad = {
      "",
      "msg",
      "msg_",
      body,                                     // no prefix
      "_" + body,                               // empty prefix
      "Msg_" + body,                            // uppercase prefix
      "1sg_" + body,                            // prefix starts with a digit
      "ms-g_" + body,                           // bad prefix character
      "abcdefghijklmnopq_" + body,              // prefix too long
      good + "0",                               // too long
      good.substr(0, good.size() - 1),          // too short
      "msg_" + body.substr(0, 26) + "-",        // not base62
      "msg_" + body.substr(0, 26) + "_",        // underscore in body
      "msg_" + std::string(kIdBodyChars, 'z'),  // time part overflows 48 bits
      "msg_" + std::string(kIdTimeChars, '0') +
          std::string(kIdRandomChars, 'z'),  // random overflows
      "msg_" + body.substr(0, 13) + " " + body.substr(14),
  };
  for (const auto& id : bad) {
    const auto parsed = parse_id(id);
    EXPECT_FALSE(parsed.has_value()) << "accepted: \"" << id << "\"";
    if (!parsed) {
      EXPECT_EQ(parsed.error().code, ErrorCode::kInvalidArgument);
    }
  }
}

TEST(IdsTest, ChecksExpectedPrefix) {
  const std::string id = make_id("ep", 42, IdRandomBytes{});
  EXPECT_TRUE(parse_id(id, "ep").has_value());
  EXPECT_FALSE(parse_id(id, "msg").has_value());
  EXPECT_FALSE(parse_id(id, "e").has_value());
}

}  // namespace
}  // namespace hookd
