// member_text: finds a top-level member's exact text in a JSON object without a DOM round
// trip (A38, the message payload). Checked on hand-picked cases, against the parser on
// thousands of random documents written with random whitespace and escapes, and on
// truncated and random bytes (never reads outside the text).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "api/json_body.hpp"
#include "support/payload_cases.hpp"

namespace hookd::api {
namespace {

TEST(MemberText, A38_FindsTheExactTextOfEachPayloadCase) {
  for (const auto& c : hookd::testing::a38_payload_cases()) {
    SCOPED_TRACE(c.name);
    const auto body = hookd::testing::publish_body(c.text);
    ASSERT_TRUE(nlohmann::json::accept(body)) << body;
    EXPECT_EQ(member_text(body, "payload"), c.text);
    EXPECT_EQ(member_text(body, "eventType"), "\"order.paid\"");
    EXPECT_EQ(member_text(body, "tags"), "[\"t\"]");
    EXPECT_EQ(member_text(body, "missing"), std::nullopt);
  }
}

TEST(MemberText, ScalarsNamesAndNesting) {
  const std::string text =
      R"( { "n" : -1.5e+3 , "t":true,"f" :false, "z":null, "s":"a,}\"b", "o":{"n":2},)"
      R"("a\u0062":[{"n":3}], "esc\"q":0 } )";
  EXPECT_EQ(member_text(text, "n"), "-1.5e+3");  // the top-level one, not o.n or [0].n
  EXPECT_EQ(member_text(text, "t"), "true");
  EXPECT_EQ(member_text(text, "f"), "false");
  EXPECT_EQ(member_text(text, "z"), "null");
  EXPECT_EQ(member_text(text, "s"), R"("a,}\"b")");
  EXPECT_EQ(member_text(text, "o"), R"({"n":2})");
  EXPECT_EQ(member_text(text, "ab"), R"([{"n":3}])");
  EXPECT_EQ(member_text(text, "esc\"q"), "0");
  EXPECT_EQ(member_text(text, "a\\u0062"), std::nullopt);  // names match decoded
  EXPECT_EQ(member_text("{}", "a"), std::nullopt);
  EXPECT_EQ(member_text("[{\"a\":1}]", "a"), std::nullopt);             // not an object
  EXPECT_EQ(member_text(R"({"a":1,"a":{"b":2}})", "a"), R"({"b":2})");  // last, as the parser
}

// Writes `value` as JSON text with random whitespace and, in strings, random escapes.
class RandomWriter {
 public:
  explicit RandomWriter(std::uint32_t seed) : rng_(seed) {}

  std::string write(const nlohmann::json& value) {
    std::string out;
    put(value, out);
    return space() + out + space();
  }

 private:
  std::string space() {
    static constexpr char kSpace[] = {' ', '\t', '\n', '\r'};
    std::string s;
    for (int n = pick(4) == 0 ? pick(4) : 0; n > 0; --n) s += kSpace[pick(4)];
    return s;
  }
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  void put_string(const std::string& s, std::string& out) {
    out += '"';
    for (const char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (u < 0x20 || (u < 0x80 && pick(8) == 0)) {
        char buf[8];
        std::snprintf(buf, sizeof buf, pick(2) ? "\\u%04x" : "\\u%04X", u);
        out += buf;
      } else if (c == '/' && pick(2) == 0) {
        out += "\\/";
      } else {
        out += c;
      }
    }
    out += '"';
  }

  void put(const nlohmann::json& v, std::string& out) {
    if (v.is_object()) {
      out += '{' + space();
      bool first = true;
      for (const auto& [k, item] : v.items()) {
        if (!first) out += ',' + space();
        first = false;
        put_string(k, out);
        out += space() + ':' + space();
        put(item, out);
        out += space();
      }
      out += '}';
    } else if (v.is_array()) {
      out += '[' + space();
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (i > 0) out += ',' + space();
        put(v[i], out);
        out += space();
      }
      out += ']';
    } else if (v.is_string()) {
      put_string(v.get<std::string>(), out);
    } else {
      out += v.dump();
    }
  }

  std::mt19937 rng_;
};

nlohmann::json random_value(std::mt19937& rng, int depth) {
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  static const char* kStrings[] = {"",        "a",   "}", "]",    ",",       "\"",       "\\",
                                   "x\"}\\]", "é漢", "/", "\n\t", "payload", "{\"k\":1}"};
  const int kind = depth > 3 ? pick(5) : pick(7);
  switch (kind) {
    case 0:
      return nullptr;
    case 1:
      return pick(2) == 1;
    case 2:
      return pick(2000) - 1000;
    case 3:
      return std::ldexp(pick(1000) - 500, pick(40) - 20);
    case 4:
      return std::string(kStrings[pick(13)]) + kStrings[pick(13)];
    case 5: {
      auto a = nlohmann::json::array();
      for (int n = pick(4); n > 0; --n) a.push_back(random_value(rng, depth + 1));
      return a;
    }
    default: {
      auto o = nlohmann::json::object();
      for (int n = pick(4); n > 0; --n) o[kStrings[pick(13)]] = random_value(rng, depth + 1);
      return o;
    }
  }
}

TEST(MemberText, A38_AgreesWithTheParserOnRandomDocuments) {
  std::mt19937 rng(12);
  for (std::uint32_t round = 0; round < 3000; ++round) {
    auto doc = nlohmann::json::object();
    for (int n = 1 + static_cast<int>(rng() % 6); n > 0; --n) {
      static const char* kNames[] = {"k0", "k1", "k\"2", "k 3", "payload", "é", "", "k7"};
      doc[kNames[rng() % 8]] = random_value(rng, 0);
    }
    const std::string text = RandomWriter(round).write(doc);
    SCOPED_TRACE(text);
    ASSERT_EQ(nlohmann::json::parse(text), doc);
    for (const auto& [name, value] : doc.items()) {
      const auto found = member_text(text, name);
      ASSERT_TRUE(found.has_value()) << name;
      EXPECT_EQ(nlohmann::json::parse(*found), value) << name << " -> " << *found;
      // A span of the text itself, with nothing left out around it.
      EXPECT_GE(found->data(), text.data());
      EXPECT_LE(found->data() + found->size(), text.data() + text.size());
      EXPECT_FALSE(found->empty());
      EXPECT_EQ(std::string_view(" \t\r\n").find(found->back()), std::string_view::npos);
    }
    EXPECT_EQ(member_text(text, "absent"), std::nullopt);
  }
}

TEST(MemberText, StaysInsideTruncatedAndRandomText) {
  std::mt19937 rng(7);
  const std::string whole = hookd::testing::publish_body(R"({"a":[1,{"b":"}\"]"}],"c":2})");
  auto inside = [](std::string_view text, std::optional<std::string_view> found) {
    return !found || (found->data() >= text.data() &&
                      found->data() + found->size() <= text.data() + text.size());
  };
  for (std::size_t n = 0; n <= whole.size(); ++n) {
    const std::string cut = whole.substr(0, n);  // own buffer: ASan sees any overread
    EXPECT_TRUE(inside(cut, member_text(cut, "payload"))) << cut;
  }
  static constexpr char kAlphabet[] = "{}[]\":,\\ ae1";
  for (int round = 0; round < 20000; ++round) {
    std::string junk(rng() % 24, ' ');
    for (auto& c : junk) c = kAlphabet[rng() % (sizeof kAlphabet - 1)];
    EXPECT_TRUE(inside(junk, member_text(junk, "a"))) << junk;
  }
}

}  // namespace
}  // namespace hookd::api
