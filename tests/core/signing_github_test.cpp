// GitHub: X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>, no timestamp. A15 A16.
#include <gtest/gtest.h>

#include "core/signing_test_util.hpp"

namespace hookd {
namespace {

using testing::header_value;
using testing::make_signer;
using testing::make_verifier;
using testing::outcome;
using testing::scheme;

// GitHub's documented example ("Validating webhook deliveries", docs.github.com).
constexpr std::string_view kSecret = "It's a Secret to Everybody";
constexpr std::string_view kPayload = "Hello, World!";
constexpr std::string_view kSignature =
    "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

HttpHeaders github_header(std::string value) { return {{"X-Hub-Signature-256", std::move(value)}}; }

TEST(GithubScheme, SignsGithubsDocumentedExample) {  // A15
  const Signer signer = make_signer(scheme(SchemeKind::kGithub), {std::string(kSecret)});
  const HttpHeaders headers = signer.sign({"id", 123, kPayload});
  ASSERT_EQ(headers.size(), 1u);
  EXPECT_EQ(header_value(headers, "X-Hub-Signature-256"), kSignature);
}

TEST(GithubScheme, VerifiesAtAnyTimeAndInAnyHexCase) {
  const Verifier verifier = make_verifier(scheme(SchemeKind::kGithub), {std::string(kSecret)});
  // No timestamp in this scheme: "now" does not matter.
  EXPECT_EQ(outcome(verifier, github_header(std::string(kSignature)), kPayload, 0), "ok");
  EXPECT_EQ(outcome(verifier, github_header(std::string(kSignature)), kPayload, 4'000'000'000),
            "ok");
  EXPECT_EQ(outcome(verifier,
                    github_header("SHA256=757107EA0EB2509FC211221CCE984B8A37570B6D7586C22C46F4379C"
                                  "8B043E17"),
                    kPayload, 0),
            "ok");
  EXPECT_EQ(outcome(verifier, {{"x-hub-signature-256", std::string(kSignature)}}, kPayload, 0),
            "ok");
}

TEST(GithubScheme, RejectsTamperedRequests) {  // A16
  const Verifier verifier = make_verifier(scheme(SchemeKind::kGithub), {std::string(kSecret)});
  const HttpHeaders good = github_header(std::string(kSignature));
  EXPECT_EQ(outcome(verifier, good, "Hello, World?", 0), "no_matching_signature");
  EXPECT_EQ(outcome(make_verifier(scheme(SchemeKind::kGithub), {"wrong"}), good, kPayload, 0),
            "no_matching_signature");
  EXPECT_EQ(outcome(verifier, github_header(std::string(kSignature.substr(0, 69))), kPayload, 0),
            "no_matching_signature");
  EXPECT_EQ(outcome(verifier, github_header(std::string(kSignature.substr(0, 70))), kPayload, 0),
            "bad_format");
}

TEST(GithubScheme, MissingAndGarbageHeaders) {
  const Verifier verifier = make_verifier(scheme(SchemeKind::kGithub), {std::string(kSecret)});
  EXPECT_EQ(outcome(verifier, {}, kPayload, 0), "missing_header");
  // The legacy SHA-1 header is not accepted in place of the SHA-256 one.
  EXPECT_EQ(outcome(verifier, {{"X-Hub-Signature", "sha1=abcd"}}, kPayload, 0), "missing_header");
  EXPECT_EQ(outcome(verifier, github_header("garbage"), kPayload, 0), "bad_format");
  EXPECT_EQ(outcome(verifier, github_header(std::string(kSignature.substr(7))), kPayload, 0),
            "bad_format");  // hex without "sha256="
  EXPECT_EQ(
      outcome(verifier, github_header("sha1=" + std::string(kSignature.substr(7))), kPayload, 0),
      "bad_format");
}

TEST(GithubScheme, RotationSignsWithFirstSecretAndVerifiesWithEither) {  // A18
  const std::vector<std::string> both = {"new secret", std::string(kSecret)};
  const Verifier verifier = make_verifier(scheme(SchemeKind::kGithub), both);
  EXPECT_EQ(outcome(verifier, github_header(std::string(kSignature)), kPayload, 0), "ok");
  const HttpHeaders signed_new =
      make_signer(scheme(SchemeKind::kGithub), both).sign({"", 0, kPayload});
  EXPECT_EQ(outcome(verifier, signed_new, kPayload, 0), "ok");
  EXPECT_EQ(
      outcome(make_verifier(scheme(SchemeKind::kGithub), {"new secret"}), signed_new, kPayload, 0),
      "ok");
}

TEST(GithubScheme, RejectsEmptySecretAtCreate) {
  EXPECT_FALSE(Signer::create(scheme(SchemeKind::kGithub), std::vector<std::string>{""}));
  EXPECT_FALSE(Verifier::create(scheme(SchemeKind::kGithub), std::vector<std::string>{}));
}

}  // namespace
}  // namespace hookd
