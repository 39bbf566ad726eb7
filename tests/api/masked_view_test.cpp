// The console's masked view (A31): payloads masked with payload-relative pointers and the
// built-in patterns, attempt responses masked as JSON text, secrets redacted by key and by
// pattern, ids and plain fields left alone; only with the header; only JSON bodies.
#include "api/masked_view.hpp"

#include <gtest/gtest.h>

namespace hookd::api {
namespace {

ops::Masker masker_with(std::vector<std::string> pointers) {
  auto m = ops::Masker::create(ops::MaskingConfig{std::move(pointers), true});
  EXPECT_TRUE(m.has_value());
  return std::move(*m);
}

net::HttpResponse json_answer(const std::string& body) {
  net::HttpResponse r;
  r.headers.add("Content-Type", "application/json");
  r.body = body;
  return r;
}

TEST(MaskedView, PayloadsResponsesAndSecretsAreMaskedIdsStay) {
  const auto masker = masker_with({"/customer/name"});
  const auto out = masked_response(masker, json_answer(R"({"data":[{
    "id":"msg_2Xb9QqT1","eventType":"order.paid",
    "payload":{"customer":{"name":"Jane Roe","email":"jane.roe@example.com","phone":"13812345678"}},
    "response":"{\"echo\":\"jane.roe@example.com\"}",
    "note":"call +44 20 7946 0958 or jane.roe@example.com",
    "key":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw","token":"fdt_abcdef0123456789"}]})"));
  const auto j = nlohmann::json::parse(out.body);
  const auto& item = j["data"][0];
  EXPECT_EQ(item["id"], "msg_2Xb9QqT1");
  EXPECT_EQ(item["eventType"], "order.paid");
  EXPECT_EQ(item["payload"]["customer"]["name"], "***");  // the pointer, payload-relative
  EXPECT_EQ(item["payload"]["customer"]["email"], "j***@example.com");
  EXPECT_EQ(item["payload"]["customer"]["phone"], "138****5678");
  EXPECT_EQ(out.body.find("jane.roe@"), std::string::npos) << out.body;
  EXPECT_EQ(out.body.find("7946 0958"), std::string::npos) << out.body;
  EXPECT_EQ(out.body.find("MfKQ9r8G"), std::string::npos) << out.body;
  EXPECT_EQ(out.body.find("fdt_abcdef"), std::string::npos) << out.body;
}

TEST(MaskedView, OnlyWithTheHeaderAndOnlyJson) {
  net::HttpRequest request;
  EXPECT_FALSE(wants_masked_view(request));
  request.headers.add("X-Hookd-Mask", "0");
  EXPECT_FALSE(wants_masked_view(request));
  net::HttpRequest asked;
  asked.headers.add("x-hookd-mask", "1");
  EXPECT_TRUE(wants_masked_view(asked));

  const auto masker = masker_with({});
  net::HttpResponse text;
  text.headers.add("Content-Type", "text/plain");
  text.body = "jane.roe@example.com";
  EXPECT_EQ(masked_response(masker, text).body, text.body);  // not ours to rewrite
  auto broken = json_answer("{not json");
  EXPECT_EQ(masked_response(masker, broken).body, "{not json");
}

}  // namespace
}  // namespace hookd::api
