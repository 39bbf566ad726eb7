// A31: payloads and headers are masked before logs and the console see them.
#include "ops/masking.hpp"

#include <gtest/gtest.h>

namespace hookd::ops {
namespace {

using nlohmann::json;

Masker make(std::vector<std::string> pointers, bool personal = true) {
  auto masker =
      Masker::create({.json_pointers = std::move(pointers), .mask_personal_data = personal});
  EXPECT_TRUE(masker.has_value());
  return *masker;
}

TEST(MaskingTest, PointersReplaceValuesEntirely) {
  const Masker masker = make({"/data/customer/name", "/data/customer/address", "/items/0/email"});
  const json doc = json::parse(R"({
    "type": "order.paid",
    "data": {"customer": {"name": "张三", "address": {"city": "Beijing"}, "tier": "gold"}},
    "items": [{"email": "keep-first@shop.example"}, {"email": "second@shop.example"}]
  })");
  const json masked = masker.mask_json(doc);
  EXPECT_EQ(masked["data"]["customer"]["name"], "***");
  EXPECT_EQ(masked["data"]["customer"]["address"], "***");  // objects too
  EXPECT_EQ(masked["data"]["customer"]["tier"], "gold");
  EXPECT_EQ(masked["type"], "order.paid");
  EXPECT_EQ(masked["items"][0]["email"], "***");
  EXPECT_EQ(masked["items"][1]["email"], "s***@shop.example");  // pattern, not pointer
  EXPECT_EQ(doc["data"]["customer"]["name"], "张三");           // input untouched
}

TEST(MaskingTest, WildcardAndEscapedPointers) {
  const Masker masker = make({"/items/*/sku", "/a~1b/c~0d"});
  json doc = json::parse(R"({"items": [{"sku": "X1"}, {"sku": "X2"}], "a/b": {"c~d": 5}})");
  masker.mask_json_in_place(doc);
  EXPECT_EQ(doc,
            json::parse(R"({"items": [{"sku": "***"}, {"sku": "***"}], "a/b": {"c~d": "***"}})"));
}

TEST(MaskingTest, BadPointersAreRejected) {
  EXPECT_FALSE(Masker::create({.json_pointers = {"data/name"}}).has_value());
  auto bad = Masker::create({.json_pointers = {"/a~2"}});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
}

TEST(MaskingTest, NestedPatternsAndSecretKeys) {
  const Masker masker;
  const json doc = json::parse(R"({
    "user": {"phone": "13812345678", "mobile": 13912345678, "id_card": "110101199003071234",
             "contact": ["bob@example.com", {"deep": {"card": "4111 1111 1111 1111"}}]},
    "client_secret": "whsec_abc", "auth": {"access_token": {"v": 1}}, "amount": 1999,
    "created_at": "2026-11-29T20:04:00Z", "order_id": 202611290001234567
  })");
  const json masked = masker.mask_json(doc);
  EXPECT_EQ(masked["user"]["phone"], "138****5678");
  EXPECT_EQ(masked["user"]["mobile"], "139****5678");  // integer phone becomes a string
  EXPECT_EQ(masked["user"]["id_card"], "1101**********1234");
  EXPECT_EQ(masked["user"]["contact"][0], "b***@example.com");
  EXPECT_EQ(masked["user"]["contact"][1]["deep"]["card"], "4111 **** **** 1111");
  EXPECT_EQ(masked["client_secret"], "[REDACTED]");
  EXPECT_EQ(masked["auth"]["access_token"], "[REDACTED]");
  EXPECT_EQ(masked["amount"], 1999);
  EXPECT_EQ(masked["created_at"], "2026-11-29T20:04:00Z");
  EXPECT_EQ(masked["order_id"], 202611290001234567);
}

TEST(MaskingTest, PersonalDataOffStillRedactsSecrets) {
  const Masker masker = make({"/name"}, /*personal=*/false);
  const json masked = masker.mask_json(
      json::parse(R"({"name": "x", "phone": "13812345678", "note": "Bearer abc", "token": "t"})"));
  EXPECT_EQ(masked["name"], "***");
  EXPECT_EQ(masked["phone"], "13812345678");
  EXPECT_EQ(masked["note"], "Bearer [REDACTED]");
  EXPECT_EQ(masked["token"], "[REDACTED]");
}

TEST(MaskingTest, JsonTextRoundTripAndFallback) {
  const Masker masker = make({"/name"});
  EXPECT_EQ(masker.mask_json_text(R"({"name":"Alice","email":"alice@example.com"})"),
            R"({"email":"a***@example.com","name":"***"})");
  EXPECT_EQ(masker.mask_json_text("not json alice@example.com"), "not json a***@example.com");
}

TEST(MaskingTest, HeadersSecretNamesRedactedOthersMasked) {
  const Masker masker;
  const HeaderList masked = masker.mask_headers({
      {"Authorization", "Bearer abc.def"},
      {"webhook-signature", "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="},
      {"X-Webhook-Secret", "plain"},
      {"Cookie", "session=abc"},
      {"X-Auth-Token", "t0k3n"},
      {"Content-Type", "application/json"},
      {"X-Customer-Email", "carol@example.com"},
      {"webhook-id", "msg_2Xb9"},
  });
  ASSERT_EQ(masked.size(), 8u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(masked[i].second, "[REDACTED]") << masked[i].first;
  EXPECT_EQ(masked[5].second, "application/json");
  EXPECT_EQ(masked[6].second, "c***@example.com");
  EXPECT_EQ(masked[7].second, "msg_2Xb9");
  EXPECT_EQ(masked[0].first, "Authorization");  // names and order kept
}

TEST(MaskingTest, WholeDocumentPointer) {
  const Masker masker = make({""});
  EXPECT_EQ(masker.mask_json(json::parse(R"({"a":1})")), "***");
}

}  // namespace
}  // namespace hookd::ops
