// Scheme names, header lookup, reason codes, and create() argument checks common to all schemes.
#include <gtest/gtest.h>

#include "core/signing_test_util.hpp"

namespace hookd {
namespace {

constexpr SchemeKind kAllKinds[] = {SchemeKind::kStandard,  SchemeKind::kStandardEd25519,
                                    SchemeKind::kStripe,    SchemeKind::kGithub,
                                    SchemeKind::kHmacHexTs, SchemeKind::kHmac};

TEST(SchemeNames, ParseAndPrintRoundTrip) {
  for (SchemeKind kind : kAllKinds) EXPECT_EQ(parse_scheme(to_string(kind)), kind);
  EXPECT_EQ(parse_scheme("svix"), SchemeKind::kStandard);
  EXPECT_EQ(parse_scheme("Standard"), std::nullopt);
  EXPECT_EQ(parse_scheme(""), std::nullopt);
  EXPECT_EQ(parse_scheme("hmac-sha1"), std::nullopt);
}

TEST(VerifyFailureNames, AreStableCodes) {
  EXPECT_EQ(to_string(VerifyFailure::kMissingHeader), "missing_header");
  EXPECT_EQ(to_string(VerifyFailure::kBadFormat), "bad_format");
  EXPECT_EQ(to_string(VerifyFailure::kTimestampTooOld), "timestamp_too_old");
  EXPECT_EQ(to_string(VerifyFailure::kTimestampTooNew), "timestamp_too_new");
  EXPECT_EQ(to_string(VerifyFailure::kNoMatchingSignature), "no_matching_signature");
}

TEST(FindHeader, CaseInsensitiveFirstMatch) {
  const HttpHeaders headers = {{"Content-Type", "a"}, {"X-Thing", "first"}, {"x-thing", "second"}};
  EXPECT_EQ(find_header(headers, "x-THING"), "first");
  EXPECT_EQ(find_header(headers, "content-type"), "a");
  EXPECT_EQ(find_header(headers, "X-Thin"), std::nullopt);
  EXPECT_EQ(find_header({}, "a"), std::nullopt);
}

TEST(CreateChecks, NoSecretsOrNegativeToleranceRejectedForEveryScheme) {
  for (SchemeKind kind : kAllKinds) {
    SchemeOptions options;
    options.kind = kind;
    EXPECT_FALSE(Signer::create(options, std::vector<std::string>{})) << to_string(kind);
    EXPECT_FALSE(Verifier::create(options, std::vector<std::string>{})) << to_string(kind);
    options.tolerance = std::chrono::seconds(-1);
    EXPECT_FALSE(Verifier::create(options, std::vector<std::string>{"whsec_c2VjcmV0"}));
  }
}

TEST(RoundTrip, EverySchemeVerifiesWhatItSignsAndRejectsAnotherBody) {
  const std::vector<std::string> secrets = {
      "whsec_c2VjcmV0LW9uZQ==",
      "whsk_nWGxne/9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A=",
  };
  for (SchemeKind kind : kAllKinds) {
    SchemeOptions options;
    options.kind = kind;
    const std::string secret = kind == SchemeKind::kStandardEd25519 ? secrets[1] : secrets[0];
    const Signer signer = testing::make_signer(options, {secret});
    const Verifier verifier = testing::make_verifier(options, {secret});
    const std::string body(1024, 'x');
    const HttpHeaders headers = signer.sign({"msg_1", 1'700'000'000, body});
    EXPECT_EQ(testing::outcome(verifier, headers, body, 1'700'000'100), "ok") << to_string(kind);
    EXPECT_EQ(testing::outcome(verifier, headers, body + "x", 1'700'000'100),
              "no_matching_signature")
        << to_string(kind);
    EXPECT_EQ(signer.options().kind, kind);
    EXPECT_EQ(verifier.options().kind, kind);
  }
}

TEST(RoundTrip, EmptyBodyAndBinaryBytes) {
  const std::string binary("\x00\xff\r\n\x01", 5);
  for (SchemeKind kind : {SchemeKind::kStandard, SchemeKind::kStripe, SchemeKind::kGithub}) {
    SchemeOptions options;
    options.kind = kind;
    const Signer signer = testing::make_signer(options, {"whsec_c2VjcmV0LW9uZQ=="});
    const Verifier verifier = testing::make_verifier(options, {"whsec_c2VjcmV0LW9uZQ=="});
    for (const std::string& body : {std::string(), binary}) {
      EXPECT_EQ(testing::outcome(verifier, signer.sign({"m", 5, body}), body, 5), "ok");
    }
    EXPECT_EQ(testing::outcome(verifier, signer.sign({"m", 5, binary}), binary.substr(0, 4), 5),
              "no_matching_signature");
  }
}

}  // namespace
}  // namespace hookd
