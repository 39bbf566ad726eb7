// Spooled bodies: memory up to a threshold, then an unlinked temporary file (body_spool.hpp).
#include "net/body_spool.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

namespace hookd::net {
namespace {

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

SpooledBody::SpooledBody(int fd, std::uint64_t size, std::string sha256_hex)
    : fd_(fd), size_(size), sha256_hex_(std::move(sha256_hex)) {}

SpooledBody::~SpooledBody() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::size_t> SpooledBody::read_at(std::uint64_t offset, char* out,
                                         std::size_t length) const {
  while (true) {
    auto n = ::pread(fd_, out, length, static_cast<off_t>(offset));
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR) return fail(ErrorCode::kInternal, errno_text("reading a spooled body"));
  }
}

Result<std::string> SpooledBody::read_all() const {
  std::string out(static_cast<std::size_t>(size_), '\0');
  std::size_t done = 0;
  while (done < out.size()) {
    HOOKD_TRY(n, read_at(done, out.data() + done, out.size() - done));
    if (n == 0) return fail(ErrorCode::kInternal, "a spooled body is shorter than recorded");
    done += n;
  }
  return out;
}

std::string default_spool_dir() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? std::string(tmp) : std::string("/tmp");
}

BodySpool::BodySpool(std::string dir, std::size_t memory_limit)
    : dir_(std::move(dir)), memory_limit_(memory_limit) {}

BodySpool::BodySpool(BodySpool&& other) noexcept
    : dir_(std::move(other.dir_)),
      memory_limit_(other.memory_limit_),
      memory_(std::move(other.memory_)),
      fd_(std::exchange(other.fd_, -1)),
      size_(std::exchange(other.size_, 0)),
      sha_(std::move(other.sha_)) {}

BodySpool& BodySpool::operator=(BodySpool&& other) noexcept {
  if (this != &other) {
    close_file();
    dir_ = std::move(other.dir_);
    memory_limit_ = other.memory_limit_;
    memory_ = std::move(other.memory_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = std::exchange(other.size_, 0);
    sha_ = std::move(other.sha_);
  }
  return *this;
}

BodySpool::~BodySpool() { close_file(); }

void BodySpool::close_file() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status BodySpool::append(std::string_view bytes) {
  if (fd_ < 0 && memory_.size() + bytes.size() <= memory_limit_) {
    memory_.append(bytes);
    size_ += bytes.size();
    return {};
  }
  if (fd_ < 0) HOOKD_CHECK(spill());
  HOOKD_CHECK(write_all(bytes));
  sha_->update(bytes);
  size_ += bytes.size();
  return {};
}

// Creates the file (unlinked at once) and moves what memory holds into it.
Status BodySpool::spill() {
  std::string pattern = (dir_.empty() ? default_spool_dir() : dir_) + "/hookd-spool-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) return fail(ErrorCode::kUnavailable, errno_text("creating a spool file"));
  ::unlink(name.data());
  fd_ = fd;
  sha_.emplace();
  std::string memory = std::exchange(memory_, {});
  HOOKD_CHECK(write_all(memory));
  sha_->update(memory);
  return {};
}

Status BodySpool::write_all(std::string_view bytes) {
  while (!bytes.empty()) {
    auto n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      auto error = fail(ErrorCode::kUnavailable, errno_text("writing a spool file"));
      close_file();
      return error;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

SpooledBodyPtr BodySpool::finish_file() {
  if (fd_ < 0) return nullptr;
  auto body =
      std::make_shared<const SpooledBody>(std::exchange(fd_, -1), size_, sha_->finish_hex());
  size_ = 0;
  sha_.reset();
  return body;
}

}  // namespace hookd::net
