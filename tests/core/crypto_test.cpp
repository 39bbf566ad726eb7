// HMAC and Ed25519 wrappers against published vectors (RFC 4231, RFC 8032).
#include "core/crypto.hpp"

#include <gtest/gtest.h>

namespace hookd::crypto {
namespace {

Bytes unhex(std::string_view text) { return *hex_decode(text); }

TEST(Hmac, Rfc4231TestCase2) {
  const auto sha256 = HmacKey::create(HashAlgorithm::kSha256, as_bytes("Jefe"));
  const auto sha512 = HmacKey::create(HashAlgorithm::kSha512, as_bytes("Jefe"));
  ASSERT_TRUE(sha256 && sha512);
  EXPECT_EQ(sha256->size(), 32u);
  EXPECT_EQ(sha512->size(), 64u);
  EXPECT_EQ(hex_encode(sha256->mac("what do ya want for nothing?").view()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(hex_encode(sha512->mac("what do ya want for nothing?").view()),
            "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
            "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737");
}

TEST(Hmac, StreamingInPartsEqualsOneShotAndKeyIsReusable) {
  const auto key = HmacKey::create(HashAlgorithm::kSha256, as_bytes("Jefe"));
  ASSERT_TRUE(key);
  const Digest whole = key->mac("what do ya want for nothing?");
  const Digest parts =
      key->begin().update("what do ya ").update("").update("want for nothing?").finish();
  EXPECT_TRUE(equal_constant_time(whole.view(), parts.view()));
  EXPECT_TRUE(equal_constant_time(whole.view(), key->mac("what do ya want for nothing?").view()));
}

TEST(Hmac, RejectsEmptyKey) { EXPECT_FALSE(HmacKey::create(HashAlgorithm::kSha256, ByteView{})); }

TEST(ConstantTimeCompare, ComparesContentAndLength) {
  const Bytes a = {1, 2, 3};
  const Bytes b = {1, 2, 4};
  const Bytes shorter = {1, 2};
  EXPECT_TRUE(equal_constant_time(a, a));
  EXPECT_FALSE(equal_constant_time(a, b));
  EXPECT_FALSE(equal_constant_time(a, shorter));
  EXPECT_TRUE(equal_constant_time(ByteView{}, ByteView{}));
}

// RFC 8032 section 7.1, TEST 1 (empty message) and TEST 2 (one byte 0x72).
TEST(Ed25519, Rfc8032Vectors) {
  const auto key = Ed25519PrivateKey::from_seed(
      unhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"));
  ASSERT_TRUE(key);
  const auto pub = key->public_key().raw();
  EXPECT_EQ(hex_encode(pub), "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  EXPECT_EQ(hex_encode(key->sign("").view()),
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
            "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b");

  const auto key2 = Ed25519PrivateKey::from_seed(
      unhex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"));
  ASSERT_TRUE(key2);
  EXPECT_EQ(hex_encode(key2->public_key().raw()),
            "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c");
  const Bytes signature2 = unhex(
      "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
      "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00");
  EXPECT_EQ(hex_encode(key2->sign("\x72").view()), hex_encode(signature2));
  const auto verifier = Ed25519PublicKey::from_raw(key2->public_key().raw());
  ASSERT_TRUE(verifier);
  EXPECT_TRUE(verifier->verify("\x72", signature2));
  EXPECT_FALSE(verifier->verify("\x73", signature2));
  EXPECT_FALSE(verifier->verify("\x72", ByteView(signature2).first(63)));
}

TEST(Ed25519, RejectsWrongSizes) {
  EXPECT_FALSE(Ed25519PrivateKey::from_seed(Bytes(31, 1)));
  EXPECT_FALSE(Ed25519PrivateKey::from_seed(Bytes(33, 1)));
  EXPECT_FALSE(Ed25519PublicKey::from_raw(Bytes(31, 1)));
}

}  // namespace
}  // namespace hookd::crypto
