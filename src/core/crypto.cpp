// OpenSSL 3 EVP implementation of src/core/crypto.hpp.
#include "core/crypto.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace hookd::crypto {
namespace {

// OpenSSL failing on a prepared key means memory exhaustion or a bug: not a data error.
void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "hookd: OpenSSL failure in %s\n", what);
    std::abort();
  }
}

EVP_MAC* hmac_algorithm() {
  // Fetched once: fetching takes a global lock and is the slow part of an ad-hoc MAC.
  static EVP_MAC* const mac = EVP_MAC_fetch(nullptr, OSSL_MAC_NAME_HMAC, nullptr);
  require(mac != nullptr, "EVP_MAC_fetch(HMAC)");
  return mac;
}

std::shared_ptr<evp_pkey_st> own(EVP_PKEY* key) { return {key, EVP_PKEY_free}; }

}  // namespace

Sha256 sha256(std::string_view data) {
  Sha256 out{};
  unsigned int size = 0;
  require(EVP_Digest(data.data(), data.size(), out.data(), &size, EVP_sha256(), nullptr) == 1,
          "EVP_Digest(SHA-256)");
  return out;
}

std::string sha256_hex(std::string_view data) {
  const Sha256 digest = sha256(data);
  return hex_encode(ByteView(digest.data(), digest.size()));
}

Sha256Stream::Sha256Stream() : ctx_(EVP_MD_CTX_new()) {
  require(ctx_ != nullptr && EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) == 1,
          "EVP_DigestInit_ex(SHA-256)");
}

Sha256Stream::Sha256Stream(Sha256Stream&& other) noexcept
    : ctx_(std::exchange(other.ctx_, nullptr)) {}

Sha256Stream& Sha256Stream::operator=(Sha256Stream&& other) noexcept {
  std::swap(ctx_, other.ctx_);
  return *this;
}

Sha256Stream::~Sha256Stream() { EVP_MD_CTX_free(ctx_); }

Sha256Stream& Sha256Stream::update(std::string_view data) {
  require(ctx_ != nullptr && EVP_DigestUpdate(ctx_, data.data(), data.size()) == 1,
          "EVP_DigestUpdate(SHA-256)");
  return *this;
}

std::string Sha256Stream::finish_hex() {
  Sha256 out{};
  unsigned int size = 0;
  require(ctx_ != nullptr && EVP_DigestFinal_ex(ctx_, out.data(), &size) == 1,
          "EVP_DigestFinal_ex(SHA-256)");
  return hex_encode(ByteView(out.data(), out.size()));
}

bool equal_constant_time(ByteView a, ByteView b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

// ---- HMAC ----

HmacKey::HmacKey(std::shared_ptr<evp_mac_ctx_st> keyed, std::size_t size)
    : keyed_(std::move(keyed)), size_(size) {}

Result<HmacKey> HmacKey::create(HashAlgorithm algorithm, ByteView key) {
  if (key.empty()) return fail(ErrorCode::kInvalidArgument, "HMAC key is empty");
  std::shared_ptr<evp_mac_ctx_st> ctx(EVP_MAC_CTX_new(hmac_algorithm()), EVP_MAC_CTX_free);
  require(ctx != nullptr, "EVP_MAC_CTX_new");
  char digest[16] = "SHA256";
  if (algorithm == HashAlgorithm::kSha512) std::snprintf(digest, sizeof digest, "SHA512");
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_end(),
  };
  require(EVP_MAC_init(ctx.get(), key.data(), key.size(), params) == 1, "EVP_MAC_init");
  const std::size_t size = EVP_MAC_CTX_get_mac_size(ctx.get());
  require(size == 32 || size == 64, "EVP_MAC_CTX_get_mac_size");
  return HmacKey(std::move(ctx), size);
}

std::size_t HmacKey::size() const { return size_; }

HmacStream HmacKey::begin() const {
  // Duplicating the keyed context copies the processed pads; it only reads the template.
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_dup(keyed_.get());
  require(ctx != nullptr, "EVP_MAC_CTX_dup");
  return HmacStream(ctx);
}

Digest HmacKey::mac(std::string_view data) const { return begin().update(data).finish(); }

HmacStream::HmacStream(evp_mac_ctx_st* ctx) : ctx_(ctx) {}
HmacStream::HmacStream(HmacStream&& other) noexcept : ctx_(std::exchange(other.ctx_, nullptr)) {}
HmacStream& HmacStream::operator=(HmacStream&& other) noexcept {
  std::swap(ctx_, other.ctx_);
  return *this;
}
HmacStream::~HmacStream() { EVP_MAC_CTX_free(ctx_); }

HmacStream& HmacStream::update(std::string_view data) {
  if (!data.empty()) {
    require(
        EVP_MAC_update(ctx_, reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1,
        "EVP_MAC_update");
  }
  return *this;
}

Digest HmacStream::finish() {
  Digest out;
  require(EVP_MAC_final(ctx_, out.bytes.data(), &out.size, out.bytes.size()) == 1, "EVP_MAC_final");
  return out;
}

// ---- Ed25519 ----

Ed25519PublicKey::Ed25519PublicKey(std::shared_ptr<evp_pkey_st> key) : key_(std::move(key)) {}

Result<Ed25519PublicKey> Ed25519PublicKey::from_raw(ByteView raw) {
  if (raw.size() != kEd25519KeySize) {
    return fail(ErrorCode::kInvalidArgument, "Ed25519 public key must be 32 bytes");
  }
  EVP_PKEY* key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, raw.data(), raw.size());
  if (key == nullptr) return fail(ErrorCode::kInvalidArgument, "invalid Ed25519 public key");
  return Ed25519PublicKey(own(key));
}

bool Ed25519PublicKey::verify(std::string_view message, ByteView signature) const {
  if (signature.size() != kEd25519SignatureSize) return false;
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  require(ctx != nullptr, "EVP_MD_CTX_new");
  require(EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key_.get()) == 1,
          "EVP_DigestVerifyInit");
  return EVP_DigestVerify(ctx.get(), signature.data(), signature.size(),
                          reinterpret_cast<const unsigned char*>(message.data()),
                          message.size()) == 1;
}

Ed25519Raw Ed25519PublicKey::raw() const {
  Ed25519Raw out{};
  std::size_t size = out.size();
  require(EVP_PKEY_get_raw_public_key(key_.get(), out.data(), &size) == 1 && size == out.size(),
          "EVP_PKEY_get_raw_public_key");
  return out;
}

Ed25519PrivateKey::Ed25519PrivateKey(std::shared_ptr<evp_pkey_st> key) : key_(std::move(key)) {}

Result<Ed25519PrivateKey> Ed25519PrivateKey::from_seed(ByteView seed) {
  if (seed.size() != kEd25519KeySize) {
    return fail(ErrorCode::kInvalidArgument, "Ed25519 secret key seed must be 32 bytes");
  }
  EVP_PKEY* key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, seed.data(), seed.size());
  if (key == nullptr) return fail(ErrorCode::kInvalidArgument, "invalid Ed25519 secret key");
  return Ed25519PrivateKey(own(key));
}

Digest Ed25519PrivateKey::sign(std::string_view message) const {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  require(ctx != nullptr, "EVP_MD_CTX_new");
  require(EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key_.get()) == 1,
          "EVP_DigestSignInit");
  Digest out;
  out.size = kEd25519SignatureSize;
  require(
      EVP_DigestSign(ctx.get(), out.bytes.data(), &out.size,
                     reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1 &&
          out.size == kEd25519SignatureSize,
      "EVP_DigestSign");
  return out;
}

Ed25519PublicKey Ed25519PrivateKey::public_key() const {
  Ed25519Raw raw{};
  std::size_t size = raw.size();
  require(EVP_PKEY_get_raw_public_key(key_.get(), raw.data(), &size) == 1 && size == raw.size(),
          "EVP_PKEY_get_raw_public_key");
  auto key = Ed25519PublicKey::from_raw(raw);
  require(key.has_value(), "Ed25519 public key derivation");
  return *std::move(key);
}

}  // namespace hookd::crypto
