// Bodies too large to hold in memory (the idempotency gateway's requests and answers):
// BodySpool collects a body in memory up to a threshold and beyond it in a temporary file,
// computing its size and SHA-256 as the bytes arrive; SpooledBody is the finished file.
// The file is unlinked as soon as it is created, so it disappears when its descriptor is
// closed (the last SpooledBody reference dropped, an error, stop, or a crash) and never
// needs cleaning up.
// Thread-safety: a BodySpool is used by one thread at a time. A SpooledBody is immutable:
// read_at() may be called from several threads at once (pread, no shared offset).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/crypto.hpp"
#include "hookd/result.hpp"

namespace hookd::net {

class SpooledBody {
 public:
  SpooledBody(int fd, std::uint64_t size, std::string sha256_hex);
  ~SpooledBody();  // closes the (already unlinked) file
  SpooledBody(const SpooledBody&) = delete;
  SpooledBody& operator=(const SpooledBody&) = delete;

  std::uint64_t size() const { return size_; }
  const std::string& sha256_hex() const { return sha256_hex_; }
  // Up to `length` bytes from `offset` into `out`; 0 at the end. Fails on an I/O error.
  Result<std::size_t> read_at(std::uint64_t offset, char* out, std::size_t length) const;
  // The whole body in memory (for bodies known to be small enough).
  Result<std::string> read_all() const;

 private:
  int fd_;
  std::uint64_t size_;
  std::string sha256_hex_;
};

using SpooledBodyPtr = std::shared_ptr<const SpooledBody>;

// The directory for spool files when none is configured: $TMPDIR, else /tmp.
std::string default_spool_dir();

class BodySpool {
 public:
  BodySpool() = default;
  // Bytes up to `memory_limit` stay in memory; the first byte beyond moves everything to a
  // file in `dir`.
  BodySpool(std::string dir, std::size_t memory_limit);
  BodySpool(BodySpool&&) noexcept;
  BodySpool& operator=(BodySpool&&) noexcept;
  BodySpool(const BodySpool&) = delete;
  BodySpool& operator=(const BodySpool&) = delete;
  ~BodySpool();

  // Fails when the file cannot be created or written (disk full): the spool is then unusable.
  Status append(std::string_view bytes);
  std::uint64_t size() const { return size_; }
  bool in_file() const { return fd_ >= 0; }
  // The body kept in memory (when !in_file()).
  std::string take_memory() { return std::move(memory_); }
  // The file (when in_file()); the spool is empty afterwards.
  SpooledBodyPtr finish_file();

 private:
  Status spill();
  Status write_all(std::string_view bytes);
  void close_file();

  std::string dir_;
  std::size_t memory_limit_ = 0;
  std::string memory_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::optional<crypto::Sha256Stream> sha_;  // created lazily: only a file needs it
};

}  // namespace hookd::net
