// Standard Webhooks with keys of both kinds (a whsec_ <-> whsk_ rotation): v1 and v1a
// signatures in one header, each verifiable with its own key alone.
#include <gtest/gtest.h>

#include "hookd/signing.hpp"

namespace hookd {
namespace {

constexpr const char* kHmacKey = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
constexpr const char* kEdKey = "whsk_AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=";
constexpr std::int64_t kMixedNow = 1'700'000'000;

SchemeOptions options(SchemeKind kind, HeaderNaming naming = HeaderNaming::kWebhook) {
  SchemeOptions o;
  o.kind = kind;
  o.naming = naming;
  return o;
}

bool verifies(SchemeKind kind, const std::string& secret, const HttpHeaders& headers,
              std::string_view body) {
  const std::vector<std::string> one{secret};
  auto verifier = Verifier::create(options(kind), one);
  return verifier.has_value() && verifier->verify(headers, body, kMixedNow).has_value();
}

TEST(MixedStandardSigning, BothKindsSignInOneHeaderWhateverTheConfiguredKind) {
  for (SchemeKind kind : {SchemeKind::kStandard, SchemeKind::kStandardEd25519}) {
    const std::vector<std::string> keys{kEdKey, kHmacKey};
    auto signer = Signer::create(options(kind), keys);
    ASSERT_TRUE(signer.has_value()) << signer.error().message;
    const std::string body = R"({"n":1})";
    const HttpHeaders headers = signer->sign({"msg_1", kMixedNow, body});
    int signature_headers = 0;
    for (const auto& h : headers) signature_headers += h.name == "webhook-signature";
    EXPECT_EQ(signature_headers, 1);
    const std::string value(find_header(headers, "webhook-signature").value_or(""));
    EXPECT_TRUE(value.starts_with("v1,")) << value;
    EXPECT_NE(value.find(" v1a,"), std::string::npos) << value;
    EXPECT_TRUE(verifies(SchemeKind::kStandard, kHmacKey, headers, body));
    EXPECT_TRUE(verifies(SchemeKind::kStandardEd25519, kEdKey, headers, body));
    EXPECT_FALSE(verifies(SchemeKind::kStandard, kHmacKey, headers, "tampered"));
  }
}

// With both header families each signature header carries both kinds' signatures (fails if
// only the first family's header got the v1a signature appended).
TEST(MixedStandardSigning, BothNamingsCarryBothKindsInEachSignatureHeader) {
  const std::vector<std::string> keys{kHmacKey, kEdKey};
  auto signer = Signer::create(options(SchemeKind::kStandard, HeaderNaming::kBoth), keys);
  ASSERT_TRUE(signer.has_value()) << signer.error().message;
  const HttpHeaders headers = signer->sign({"msg_3", kMixedNow, "{}"});
  ASSERT_EQ(headers.size(), 6u);
  const std::string webhook(find_header(headers, "webhook-signature").value_or(""));
  EXPECT_EQ(find_header(headers, "svix-signature").value_or(""), webhook);
  EXPECT_TRUE(webhook.starts_with("v1,")) << webhook;
  EXPECT_NE(webhook.find(" v1a,"), std::string::npos) << webhook;
  for (const char* family : {"webhook-", "svix-"}) {
    HttpHeaders one;
    for (const auto& h : headers) {
      if (h.name.starts_with(family)) one.push_back(h);
    }
    EXPECT_TRUE(verifies(SchemeKind::kStandard, kHmacKey, one, "{}")) << family;
    EXPECT_TRUE(verifies(SchemeKind::kStandardEd25519, kEdKey, one, "{}")) << family;
  }
}

TEST(MixedStandardSigning, MixedVerifierAcceptsEitherFamilyAndSvixNames) {
  const std::vector<std::string> keys{kHmacKey, kEdKey};
  const std::vector<std::string> hmac_only{kHmacKey};
  const std::vector<std::string> ed_only{kEdKey};
  auto mixed = Verifier::create(options(SchemeKind::kStandard), keys);
  ASSERT_TRUE(mixed.has_value()) << mixed.error().message;
  for (const auto* one : {&hmac_only, &ed_only}) {
    const SchemeKind kind = one == &ed_only ? SchemeKind::kStandardEd25519 : SchemeKind::kStandard;
    auto signer = Signer::create(options(kind, HeaderNaming::kSvix), *one);
    ASSERT_TRUE(signer.has_value());
    const HttpHeaders headers = signer->sign({"msg_2", kMixedNow, "{}"});
    EXPECT_TRUE(find_header(headers, "svix-signature").has_value());
    EXPECT_TRUE(mixed->verify(headers, "{}", kMixedNow).has_value());
    auto refused = mixed->verify(headers, "{ }", kMixedNow);
    ASSERT_FALSE(refused.has_value());
    EXPECT_EQ(refused.error().reason, VerifyFailure::kNoMatchingSignature);
  }
  // A broken key of either kind is still an error.
  const std::vector<std::string> broken{kHmacKey, "whsk_AQIDBA=="};
  EXPECT_FALSE(Signer::create(options(SchemeKind::kStandard), broken).has_value());
}

}  // namespace
}  // namespace hookd
