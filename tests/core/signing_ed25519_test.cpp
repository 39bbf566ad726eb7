// Standard Webhooks v1a (Ed25519, whsk_/whpk_ keys). A16 A18.
#include <gtest/gtest.h>

#include "core/crypto.hpp"
#include "core/signing_test_util.hpp"
#include "hookd/encoding.hpp"

namespace hookd {
namespace {

using testing::header_value;
using testing::make_signer;
using testing::make_verifier;
using testing::outcome;
using testing::remove_header;
using testing::scheme;
using testing::set_header;

// RFC 8032 7.1 TEST 1 key pair, in Standard Webhooks serialization.
const std::string kSeedHex = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const std::string kPublicHex = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
const std::string kSecretKey = "whsk_" + base64_encode(*hex_decode(kSeedHex));
const std::string kPublicKey = "whpk_" + base64_encode(*hex_decode(kPublicHex));
// A second key pair (RFC 8032 TEST 2) for rotation and wrong-key cases.
const std::string kOtherSecretKey =
    "whsk_" +
    base64_encode(*hex_decode("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"));

constexpr std::string_view kId = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W";
constexpr std::int64_t kEd25519Ts = 1674087231;
constexpr std::string_view kBody = R"({"type":"contact.created","data":{"id":"1f81eb52"}})";

SchemeOptions ed25519() { return scheme(SchemeKind::kStandardEd25519); }

TEST(StandardEd25519Scheme, SignatureIsEd25519OverIdTimestampBody) {
  const Signer signer = make_signer(ed25519(), {kSecretKey});
  const HttpHeaders headers = signer.sign({kId, kEd25519Ts, kBody});
  const std::string value = header_value(headers, "webhook-signature");
  ASSERT_TRUE(value.starts_with("v1a,"));
  const auto signature = base64_decode(value.substr(4));
  ASSERT_TRUE(signature);
  EXPECT_EQ(signature->size(), 64u);
  // Checked with the primitive directly, independent of the scheme's verifier.
  const auto pub = crypto::Ed25519PublicKey::from_raw(*hex_decode(kPublicHex));
  ASSERT_TRUE(pub);
  EXPECT_TRUE(pub->verify(
      std::string(kId) + "." + std::to_string(kEd25519Ts) + "." + std::string(kBody), *signature));
  EXPECT_EQ(header_value(headers, "webhook-id"), kId);
  EXPECT_EQ(header_value(headers, "webhook-timestamp"), std::to_string(kEd25519Ts));
}

TEST(StandardEd25519Scheme, RoundTripWithSecretOrPublicKeyAndBothNamings) {
  for (HeaderNaming naming : {HeaderNaming::kWebhook, HeaderNaming::kSvix}) {
    SchemeOptions options = ed25519();
    options.naming = naming;
    const HttpHeaders headers = make_signer(options, {kSecretKey}).sign({kId, kEd25519Ts, kBody});
    EXPECT_EQ(header_value(headers, naming == HeaderNaming::kSvix ? "svix-id" : "webhook-id"), kId);
    for (const std::string& key : {kSecretKey, kPublicKey}) {
      EXPECT_EQ(outcome(make_verifier(ed25519(), {key}), headers, kBody, kEd25519Ts), "ok") << key;
    }
  }
}

TEST(StandardEd25519Scheme, RejectsTamperedRequests) {  // A16
  const HttpHeaders headers = make_signer(ed25519(), {kSecretKey}).sign({kId, kEd25519Ts, kBody});
  const Verifier verifier = make_verifier(ed25519(), {kPublicKey});
  std::string body(kBody);
  body[3] ^= 0x20;
  EXPECT_EQ(outcome(verifier, headers, body, kEd25519Ts), "no_matching_signature");
  EXPECT_EQ(outcome(make_verifier(ed25519(), {kOtherSecretKey}), headers, kBody, kEd25519Ts),
            "no_matching_signature");

  HttpHeaders changed = headers;
  set_header(changed, "webhook-timestamp", std::to_string(kEd25519Ts - 1));
  EXPECT_EQ(outcome(verifier, changed, kBody, kEd25519Ts), "no_matching_signature");

  HttpHeaders truncated = headers;
  const std::string value = header_value(headers, "webhook-signature");
  set_header(truncated, "webhook-signature", value.substr(0, value.size() - 4));
  EXPECT_EQ(outcome(verifier, truncated, kBody, kEd25519Ts), "no_matching_signature");

  // A v1 (HMAC) entry or unknown versions never satisfy a v1a verifier.
  HttpHeaders other_versions = headers;
  set_header(other_versions, "webhook-signature",
             "v1," + value.substr(4) + " v2," + value.substr(4));
  EXPECT_EQ(outcome(verifier, other_versions, kBody, kEd25519Ts), "no_matching_signature");

  HttpHeaders garbage = headers;
  set_header(garbage, "webhook-signature", "nonsense");
  EXPECT_EQ(outcome(verifier, garbage, kBody, kEd25519Ts), "bad_format");
}

TEST(StandardEd25519Scheme, TimestampWindowAndMissingHeaders) {
  const HttpHeaders headers = make_signer(ed25519(), {kSecretKey}).sign({kId, kEd25519Ts, kBody});
  const Verifier verifier = make_verifier(ed25519(), {kPublicKey});
  EXPECT_EQ(outcome(verifier, headers, kBody, kEd25519Ts + 300), "ok");
  EXPECT_EQ(outcome(verifier, headers, kBody, kEd25519Ts - 300), "ok");
  EXPECT_EQ(outcome(verifier, headers, kBody, kEd25519Ts + 301), "timestamp_too_old");
  EXPECT_EQ(outcome(verifier, headers, kBody, kEd25519Ts - 301), "timestamp_too_new");
  for (const char* name : {"webhook-id", "webhook-timestamp", "webhook-signature"}) {
    HttpHeaders missing = headers;
    remove_header(missing, name);
    EXPECT_EQ(outcome(verifier, missing, kBody, kEd25519Ts), "missing_header") << name;
  }
}

TEST(StandardEd25519Scheme, RotationSignsTwiceAndEitherKeyVerifies) {  // A18
  const Signer signer = make_signer(ed25519(), {kOtherSecretKey, kSecretKey});
  const HttpHeaders headers = signer.sign({kId, kEd25519Ts, kBody});
  const std::string value = header_value(headers, "webhook-signature");
  ASSERT_NE(value.find(" v1a,"), std::string::npos);
  EXPECT_TRUE(value.starts_with("v1a,"));
  EXPECT_EQ(outcome(make_verifier(ed25519(), {kPublicKey}), headers, kBody, kEd25519Ts), "ok");
  EXPECT_EQ(outcome(make_verifier(ed25519(), {kOtherSecretKey}), headers, kBody, kEd25519Ts), "ok");

  const HttpHeaders single = make_signer(ed25519(), {kSecretKey}).sign({kId, kEd25519Ts, kBody});
  EXPECT_EQ(
      outcome(make_verifier(ed25519(), {kOtherSecretKey, kPublicKey}), single, kBody, kEd25519Ts),
      "ok");
}

TEST(StandardEd25519Scheme, KeyFormatsCheckedAtCreate) {
  const std::vector<std::string> bad = {
      "",
      "whsk_",
      "whsk_not base64",
      "whsk_" + base64_encode(Bytes(16, 1)),  // wrong length
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      base64_encode(*hex_decode(kSeedHex)),  // no prefix: seed or public key? refuse to guess
      "whpk_" + base64_encode(Bytes(31, 1)),
  };
  for (const std::string& key : bad) {
    EXPECT_FALSE(Signer::create(ed25519(), std::vector{key})) << key;
    EXPECT_FALSE(Verifier::create(ed25519(), std::vector{key})) << key;
  }
  // A public key cannot sign.
  EXPECT_FALSE(Signer::create(ed25519(), std::vector{kPublicKey}));
  EXPECT_TRUE(Verifier::create(ed25519(), std::vector{kPublicKey}));
}

TEST(StandardEd25519Scheme, AcceptsSixtyFourByteSecretKeyOnlyIfItsPublicHalfMatches) {
  const Bytes seed = *hex_decode(kSeedHex);
  Bytes full = seed;
  const Bytes pub = *hex_decode(kPublicHex);
  full.insert(full.end(), pub.begin(), pub.end());
  const Signer signer = make_signer(ed25519(), {"whsk_" + base64_encode(full)});
  EXPECT_EQ(outcome(make_verifier(ed25519(), {kPublicKey}), signer.sign({kId, kEd25519Ts, kBody}),
                    kBody, kEd25519Ts),
            "ok");
  full.back() ^= 1;
  EXPECT_FALSE(Signer::create(ed25519(), std::vector{"whsk_" + base64_encode(full)}));
}

}  // namespace
}  // namespace hookd
