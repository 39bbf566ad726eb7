// hmac-hex-ts (the seeds' scheme) and the generic template HMAC scheme. A16 A18.
// Expected values computed with Python's hmac/hashlib (independent of OpenSSL's C API), with
// the same code as the seed's verify(): hmac.new(secret, f"{ts}.".encode() + body, sha256).
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

constexpr std::int64_t kHmacTs = 1700000000;

// ---- hmac-hex-ts ----

constexpr std::string_view kSeedSecret = "seed-secret";
constexpr std::string_view kSeedBody = R"({"order":42})";
constexpr std::string_view kSeedMac =
    "71e1afdfe8272a065187c3e586005c932419aa059e76d101697547007dd7451b";

HttpHeaders seed_headers() {
  return {{"X-Signature", std::string(kSeedMac)}, {"X-Timestamp", std::to_string(kHmacTs)}};
}

TEST(HmacHexTsScheme, SignsLikeTheSeedsPythonCode) {
  const Signer signer = make_signer(scheme(SchemeKind::kHmacHexTs), {std::string(kSeedSecret)});
  const HttpHeaders headers = signer.sign({"ignored", kHmacTs, kSeedBody});
  EXPECT_EQ(headers.size(), 2u);
  EXPECT_EQ(header_value(headers, "X-Signature"), kSeedMac);
  EXPECT_EQ(header_value(headers, "X-Timestamp"), "1700000000");
}

TEST(HmacHexTsScheme, ConfigurableHeaderNamesRoundTrip) {
  SchemeOptions options = scheme(SchemeKind::kHmacHexTs);
  options.hmac_hex_ts.signature_header = "X-Esign-Signature";
  options.hmac_hex_ts.timestamp_header = "X-Esign-Time";
  const HttpHeaders headers = make_signer(options, {"s"}).sign({"", kHmacTs, kSeedBody});
  EXPECT_EQ(header_value(headers, "X-Signature"), "<missing>");
  EXPECT_EQ(header_value(headers, "X-Esign-Time"), "1700000000");
  EXPECT_EQ(outcome(make_verifier(options, {"s"}), headers, kSeedBody, kHmacTs), "ok");
  // The default names are not looked at.
  EXPECT_EQ(outcome(make_verifier(options, {std::string(kSeedSecret)}), seed_headers(), kSeedBody,
                    kHmacTs),
            "missing_header");
}

TEST(HmacHexTsScheme, RejectsTamperedRequests) {  // A16
  const Verifier verifier =
      make_verifier(scheme(SchemeKind::kHmacHexTs), {std::string(kSeedSecret)});
  EXPECT_EQ(outcome(verifier, seed_headers(), kSeedBody, kHmacTs), "ok");
  EXPECT_EQ(outcome(verifier, seed_headers(), R"({"order":43})", kHmacTs), "no_matching_signature");
  EXPECT_EQ(outcome(verifier, seed_headers(), R"({"order": 42})", kHmacTs),
            "no_matching_signature");
  EXPECT_EQ(outcome(make_verifier(scheme(SchemeKind::kHmacHexTs), {"other"}), seed_headers(),
                    kSeedBody, kHmacTs),
            "no_matching_signature");
  HttpHeaders changed = seed_headers();
  set_header(changed, "X-Timestamp", std::to_string(kHmacTs + 60));
  EXPECT_EQ(outcome(verifier, changed, kSeedBody, kHmacTs), "no_matching_signature");
  HttpHeaders truncated = seed_headers();
  set_header(truncated, "X-Signature", std::string(kSeedMac.substr(0, 62)));
  EXPECT_EQ(outcome(verifier, truncated, kSeedBody, kHmacTs), "no_matching_signature");
  set_header(truncated, "X-Signature", std::string(kSeedMac.substr(0, 63)));
  EXPECT_EQ(outcome(verifier, truncated, kSeedBody, kHmacTs), "bad_format");
}

TEST(HmacHexTsScheme, TimestampWindowMissingAndGarbage) {
  const Verifier verifier =
      make_verifier(scheme(SchemeKind::kHmacHexTs), {std::string(kSeedSecret)});
  EXPECT_EQ(outcome(verifier, seed_headers(), kSeedBody, kHmacTs + 300), "ok");
  EXPECT_EQ(outcome(verifier, seed_headers(), kSeedBody, kHmacTs - 300), "ok");
  EXPECT_EQ(outcome(verifier, seed_headers(), kSeedBody, kHmacTs + 301), "timestamp_too_old");
  EXPECT_EQ(outcome(verifier, seed_headers(), kSeedBody, kHmacTs - 301), "timestamp_too_new");
  for (const char* name : {"X-Signature", "X-Timestamp"}) {
    HttpHeaders missing = seed_headers();
    remove_header(missing, name);
    EXPECT_EQ(outcome(verifier, missing, kSeedBody, kHmacTs), "missing_header") << name;
  }
  HttpHeaders garbage = seed_headers();
  set_header(garbage, "X-Signature", "not hex at all");
  EXPECT_EQ(outcome(verifier, garbage, kSeedBody, kHmacTs), "bad_format");
  garbage = seed_headers();
  set_header(garbage, "X-Timestamp", "2023-11-14T22:13:20Z");
  EXPECT_EQ(outcome(verifier, garbage, kSeedBody, kHmacTs), "bad_format");
}

TEST(HmacHexTsScheme, RotationVerifiesWithEitherSecret) {  // A18
  const std::vector<std::string> both = {"new-secret", std::string(kSeedSecret)};
  EXPECT_EQ(outcome(make_verifier(scheme(SchemeKind::kHmacHexTs), both), seed_headers(), kSeedBody,
                    kHmacTs),
            "ok");
  const HttpHeaders signed_new =
      make_signer(scheme(SchemeKind::kHmacHexTs), both).sign({"", kHmacTs, kSeedBody});
  EXPECT_EQ(outcome(make_verifier(scheme(SchemeKind::kHmacHexTs), {"new-secret"}), signed_new,
                    kSeedBody, kHmacTs),
            "ok");
}

TEST(HmacHexTsScheme, BadConfigurationRejectedAtCreate) {
  SchemeOptions options = scheme(SchemeKind::kHmacHexTs);
  EXPECT_FALSE(Signer::create(options, std::vector<std::string>{""}));
  options.hmac_hex_ts.timestamp_header.clear();
  EXPECT_FALSE(Verifier::create(options, std::vector<std::string>{"s"}));
}

// ---- generic hmac ----

constexpr std::string_view kGenericSecret = "generic-secret";
constexpr std::string_view kGenericBody = R"({"a":1})";
// HMAC-SHA512 over "evt_1:1700000000:{"a":1}", base64.
constexpr std::string_view kGenericSha512 =
    "/MIl7Tlr6HEQ1h0Vrkb36uHVGCyZepFaVLMWPAKR3PH4rC0NbA/LoOOslJbb9fgFVK/4mPBCJSQ1fIQV8YcUmg==";
// HMAC-SHA256 over the body alone, base64.
constexpr std::string_view kGenericBodyOnly = "JTVqh0Y6S4+Mw9RhAvniF5SlEauU4zfB+vMH8dmlZ3w=";

SchemeOptions generic_sha512() {
  SchemeOptions options = scheme(SchemeKind::kHmac);
  options.hmac.algorithm = GenericHmacOptions::Algorithm::kSha512;
  options.hmac.encoding = GenericHmacOptions::Encoding::kBase64;
  options.hmac.signature_header = "X-Sig";
  options.hmac.signature_prefix = "v1=";
  options.hmac.content_template = "{id}:{timestamp}:{body}";
  options.hmac.timestamp_header = "X-Ts";
  options.hmac.id_header = "X-Id";
  return options;
}

TEST(GenericHmacScheme, Sha512Base64WithIdTimestampAndPrefix) {
  const HttpHeaders headers = make_signer(generic_sha512(), {std::string(kGenericSecret)})
                                  .sign({"evt_1", kHmacTs, kGenericBody});
  EXPECT_EQ(headers.size(), 3u);
  EXPECT_EQ(header_value(headers, "X-Sig"), "v1=" + std::string(kGenericSha512));
  EXPECT_EQ(header_value(headers, "X-Id"), "evt_1");
  EXPECT_EQ(header_value(headers, "X-Ts"), "1700000000");
  const Verifier verifier = make_verifier(generic_sha512(), {std::string(kGenericSecret)});
  EXPECT_EQ(outcome(verifier, headers, kGenericBody, kHmacTs), "ok");

  HttpHeaders changed_id = headers;
  set_header(changed_id, "X-Id", "evt_2");
  EXPECT_EQ(outcome(verifier, changed_id, kGenericBody, kHmacTs), "no_matching_signature");
  HttpHeaders changed_ts = headers;
  set_header(changed_ts, "X-Ts", std::to_string(kHmacTs - 1));
  EXPECT_EQ(outcome(verifier, changed_ts, kGenericBody, kHmacTs), "no_matching_signature");
  EXPECT_EQ(outcome(verifier, headers, R"({"a":2})", kHmacTs), "no_matching_signature");
  EXPECT_EQ(outcome(verifier, headers, kGenericBody, kHmacTs + 301), "timestamp_too_old");
  EXPECT_EQ(outcome(verifier, headers, kGenericBody, kHmacTs - 301), "timestamp_too_new");
  EXPECT_EQ(outcome(verifier, headers, kGenericBody, kHmacTs - 300), "ok");
  for (const char* name : {"X-Sig", "X-Id", "X-Ts"}) {
    HttpHeaders missing = headers;
    remove_header(missing, name);
    EXPECT_EQ(outcome(verifier, missing, kGenericBody, kHmacTs), "missing_header") << name;
  }
  HttpHeaders unprefixed = headers;
  set_header(unprefixed, "X-Sig", std::string(kGenericSha512));
  EXPECT_EQ(outcome(verifier, unprefixed, kGenericBody, kHmacTs), "bad_format");
  HttpHeaders unpadded = headers;
  set_header(unpadded, "X-Sig", "v1=" + std::string(kGenericSha512.substr(0, 86)));
  EXPECT_EQ(outcome(verifier, unpadded, kGenericBody, kHmacTs), "ok");
  HttpHeaders truncated = headers;
  set_header(truncated, "X-Sig", "v1=" + std::string(kGenericSha512.substr(0, 84)));
  EXPECT_EQ(outcome(verifier, truncated, kGenericBody, kHmacTs), "no_matching_signature");
}

TEST(GenericHmacScheme, WithoutTimestampInTemplateNoWindowIsChecked) {
  SchemeOptions options = scheme(SchemeKind::kHmac);
  options.hmac.encoding = GenericHmacOptions::Encoding::kBase64;
  options.hmac.content_template = "{body}";
  const HttpHeaders headers =
      make_signer(options, {std::string(kGenericSecret)}).sign({"evt", kHmacTs, kGenericBody});
  ASSERT_EQ(headers.size(), 1u);
  EXPECT_EQ(header_value(headers, "X-Signature"), kGenericBodyOnly);
  const Verifier verifier = make_verifier(options, {std::string(kGenericSecret)});
  EXPECT_EQ(outcome(verifier, headers, kGenericBody, 0), "ok");
  EXPECT_EQ(outcome(verifier, headers, kGenericBody, kHmacTs * 2), "ok");
}

TEST(GenericHmacScheme, DefaultsAreHexSha256OverTimestampDotBody) {
  // The defaults coincide with hmac-hex-ts, so the seed vector verifies.
  SchemeOptions options = scheme(SchemeKind::kHmac);
  EXPECT_EQ(outcome(make_verifier(options, {std::string(kSeedSecret)}), seed_headers(), kSeedBody,
                    kHmacTs),
            "ok");
}

TEST(GenericHmacScheme, RotationAndBadConfiguration) {  // A18
  const std::vector<std::string> both = {"new", std::string(kGenericSecret)};
  const HttpHeaders old_signed = make_signer(generic_sha512(), {std::string(kGenericSecret)})
                                     .sign({"evt_1", kHmacTs, kGenericBody});
  EXPECT_EQ(outcome(make_verifier(generic_sha512(), both), old_signed, kGenericBody, kHmacTs),
            "ok");

  SchemeOptions no_body = scheme(SchemeKind::kHmac);
  no_body.hmac.content_template = "{id}.{timestamp}";
  EXPECT_FALSE(Signer::create(no_body, std::vector<std::string>{"s"}));
  SchemeOptions no_header = scheme(SchemeKind::kHmac);
  no_header.hmac.signature_header.clear();
  EXPECT_FALSE(Verifier::create(no_header, std::vector<std::string>{"s"}));
  EXPECT_FALSE(Verifier::create(scheme(SchemeKind::kHmac), std::vector<std::string>{""}));
}

}  // namespace
}  // namespace hookd
