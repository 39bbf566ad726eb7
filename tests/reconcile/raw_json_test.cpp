// Raw JSON spans (reconcile/raw_json.hpp): the bytes at a pointer are exactly the text's, on
// every kind of value, through escapes, nesting, whitespace and repeated keys; and they agree
// with what nlohmann::json finds at the same pointer (random documents).
#include "reconcile/raw_json.hpp"

#include <gtest/gtest.h>

#include <random>

#include <nlohmann/json.hpp>

namespace hookd::reconcile {
namespace {

TEST(RawJsonTest, FindsTheExactBytesOfEachKindOfValue) {
  const std::string doc =
      " { \"a\" : { \"z\":1, \"b\" : [ 1 , 2.50 ,\"x\\\"]}\" ] } ,\n\"n\": -1.0e+2 , \"t\":true,"
      "\"s\":\"caf\\u00e9 \\\\ }\",\"e\":{},\"l\":[] ,\"nul\" : null } ";
  EXPECT_EQ(raw_at_pointer(doc, "/a").value_or("?"),
            "{ \"z\":1, \"b\" : [ 1 , 2.50 ,\"x\\\"]}\" ] }");
  EXPECT_EQ(raw_at_pointer(doc, "/a/b").value_or("?"), "[ 1 , 2.50 ,\"x\\\"]}\" ]");
  EXPECT_EQ(raw_at_pointer(doc, "/a/b/1").value_or("?"), "2.50");
  EXPECT_EQ(raw_at_pointer(doc, "/a/b/2").value_or("?"), "\"x\\\"]}\"");
  EXPECT_EQ(raw_at_pointer(doc, "/n").value_or("?"), "-1.0e+2");
  EXPECT_EQ(raw_at_pointer(doc, "/t").value_or("?"), "true");
  EXPECT_EQ(raw_at_pointer(doc, "/s").value_or("?"), "\"caf\\u00e9 \\\\ }\"");
  EXPECT_EQ(raw_at_pointer(doc, "/e").value_or("?"), "{}");
  EXPECT_EQ(raw_at_pointer(doc, "/l").value_or("?"), "[]");
  EXPECT_EQ(raw_at_pointer(doc, "/nul").value_or("?"), "null");
  EXPECT_EQ(raw_at_pointer(doc, "").value_or("?").front(), '{');
  EXPECT_EQ(raw_at_pointer(doc, "").value_or("?").back(), '}');
}

TEST(RawJsonTest, AnswersNothingWhereThePointerNamesNothing) {
  const std::string doc = R"({"a":[1,2],"b":{"c":3}})";
  EXPECT_FALSE(raw_at_pointer(doc, "/x"));
  EXPECT_FALSE(raw_at_pointer(doc, "/a/2"));
  EXPECT_FALSE(raw_at_pointer(doc, "/a/01"));
  EXPECT_FALSE(raw_at_pointer(doc, "/a/-"));
  EXPECT_FALSE(raw_at_pointer(doc, "/b/c/d"));
  EXPECT_FALSE(raw_at_pointer(doc, "b"));
  EXPECT_FALSE(raw_at_pointer(doc, "/b/~2"));
  EXPECT_FALSE(raw_array_elements(doc, "/b"));
  EXPECT_FALSE(raw_at_pointer(R"({"a":[1,2)", "/a"));  // not closed
}

TEST(RawJsonTest, EscapedNamesAndPointerEscapesMatchAndTheLastRepeatedKeyWins) {
  const std::string doc = R"({"a/b":1,"m~n":2,"\u0071":3,"k":"first","k":"last"})";
  EXPECT_EQ(raw_at_pointer(doc, "/a~1b").value_or("?"), "1");
  EXPECT_EQ(raw_at_pointer(doc, "/m~0n").value_or("?"), "2");
  EXPECT_EQ(raw_at_pointer(doc, "/q").value_or("?"), "3");
  EXPECT_EQ(raw_at_pointer(doc, "/k").value_or("?"), "\"last\"");
  EXPECT_EQ(nlohmann::json::parse(doc)["k"], "last");  // the parser's choice, which we follow
}

TEST(RawJsonTest, ArrayElementsAreTheirBytes) {
  const std::string page =
      "{\"data\": [ {\"id\":\"a\", \"payload\":{ \"z\" : 1,\"a\":2 }} ,\n"
      "{\"id\":\"b\",\"payload\":\"text\"}, 7 ], \"done\": true}";
  const auto items = raw_array_elements(page, "/data");
  ASSERT_TRUE(items);
  ASSERT_EQ(items->size(), 3u);
  EXPECT_EQ((*items)[1], "{\"id\":\"b\",\"payload\":\"text\"}");
  EXPECT_EQ((*items)[2], "7");
  EXPECT_EQ(raw_at_pointer((*items)[0], "/payload").value_or("?"), "{ \"z\" : 1,\"a\":2 }");
  const auto empty = raw_array_elements(R"({"data":[ ]})", "/data");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

// A random JSON text with random whitespace; returns it and records every pointer in it.
std::string random_json(std::mt19937& rng, int depth, const std::string& at,
                        std::vector<std::string>& pointers) {
  pointers.push_back(at);
  auto space = [&rng] { return std::string(rng() % 3, " \n\t"[rng() % 3]); };
  const int kind = depth > 3 ? static_cast<int>(rng() % 4) : static_cast<int>(rng() % 6);
  switch (kind) {
    case 0:
      return std::to_string(static_cast<int>(rng() % 2000) - 1000) + ".50";
    case 1:
      return "\"s\\\"]}\\\\" + std::to_string(rng() % 100) + "\\u00e9\"";
    case 2:
      return rng() % 2 ? "true" : "null";
    case 3:
      return "-0.0e+1";
    case 4: {
      std::string out = "[" + space();
      const int n = static_cast<int>(rng() % 4);
      for (int i = 0; i < n; ++i) {
        if (i) out += space() + "," + space();
        out += random_json(rng, depth + 1, at + "/" + std::to_string(i), pointers);
      }
      return out + space() + "]";
    }
    default: {
      std::string out = "{" + space();
      const int n = static_cast<int>(rng() % 4);
      for (int i = 0; i < n; ++i) {
        if (i) out += space() + "," + space();
        const std::string name = "k" + std::to_string(i) + (i % 2 ? "/x" : "~y");
        std::string token = name;
        token.replace(token.find(i % 2 ? "/" : "~"), 1, i % 2 ? "~1" : "~0");
        out += "\"" + name + "\"" + space() + ":" + space() +
               random_json(rng, depth + 1, at + "/" + token, pointers);
      }
      return out + space() + "}";
    }
  }
}

TEST(RawJsonTest, AgreesWithTheParserOnRandomDocuments) {
  std::mt19937 rng(20261202);
  for (int round = 0; round < 500; ++round) {
    std::vector<std::string> pointers;
    const std::string doc = random_json(rng, 0, "", pointers);
    const auto parsed = nlohmann::json::parse(doc);
    for (const auto& pointer : pointers) {
      const auto raw = raw_at_pointer(doc, pointer);
      ASSERT_TRUE(raw) << doc << " at " << pointer;
      EXPECT_EQ(nlohmann::json::parse(*raw), parsed.at(nlohmann::json::json_pointer(pointer)))
          << doc << " at " << pointer;
      EXPECT_NE(doc.find(*raw), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace hookd::reconcile
