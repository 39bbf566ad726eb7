// The proxy_keys headers column (row_codec): header pairs as a JSON array, wire order and
// duplicates kept, byte-exact even for values that are not UTF-8, and whatever the column
// holds decodes without failing.
#include <gtest/gtest.h>

#include <string>

#include "store/row_codec.hpp"

namespace hookd::store {
namespace {

TEST(ProxyKeyCodec, PairsKeepOrderAndDuplicates) {
  const HeaderPairs in = {{"Set-Cookie", "a=1"},
                          {"Vary", "accept"},
                          {"Set-Cookie", "b=2"},
                          {"x-empty", ""},
                          {"x-quote", "\"[],"}};
  const std::string json = encode_header_pairs(in);
  EXPECT_EQ(json, R"([["Set-Cookie","a=1"],["Vary","accept"],["Set-Cookie","b=2"],)"
                  R"(["x-empty",""],["x-quote","\"[],"]])");
  EXPECT_EQ(decode_header_pairs(json), in);
  EXPECT_EQ(encode_header_pairs({}), "[]");
  EXPECT_TRUE(decode_header_pairs("[]").empty());
}

TEST(ProxyKeyCodec, Utf8IsWrittenAsIsAndOtherBytesComeBackExact) {
  const HeaderPairs utf8 = {{"x-text", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"}};
  EXPECT_EQ(encode_header_pairs(utf8),
            "[[\"x-text\",\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"]]");
  EXPECT_EQ(decode_header_pairs(encode_header_pairs(utf8)), utf8);

  // obs-text, a lone continuation byte, an overlong '/', a surrogate, above U+10FFFF, a cut
  // sequence, and a NUL: each comes back byte for byte.
  for (const std::string& value :
       {std::string("caf\xe9"), std::string("\x80"), std::string("\xc0\xaf"),
        std::string("\xed\xa0\x80"), std::string("\xf4\x90\x80\x80"), std::string("ab\xe2\x82"),
        std::string("a\0b", 3), std::string("\xc3\xa9\xff")}) {
    const HeaderPairs in = {{"x-raw", value}, {"x-next", "plain"}};
    const std::string json = encode_header_pairs(in);
    EXPECT_EQ(decode_header_pairs(json), in) << json;
  }
  const HeaderPairs bad_name = {{"x-\xff", "v\xfe"}};
  EXPECT_EQ(decode_header_pairs(encode_header_pairs(bad_name)), bad_name);
}

TEST(ProxyKeyCodec, WhateverTheColumnHoldsDecodes) {
  EXPECT_TRUE(decode_header_pairs("").empty());
  EXPECT_TRUE(decode_header_pairs("not json").empty());
  EXPECT_TRUE(decode_header_pairs(R"({"a":"b"})").empty()) << "a map is not pairs";
  EXPECT_EQ(decode_header_pairs(R"([["a","1"],"x",["b"],[1,2],["c","3","other"],["d","4"]])"),
            (HeaderPairs{{"a", "1"}, {"c", "3"}, {"d", "4"}}));
}

}  // namespace
}  // namespace hookd::store
