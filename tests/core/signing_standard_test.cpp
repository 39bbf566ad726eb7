// Standard Webhooks v1 (HMAC-SHA256, whsec_ secrets), both header namings. A15 A16 A18.
#include <gtest/gtest.h>

#include "core/signing_test_util.hpp"

namespace hookd {
namespace {

using testing::header_value;
using testing::make_signer;
using testing::make_verifier;
using testing::outcome;
using testing::remove_header;
using testing::scheme;
using testing::set_header;

// The reference vector of the Standard Webhooks libraries: standard-webhooks/standard-webhooks,
// libraries/javascript/src/webhook.test.ts, test "sign function works".
constexpr std::string_view kVectorSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
constexpr std::string_view kVectorId = "msg_p5jXN8AQM9LWM0D4loKWxJek";
constexpr std::int64_t kVectorTimestamp = 1614265330;
constexpr std::string_view kVectorBody = R"({"test": 2432232314})";
constexpr std::string_view kVectorSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
constexpr std::string_view kOtherSecret = "whsec_c2VjcmV0LW9mLWEtcm90YXRlZC1lbmRwb2ludA==";

HttpHeaders vector_headers() {
  return {{"webhook-id", std::string(kVectorId)},
          {"webhook-timestamp", std::to_string(kVectorTimestamp)},
          {"webhook-signature", std::string(kVectorSignature)}};
}

TEST(StandardScheme, SignsTheReferenceVector) {  // A15
  const Signer signer = make_signer(scheme(SchemeKind::kStandard), {std::string(kVectorSecret)});
  const HttpHeaders headers = signer.sign({kVectorId, kVectorTimestamp, kVectorBody});
  EXPECT_EQ(header_value(headers, "webhook-signature"), kVectorSignature);
  EXPECT_EQ(header_value(headers, "webhook-id"), kVectorId);
  EXPECT_EQ(header_value(headers, "webhook-timestamp"), "1614265330");
  EXPECT_EQ(headers.size(), 3u);
}

TEST(StandardScheme, VerifiesTheReferenceVector) {
  const Verifier verifier =
      make_verifier(scheme(SchemeKind::kStandard), {std::string(kVectorSecret)});
  EXPECT_EQ(outcome(verifier, vector_headers(), kVectorBody, kVectorTimestamp), "ok");
}

TEST(StandardScheme, AcceptsSecretWithoutPrefixOrWithPadding) {
  // Same key: bare base64 (as the reference libraries allow) and unpadded vs padded forms.
  for (const std::string secret :
       {"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}) {
    const Verifier verifier = make_verifier(scheme(SchemeKind::kStandard), {secret});
    EXPECT_EQ(outcome(verifier, vector_headers(), kVectorBody, kVectorTimestamp), "ok") << secret;
  }
  // A key whose base64 needs padding, given both ways, signs identically.
  const Signer padded = make_signer(scheme(SchemeKind::kStandard), {"whsec_c2VjcmV0MQ=="});
  const Signer unpadded = make_signer(scheme(SchemeKind::kStandard), {"whsec_c2VjcmV0MQ"});
  EXPECT_EQ(header_value(padded.sign({"m", 1, "b"}), "webhook-signature"),
            header_value(unpadded.sign({"m", 1, "b"}), "webhook-signature"));
}

TEST(StandardScheme, SvixNamingRoundTripAndVerifierAcceptsEitherNaming) {
  SchemeOptions svix = scheme(SchemeKind::kStandard);
  svix.naming = HeaderNaming::kSvix;
  const Signer signer = make_signer(svix, {std::string(kVectorSecret)});
  const HttpHeaders headers = signer.sign({kVectorId, kVectorTimestamp, kVectorBody});
  EXPECT_EQ(header_value(headers, "svix-signature"), kVectorSignature);
  EXPECT_EQ(header_value(headers, "svix-id"), kVectorId);
  EXPECT_EQ(header_value(headers, "svix-timestamp"), "1614265330");
  EXPECT_EQ(header_value(headers, "webhook-signature"), "<missing>");
  for (HeaderNaming naming : {HeaderNaming::kWebhook, HeaderNaming::kSvix}) {
    SchemeOptions options = scheme(SchemeKind::kStandard);
    options.naming = naming;
    const Verifier verifier = make_verifier(options, {std::string(kVectorSecret)});
    EXPECT_EQ(outcome(verifier, headers, kVectorBody, kVectorTimestamp), "ok");
    EXPECT_EQ(outcome(verifier, vector_headers(), kVectorBody, kVectorTimestamp), "ok");
  }
}

// Both families: webhook-* then svix-*, the same id, timestamp and signature (the reference
// vector) under each name, so a receiver reading either verifies. Fails if kBoth signs one
// family only, or the families' values differ.
TEST(StandardScheme, BothNamingSignsBothFamiliesWithTheSameValues) {
  SchemeOptions both = scheme(SchemeKind::kStandard);
  both.naming = HeaderNaming::kBoth;
  const Signer signer = make_signer(both, {std::string(kVectorSecret)});
  const HttpHeaders headers = signer.sign({kVectorId, kVectorTimestamp, kVectorBody});
  ASSERT_EQ(headers.size(), 6u);
  const std::vector<std::string> names = {"webhook-id", "webhook-timestamp", "webhook-signature",
                                          "svix-id",    "svix-timestamp",    "svix-signature"};
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(headers[i].name, names[i]);
  for (const std::string family : {"webhook-", "svix-"}) {
    EXPECT_EQ(header_value(headers, family + "id"), kVectorId);
    EXPECT_EQ(header_value(headers, family + "timestamp"), "1614265330");
    EXPECT_EQ(header_value(headers, family + "signature"), kVectorSignature);
  }
  // Each family alone verifies, whatever naming the verifier prefers.
  for (HeaderNaming naming : {HeaderNaming::kWebhook, HeaderNaming::kSvix, HeaderNaming::kBoth}) {
    SchemeOptions options = scheme(SchemeKind::kStandard);
    options.naming = naming;
    const Verifier verifier = make_verifier(options, {std::string(kVectorSecret)});
    for (const std::string drop : {"svix-", "webhook-"}) {
      HttpHeaders one_family = headers;
      for (const char* part : {"id", "timestamp", "signature"}) {
        remove_header(one_family, drop + part);
      }
      EXPECT_EQ(outcome(verifier, one_family, kVectorBody, kVectorTimestamp), "ok") << drop;
    }
    EXPECT_EQ(outcome(verifier, headers, kVectorBody, kVectorTimestamp), "ok");
  }
}

TEST(HeaderNaming, ParsesAndNamesTheThreeNamings) {
  for (HeaderNaming naming : {HeaderNaming::kWebhook, HeaderNaming::kSvix, HeaderNaming::kBoth}) {
    EXPECT_EQ(parse_header_naming(to_string(naming)), naming);
  }
  EXPECT_EQ(to_string(HeaderNaming::kBoth), "both");
  EXPECT_FALSE(parse_header_naming("Svix").has_value());
  EXPECT_FALSE(parse_header_naming("").has_value());
}

TEST(StandardScheme, HeaderNamesAreCaseInsensitive) {
  HttpHeaders headers = {{"Webhook-Id", std::string(kVectorId)},
                         {"WEBHOOK-TIMESTAMP", "1614265330"},
                         {"Webhook-Signature", std::string(kVectorSignature)}};
  const Verifier verifier =
      make_verifier(scheme(SchemeKind::kStandard), {std::string(kVectorSecret)});
  EXPECT_EQ(outcome(verifier, headers, kVectorBody, kVectorTimestamp), "ok");
}

TEST(StandardScheme, RejectsTamperedRequests) {  // A16
  const Verifier verifier =
      make_verifier(scheme(SchemeKind::kStandard), {std::string(kVectorSecret)});
  const std::int64_t now = kVectorTimestamp;

  std::string body(kVectorBody);
  body[10] ^= 1;  // one byte of the body changed
  EXPECT_EQ(outcome(verifier, vector_headers(), body, now), "no_matching_signature");
  // Re-serialized JSON (whitespace removed) is a different byte string.
  EXPECT_EQ(outcome(verifier, vector_headers(), R"({"test":2432232314})", now),
            "no_matching_signature");

  const Verifier wrong = make_verifier(scheme(SchemeKind::kStandard), {std::string(kOtherSecret)});
  EXPECT_EQ(outcome(wrong, vector_headers(), kVectorBody, now), "no_matching_signature");

  HttpHeaders changed_ts = vector_headers();  // timestamp changed, old signature kept
  set_header(changed_ts, "webhook-timestamp", std::to_string(kVectorTimestamp + 1));
  EXPECT_EQ(outcome(verifier, changed_ts, kVectorBody, now), "no_matching_signature");

  HttpHeaders changed_id = vector_headers();
  set_header(changed_id, "webhook-id", "msg_other");
  EXPECT_EQ(outcome(verifier, changed_id, kVectorBody, now), "no_matching_signature");

  HttpHeaders truncated = vector_headers();
  set_header(truncated, "webhook-signature", std::string(kVectorSignature.substr(0, 20)));
  EXPECT_EQ(outcome(verifier, truncated, kVectorBody, now), "no_matching_signature");
  set_header(truncated, "webhook-signature", "v1,");
  EXPECT_EQ(outcome(verifier, truncated, kVectorBody, now), "no_matching_signature");
  set_header(truncated, "webhook-signature", std::string(kVectorSignature.substr(0, 8)));
  EXPECT_EQ(outcome(verifier, truncated, kVectorBody, now), "no_matching_signature");
}

TEST(StandardScheme, TimestampWindowBothDirectionsWithInclusiveEdges) {  // A16 A17
  const Verifier verifier =
      make_verifier(scheme(SchemeKind::kStandard), {std::string(kVectorSecret)});
  const std::int64_t ts = kVectorTimestamp;
  EXPECT_EQ(outcome(verifier, vector_headers(), kVectorBody, ts + 300), "ok");
  EXPECT_EQ(outcome(verifier, vector_headers(), kVectorBody, ts - 300), "ok");
  EXPECT_EQ(outcome(verifier, vector_headers(), kVectorBody, ts + 301), "timestamp_too_old");
  EXPECT_EQ(outcome(verifier, vector_headers(), kVectorBody, ts - 301), "timestamp_too_new");
  EXPECT_EQ(outcome(verifier, vector_headers(), kVectorBody, ts + 86400), "timestamp_too_old");

  SchemeOptions narrow = scheme(SchemeKind::kStandard);
  narrow.tolerance = std::chrono::seconds(10);
  const Verifier strict = make_verifier(narrow, {std::string(kVectorSecret)});
  EXPECT_EQ(outcome(strict, vector_headers(), kVectorBody, ts + 10), "ok");
  EXPECT_EQ(outcome(strict, vector_headers(), kVectorBody, ts + 11), "timestamp_too_old");
  EXPECT_EQ(outcome(strict, vector_headers(), kVectorBody, ts - 11), "timestamp_too_new");
}

TEST(StandardScheme, MissingAndGarbageHeaders) {
  const Verifier verifier =
      make_verifier(scheme(SchemeKind::kStandard), {std::string(kVectorSecret)});
  const std::int64_t now = kVectorTimestamp;
  for (const char* name : {"webhook-id", "webhook-timestamp", "webhook-signature"}) {
    HttpHeaders headers = vector_headers();
    remove_header(headers, name);
    EXPECT_EQ(outcome(verifier, headers, kVectorBody, now), "missing_header") << name;
  }
  EXPECT_EQ(outcome(verifier, {}, kVectorBody, now), "missing_header");

  HttpHeaders headers = vector_headers();
  set_header(headers, "webhook-timestamp", "hello");
  EXPECT_EQ(outcome(verifier, headers, kVectorBody, now), "bad_format");
  set_header(headers, "webhook-timestamp", "-1614265330");
  EXPECT_EQ(outcome(verifier, headers, kVectorBody, now), "bad_format");

  headers = vector_headers();
  set_header(headers, "webhook-signature", "garbage");
  EXPECT_EQ(outcome(verifier, headers, kVectorBody, now), "bad_format");
  set_header(headers, "webhook-signature", "v1,!!!not-base64!!!");
  EXPECT_EQ(outcome(verifier, headers, kVectorBody, now), "no_matching_signature");
}

TEST(StandardScheme, SeveralEntriesAndUnknownVersions) {
  const Verifier verifier =
      make_verifier(scheme(SchemeKind::kStandard), {std::string(kVectorSecret)});
  const std::int64_t now = kVectorTimestamp;
  const std::string decoy = "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=";
  HttpHeaders headers = vector_headers();
  set_header(headers, "webhook-signature",
             decoy + " v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= " +
                 std::string(kVectorSignature) + " " + decoy);
  EXPECT_EQ(outcome(verifier, headers, kVectorBody, now), "ok");

  // The valid MAC under an unknown version tag does not count.
  const std::string mac(kVectorSignature.substr(3));
  set_header(headers, "webhook-signature", "v2," + mac + " v1a," + mac + " v0," + mac);
  EXPECT_EQ(outcome(verifier, headers, kVectorBody, now), "no_matching_signature");
}

TEST(StandardScheme, RotationSignsWithEveryKeyAndVerifiesWithEither) {  // A18
  const std::vector<std::string> both = {std::string(kOtherSecret), std::string(kVectorSecret)};
  const Signer signer = make_signer(scheme(SchemeKind::kStandard), both);
  const HttpHeaders headers = signer.sign({kVectorId, kVectorTimestamp, kVectorBody});
  const std::string value = header_value(headers, "webhook-signature");
  const std::size_t space = value.find(' ');
  ASSERT_NE(space, std::string::npos);
  EXPECT_EQ(value.substr(space + 1), kVectorSignature);
  EXPECT_TRUE(value.starts_with("v1,"));

  for (const std::string& secret : both) {
    const Verifier one = make_verifier(scheme(SchemeKind::kStandard), {secret});
    EXPECT_EQ(outcome(one, headers, kVectorBody, kVectorTimestamp), "ok");
  }
  const Verifier rotating = make_verifier(scheme(SchemeKind::kStandard), both);
  EXPECT_EQ(outcome(rotating, vector_headers(), kVectorBody, kVectorTimestamp), "ok");
  const Verifier unrelated =
      make_verifier(scheme(SchemeKind::kStandard), {"whsec_dW5yZWxhdGVkLXNlY3JldA=="});
  EXPECT_EQ(outcome(unrelated, headers, kVectorBody, kVectorTimestamp), "no_matching_signature");
}

TEST(StandardScheme, RejectsBadSecretsAtCreate) {
  for (const std::string secret : {"", "whsec_", "whsec_not base64!", "whsec_abc=d",
                                   "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw="}) {
    EXPECT_FALSE(Signer::create(scheme(SchemeKind::kStandard), std::vector{secret}))
        << "'" << secret << "'";
    EXPECT_FALSE(Verifier::create(scheme(SchemeKind::kStandard), std::vector{secret}))
        << "'" << secret << "'";
  }
  EXPECT_FALSE(Signer::create(scheme(SchemeKind::kStandard), std::vector<std::string>{}));
}

TEST(StandardScheme, FailureDetailNeverContainsSecretMaterial) {
  const Verifier verifier =
      make_verifier(scheme(SchemeKind::kStandard), {std::string(kVectorSecret)});
  HttpHeaders headers = vector_headers();
  set_header(headers, "webhook-id", "msg_other");
  const auto result = verifier.verify(headers, kVectorBody, kVectorTimestamp);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().detail.find("MfKQ9r8G"), std::string::npos);
  EXPECT_EQ(result.error().detail.find("g0hM9SsE"), std::string::npos);
  const auto bad =
      Signer::create(scheme(SchemeKind::kStandard), std::vector<std::string>{"whsec_sec ret"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message.find("sec ret"), std::string::npos);
}

}  // namespace
}  // namespace hookd
