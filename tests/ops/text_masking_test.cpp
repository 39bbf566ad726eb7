// A31: secrets never survive masking; personal data keeps only a short hint.
#include "ops/text_masking.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace hookd::ops {
namespace {

struct Case {
  std::string input;
  std::string expected;
};

void expect_all(const std::vector<Case>& cases) {
  for (const auto& c : cases) EXPECT_EQ(mask_text(c.input), c.expected) << "input: " << c.input;
}

TEST(TextMaskingTest, EmailsKeepFirstCharAndDomain) {
  expect_all({
      {"alice@example.com", "a***@example.com"},
      {"mail Bob.Smith+tag@mail.example.co.uk.", "mail B***@mail.example.co.uk."},
      {"<x@y.io>", "<x***@y.io>"},
      {"13812345678@qq.com", "1***@qq.com"},
      {"a@b.com, c@d.org", "a***@b.com, c***@d.org"},
  });
}

TEST(TextMaskingTest, NotEmails) {
  expect_all({
      {"user@localhost", "user@localhost"},
      {"@handle", "@handle"},
      {"a@b.c1", "a@b.c1"},
      {"price 3 @ 4.50", "price 3 @ 4.50"},
  });
}

TEST(TextMaskingTest, ChineseMobileNumbers) {
  expect_all({
      {"13812345678", "138****5678"},
      {"手机13812345678。", "手机138****5678。"},
      {"tel=19912345678&x=1", "tel=199****5678&x=1"},
      {"138 1234 5678", "138 **** 5678"},
      {"138-1234-5678", "138-****-5678"},
      {"8613812345678", "86138****5678"},
      {"13812345678,13912345679", "138****5678,139****5679"},
      {"13812345678 13912345679", "138****5678 139****5679"},
  });
}

TEST(TextMaskingTest, InternationalNumbers) {
  expect_all({
      {"+8613812345678", "+86*******5678"},
      {"call +86 138 1234 5678 now", "call +86 *** **** 5678 now"},
      {"+44 20 7946 0958", "+44 ** **** 0958"},
      {"+1-415-555-0100", "+1-4**-***-0100"},
  });
}

TEST(TextMaskingTest, ResidentIdNumbers) {
  expect_all({
      {"110101199003071234", "1101**********1234"},
      {"id 11010119900307123X ok", "id 1101**********123X ok"},
      {"110101900307123", "1101*******7123"},
  });
  EXPECT_TRUE(valid_resident_id("110101199003071234"));
  EXPECT_FALSE(valid_resident_id("110101199013071234"));  // month 13
  EXPECT_FALSE(valid_resident_id("910101199003071234"));  // no such province
  EXPECT_FALSE(valid_resident_id("110101219003071234"));  // year 2190
}

TEST(TextMaskingTest, CardNumbers) {
  expect_all({
      {"4111111111111111", "4111********1111"},
      {"card 4111 1111 1111 1111.", "card 4111 **** **** 1111."},
      {"5555-5555-5555-4444", "5555-****-****-4444"},
      {"378282246310005", "3782*******0005"},
  });
  EXPECT_TRUE(luhn_valid("4111111111111111"));
  EXPECT_FALSE(luhn_valid("4111111111111112"));
}

TEST(TextMaskingTest, OrdinaryNumbersAreLeftAlone) {
  expect_all({
      {"2026-11-29T20:04:00.123+08:00", "2026-11-29T20:04:00.123+08:00"},
      {"ts=1732900000123", "ts=1732900000123"},              // epoch ms
      {"ts=1732900000", "ts=1732900000"},                    // epoch s
      {"ns 1732900000123456789", "ns 1732900000123456789"},  // epoch ns
      {"order ORD13812345678", "order ORD13812345678"},
      {"msg_2abc13812345678", "msg_2abc13812345678"},
      {"4111111111111112", "4111111111111112"},  // fails Luhn
      {"amount 12345678901.25", "amount 12345678901.25"},
      {"v1.13812345678", "v1.13812345678"},
      {"status 503 after 3 attempts", "status 503 after 3 attempts"},
      {"12812345678", "12812345678"},                // not a mobile prefix
      {"202611290001234567", "202611290001234567"},  // order id, no valid birth date
      {"550e8400-e29b-41d4-a716-446655440000", "550e8400-e29b-41d4-a716-446655440000"},
  });
}

TEST(TextMaskingTest, SecretsAreFullyRedacted) {
  expect_all({
      {"secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw ok", "secret whsec_[REDACTED] ok"},
      {"key=whsk_abc123", "key=whsk_[REDACTED]"},
      {"sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_[REDACTED]"},
      {"Authorization: Bearer eyJhbGciOi.eyJzdWIi.SflKxwRJ", "Authorization: [REDACTED]"},
      {"sent with bearer abc.def-ghi", "sent with bearer [REDACTED]"},
      {"Basic dXNlcjpwYXNz", "Basic [REDACTED]"},
      {"?token=abc123&page=2", "?token=[REDACTED]&page=2"},
      {R"({"api_key": "k-123", "n": 1})", R"({"api_key": "[REDACTED]", "n": 1})"},
      {"password='p@ss w0rd' next", "password='[REDACTED]' next"},
      {"https://user:hunter2@example.com/x", "https://user:[REDACTED]@example.com/x"},
      {"webhook-signature: v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
       "webhook-signature: [REDACTED]"},
      {"svix-signature: v1,c2lnMQ== v1,c2lnMg==\nnext", "svix-signature: [REDACTED]\nnext"},
      {R"({"token": 123, "n": 1})", R"({"token": [REDACTED], "n": 1})"},
      {"sig=v1,abc, next", "sig=v1,abc, next"},  // "sig" is not a secret name
      {"signature=v1,abc, next", "signature=[REDACTED], next"},
  });
}

TEST(TextMaskingTest, NothingOfASecretSurvives) {
  const std::vector<std::string> secrets = {"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "4eC39HqLyjWD",
                                            "eyJhbGciOi", "hunter2", "dXNlcjpwYXNz"};
  const std::string text =
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw sk_live_4eC39HqLyjWD Bearer eyJhbGciOi "
      "ftp://me:hunter2@h Basic dXNlcjpwYXNz";
  const std::string masked = mask_text(text);
  for (const auto& s : secrets) EXPECT_EQ(masked.find(s), std::string::npos) << s;
  EXPECT_EQ(redact_secrets(text), masked);  // no personal data in there
}

TEST(TextMaskingTest, SecretNames) {
  for (const char* name : {"Authorization", "Proxy-Authorization", "webhook-signature",
                           "X-Hub-Signature-256", "svix-signature", "client_secret", "X-Token",
                           "Cookie", "Set-Cookie", "x-api-key", "password"}) {
    EXPECT_TRUE(is_secret_name(name)) << name;
  }
  for (const char* name : {"content-type", "webhook-id", "webhook-timestamp", "email", "phone"}) {
    EXPECT_FALSE(is_secret_name(name)) << name;
  }
}

TEST(TextMaskingTest, EmptyAndPlainText) {
  EXPECT_EQ(mask_text(""), "");
  EXPECT_EQ(mask_text("delivery.failed"), "delivery.failed");
  EXPECT_EQ(mask_text("endpoint ep_2Xb9 returned 503"), "endpoint ep_2Xb9 returned 503");
}

}  // namespace
}  // namespace hookd::ops

namespace hookd::ops {
namespace {

// Random text around planted secrets and phone numbers: the scanners never crash or read out
// of bounds (run under ASan), and what was planted never survives.
TEST(TextMaskingTest, RandomTextAroundPlantedValues) {
  std::mt19937 rng(20261129);
  const std::string alphabet = "ab X1234567890@.+-_ =:\"'/\\\n,;&\xe4\xb8\xad";
  auto noise = [&] {
    std::string s;
    const int n = static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) s += alphabet[rng() % alphabet.size()];
    return s;
  };
  for (int round = 0; round < 3000; ++round) {
    std::string text = noise();
    text += " whsec_Zm9vYmFyYmF6 " + noise() + " 13912345678 " + noise();
    const std::string masked = mask_text(text);
    EXPECT_EQ(masked.find("Zm9vYmFyYmF6"), std::string::npos) << text;
    EXPECT_EQ(masked.find("13912345678"), std::string::npos) << text;
    const std::string junk = noise() + noise() + noise();
    (void)mask_text(junk);
  }
}

}  // namespace
}  // namespace hookd::ops
