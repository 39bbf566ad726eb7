// Cryptographic primitives for the signature schemes, on top of OpenSSL 3: keyed HMAC
// (SHA-256/512), SHA-256, Ed25519 sign/verify, constant-time comparison.
// Keys are prepared once (HmacKey::create, Ed25519*Key::from_*) so the hot path only feeds
// data. Failures of OpenSSL on valid, prepared keys are bugs (out of memory) and abort.
// Thread-safety: prepared keys are immutable; HmacKey::begin() and the Ed25519 operations may
// be called concurrently from many threads (each call works on its own context).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "hookd/encoding.hpp"
#include "hookd/result.hpp"

// OpenSSL types, declared here to keep <openssl/*.h> out of the header.
struct evp_mac_ctx_st;
struct evp_pkey_st;
struct evp_md_ctx_st;

namespace hookd::crypto {

enum class HashAlgorithm { kSha256, kSha512 };

// A MAC or signature of at most 64 bytes, kept inline (no allocation on the hot path).
struct Digest {
  std::array<std::uint8_t, 64> bytes{};
  std::size_t size = 0;
  ByteView view() const { return {bytes.data(), size}; }
};

using Sha256 = std::array<std::uint8_t, 32>;
// SHA-256 of `data` (fingerprints, token hashes, tenant scopes).
Sha256 sha256(std::string_view data);
std::string sha256_hex(std::string_view data);  // lowercase hex

// SHA-256 over data fed in parts (spooled bodies); finish_hex() once, equal to sha256_hex()
// of the concatenation. One object per computation, not shared between threads.
class Sha256Stream {
 public:
  Sha256Stream();
  Sha256Stream(Sha256Stream&& other) noexcept;
  Sha256Stream& operator=(Sha256Stream&& other) noexcept;
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;
  ~Sha256Stream();
  Sha256Stream& update(std::string_view data);
  std::string finish_hex();

 private:
  evp_md_ctx_st* ctx_;
};

// Compares in time that depends only on the lengths (equal lengths: on neither content).
bool equal_constant_time(ByteView a, ByteView b);

class HmacStream;

// An HMAC key with its inner/outer pads already processed.
class HmacKey {
 public:
  // Fails on an empty key.
  static Result<HmacKey> create(HashAlgorithm algorithm, ByteView key);

  HmacStream begin() const;
  Digest mac(std::string_view data) const;
  std::size_t size() const;  // 32 or 64 bytes

 private:
  HmacKey(std::shared_ptr<evp_mac_ctx_st> keyed, std::size_t size);
  std::shared_ptr<evp_mac_ctx_st> keyed_;  // template context, only duplicated
  std::size_t size_;
};

// One MAC computation: feed parts in order, then finish once.
class HmacStream {
 public:
  HmacStream(HmacStream&&) noexcept;
  HmacStream& operator=(HmacStream&&) noexcept;
  ~HmacStream();
  HmacStream& update(std::string_view data);
  Digest finish();

 private:
  friend class HmacKey;
  explicit HmacStream(evp_mac_ctx_st* ctx);
  evp_mac_ctx_st* ctx_;
};

constexpr std::size_t kEd25519KeySize = 32;
constexpr std::size_t kEd25519SignatureSize = 64;
using Ed25519Raw = std::array<std::uint8_t, kEd25519KeySize>;

class Ed25519PublicKey {
 public:
  static Result<Ed25519PublicKey> from_raw(ByteView raw);  // 32 bytes
  bool verify(std::string_view message, ByteView signature) const;
  Ed25519Raw raw() const;

 private:
  explicit Ed25519PublicKey(std::shared_ptr<evp_pkey_st> key);
  std::shared_ptr<evp_pkey_st> key_;
};

class Ed25519PrivateKey {
 public:
  static Result<Ed25519PrivateKey> from_seed(ByteView seed);  // 32 bytes (RFC 8032 secret)
  Digest sign(std::string_view message) const;                // 64 bytes
  Ed25519PublicKey public_key() const;

 private:
  explicit Ed25519PrivateKey(std::shared_ptr<evp_pkey_st> key);
  std::shared_ptr<evp_pkey_st> key_;
};

}  // namespace hookd::crypto
