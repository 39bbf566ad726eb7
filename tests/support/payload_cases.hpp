// Message payloads that a DOM round trip would change (A38): key order, number forms, large
// integers, escapes, raw non-ASCII UTF-8, nesting, inner whitespace. Each is valid JSON
// text that hookd must store, sign, deliver and return byte-for-byte. Shared by the API
// unit tests and the end-to-end tests.
// Thread-safety: constants only.
#pragma once

#include <string>
#include <vector>

namespace hookd::testing {

struct PayloadCase {
  const char* name;
  std::string text;
};

inline std::vector<PayloadCase> a38_payload_cases() {
  return {
      {"issue_example", R"({"z":1, "a":2, "amount": 12.50, "n": 12345678901234567890123})"},
      {"key_order", R"({"z":1,"y":{"b":2,"a":1},"a":0})"},
      {"number_forms",
       R"({"f":12.50,"one":1.0,"k":1e3,"negzero":-0,"e":1E+2,"negzero_f":-0.0,"tiny":1.5e-7,)"
       R"("exp":2E-05})"},
      {"big_integers",
       R"({"i23":12345678901234567890123,"i40":1234567890123456789012345678901234567890,)"
       R"("neg40":-9999999999999999999999999999999999999999,"u64max_plus1":18446744073709551616})"},
      {"escapes", R"({"e":"\u00e9","slash":"\/","quote":"\"","back":"\\","ctl":"\t\n\u0000\u001f",)"
                  R"("emoji":"\ud83d\ude00","upper_hex":"\u00E9"})"},
      {"raw_utf8", "{\"raw\":\"é漢字\",\"k\\u00e9y\":\"é\",\"é漢字\":[\"😀\"]}"},
      {"nested", R"({"a":[1,[2,[3,{"b":[]}]],{}],"o":{"p":{"q":{"r":null,"s":true,"t":false}}}})"},
      {"whitespace",
       "{\n  \"list\" : [ 1 , [2,{ \"x\" : [] }] ,\n\t{} ],\r\n  \"obj\" : { \"b\":null , "
       "\"a\" : true }  \n}"},
      {"empty_with_space", "{ \n }"},
      {"empty", "{}"},
      {"brackets_in_strings", R"({"s":"}{][\"\\","t":"\\\"}","u":"\\\\"})"},
  };
}

// The body of POST .../msg around `payload`, with the payload member in the middle.
inline std::string publish_body(const std::string& payload, const std::string& extra = {}) {
  return "{\"eventType\":\"order.paid\",\n \"payload\" : " + payload + " ,\"tags\":[\"t\"]" +
         extra + "}";
}

}  // namespace hookd::testing
