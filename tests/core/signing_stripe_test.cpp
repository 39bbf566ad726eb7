// Stripe: Stripe-Signature t=<ts>,v1=<hex>. Vectors from the real stripe library. A15 A16 A18.
#include <gtest/gtest.h>

#include "core/signing_test_util.hpp"

namespace hookd {
namespace {

using testing::header_value;
using testing::make_signer;
using testing::make_verifier;
using testing::outcome;
using testing::scheme;

struct StripeVector {
  std::string_view secret;
  std::int64_t timestamp;
  std::string_view payload;
  std::string_view header;
};

// Generated with the stripe npm package 23.1.0 (Node 20):
//   new Stripe('sk_test_dummy').webhooks.generateTestHeaderString({payload, secret, timestamp})
// and checked with stripe.webhooks.constructEvent(payload, header, secret). The second vector's
// secret is valid base64: it proves the key is the secret string itself, not its decoding.
constexpr StripeVector kVectors[] = {
    {"whsec_test_secret", 1700000000, R"({"id":"evt_test_webhook","object":"event"})",
     "t=1700000000,v1=d95c6b7477fbd7e9f90b1b0ef5f9c7ac25abca5382460e0d988c2b2a5b71b990"},
    {"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", 1614265330, "Hello, Stripe!",
     "t=1614265330,v1=21669cc25ae88bfbeda0a06c1100f49bed5f88eaa698fc81d5336fe6f2e93b14"},
};

HttpHeaders stripe_header(std::string value) { return {{"Stripe-Signature", std::move(value)}}; }

TEST(StripeScheme, SignsLikeTheStripeLibrary) {  // A15
  for (const StripeVector& v : kVectors) {
    const Signer signer = make_signer(scheme(SchemeKind::kStripe), {std::string(v.secret)});
    const HttpHeaders headers = signer.sign({"ignored", v.timestamp, v.payload});
    EXPECT_EQ(headers.size(), 1u);
    EXPECT_EQ(header_value(headers, "Stripe-Signature"), v.header);
  }
}

TEST(StripeScheme, VerifiesStripeLibraryHeadersInAnyHexCase) {
  for (const StripeVector& v : kVectors) {
    const Verifier verifier = make_verifier(scheme(SchemeKind::kStripe), {std::string(v.secret)});
    EXPECT_EQ(outcome(verifier, stripe_header(std::string(v.header)), v.payload, v.timestamp),
              "ok");
    std::string upper(v.header);
    for (std::size_t i = upper.find("v1=") + 3; i < upper.size(); ++i)
      upper[i] = std::toupper(upper[i]);
    EXPECT_EQ(outcome(verifier, stripe_header(upper), v.payload, v.timestamp), "ok");
    EXPECT_EQ(
        outcome(verifier, {{"stripe-signature", std::string(v.header)}}, v.payload, v.timestamp),
        "ok");
  }
}

TEST(StripeScheme, IgnoresV0AndUnknownEntriesAndAcceptsAnyV1) {
  const StripeVector& v = kVectors[0];
  const Verifier verifier = make_verifier(scheme(SchemeKind::kStripe), {std::string(v.secret)});
  const std::string good = std::string(v.header).substr(std::string(v.header).find("v1="));
  const std::string bad = "v1=" + std::string(64, '0');
  EXPECT_EQ(
      outcome(verifier, stripe_header("t=1700000000," + bad + ",v0=abcd,x=1," + good + ",v2=ff"),
              v.payload, v.timestamp),
      "ok");
  const std::string mac = good.substr(3);
  EXPECT_EQ(outcome(verifier, stripe_header("t=1700000000,v0=" + mac + ",v2=" + mac), v.payload,
                    v.timestamp),
            "no_matching_signature");
}

TEST(StripeScheme, RejectsTamperedRequests) {  // A16
  const StripeVector& v = kVectors[0];
  const Verifier verifier = make_verifier(scheme(SchemeKind::kStripe), {std::string(v.secret)});
  const std::string header(v.header);
  std::string body(v.payload);
  body.back() = ']';
  EXPECT_EQ(outcome(verifier, stripe_header(header), body, v.timestamp), "no_matching_signature");
  const Verifier wrong = make_verifier(scheme(SchemeKind::kStripe), {"whsec_other"});
  EXPECT_EQ(outcome(wrong, stripe_header(header), v.payload, v.timestamp), "no_matching_signature");
  std::string changed_ts = header;
  changed_ts.replace(2, 10, "1700000001");
  EXPECT_EQ(outcome(verifier, stripe_header(changed_ts), v.payload, v.timestamp),
            "no_matching_signature");
  EXPECT_EQ(
      outcome(verifier, stripe_header(header.substr(0, header.size() - 2)), v.payload, v.timestamp),
      "no_matching_signature");
  EXPECT_EQ(
      outcome(verifier, stripe_header(header.substr(0, header.size() - 1)), v.payload, v.timestamp),
      "no_matching_signature");
}

TEST(StripeScheme, TimestampWindowBothDirections) {
  const StripeVector& v = kVectors[0];
  const Verifier verifier = make_verifier(scheme(SchemeKind::kStripe), {std::string(v.secret)});
  const HttpHeaders headers = stripe_header(std::string(v.header));
  EXPECT_EQ(outcome(verifier, headers, v.payload, v.timestamp + 300), "ok");
  EXPECT_EQ(outcome(verifier, headers, v.payload, v.timestamp - 300), "ok");
  EXPECT_EQ(outcome(verifier, headers, v.payload, v.timestamp + 301), "timestamp_too_old");
  EXPECT_EQ(outcome(verifier, headers, v.payload, v.timestamp - 301), "timestamp_too_new");
}

TEST(StripeScheme, MissingAndGarbageHeaders) {
  const StripeVector& v = kVectors[0];
  const Verifier verifier = make_verifier(scheme(SchemeKind::kStripe), {std::string(v.secret)});
  EXPECT_EQ(outcome(verifier, {}, v.payload, v.timestamp), "missing_header");
  EXPECT_EQ(outcome(verifier, {{"X-Other", std::string(v.header)}}, v.payload, v.timestamp),
            "missing_header");
  EXPECT_EQ(outcome(verifier, stripe_header("garbage"), v.payload, v.timestamp), "bad_format");
  EXPECT_EQ(outcome(verifier, stripe_header("v1=abcd"), v.payload, v.timestamp), "bad_format");
  EXPECT_EQ(outcome(verifier, stripe_header("t=soon,v1=abcd"), v.payload, v.timestamp),
            "bad_format");
  EXPECT_EQ(outcome(verifier, stripe_header("t=1700000000"), v.payload, v.timestamp),
            "no_matching_signature");
  EXPECT_EQ(outcome(verifier, stripe_header("t=1700000000,v1=zz"), v.payload, v.timestamp),
            "no_matching_signature");
}

TEST(StripeScheme, RotationSignsWithEveryKeyAndVerifiesWithEither) {  // A18
  const std::vector<std::string> both = {"whsec_new", "whsec_test_secret"};
  const Signer signer = make_signer(scheme(SchemeKind::kStripe), both);
  const StripeVector& v = kVectors[0];
  const std::string value =
      header_value(signer.sign({"", v.timestamp, v.payload}), "Stripe-Signature");
  EXPECT_TRUE(value.starts_with("t=1700000000,v1="));
  EXPECT_TRUE(value.ends_with(std::string(v.header).substr(13)));  // ",v1=<old key's mac>"
  for (const std::string& secret : both) {
    EXPECT_EQ(outcome(make_verifier(scheme(SchemeKind::kStripe), {secret}), stripe_header(value),
                      v.payload, v.timestamp),
              "ok");
  }
  EXPECT_EQ(outcome(make_verifier(scheme(SchemeKind::kStripe), both),
                    stripe_header(std::string(v.header)), v.payload, v.timestamp),
            "ok");
}

TEST(StripeScheme, RejectsEmptySecretAtCreate) {
  EXPECT_FALSE(Signer::create(scheme(SchemeKind::kStripe), std::vector<std::string>{""}));
  EXPECT_FALSE(Verifier::create(scheme(SchemeKind::kStripe), std::vector<std::string>{"a", ""}));
}

}  // namespace
}  // namespace hookd
