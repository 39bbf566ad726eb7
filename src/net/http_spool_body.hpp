// Internal to the HTTP server adapter: Beast Body types over body_spool.hpp.
// SpoolRequestBody reads a request body into a BodySpool (memory up to its threshold, then a
// temporary file); a spool that cannot write fails the read with errc::io_error.
// FileResponseBody writes a response body from a SpooledBody in 64 KiB chunks.
// Thread-safety: used by one connection's strand only.
#pragma once

#include <algorithm>
#include <boost/asio/buffer.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/optional.hpp>
#include <boost/system/error_code.hpp>
#include <cstdint>
#include <memory>
#include <utility>

#include "net/body_spool.hpp"

namespace hookd::net::detail {

inline boost::system::error_code spool_io_error() {
  return boost::system::errc::make_error_code(boost::system::errc::io_error);
}

struct SpoolRequestBody {
  using value_type = BodySpool;

  class reader {
   public:
    template <bool isRequest, class Fields>
    reader(boost::beast::http::header<isRequest, Fields>&, value_type& body) : body_(body) {}

    void init(const boost::optional<std::uint64_t>&, boost::beast::error_code& ec) { ec = {}; }

    template <class ConstBufferSequence>
    std::size_t put(const ConstBufferSequence& buffers, boost::beast::error_code& ec) {
      std::size_t used = 0;
      for (auto it = boost::asio::buffer_sequence_begin(buffers);
           it != boost::asio::buffer_sequence_end(buffers); ++it) {
        boost::asio::const_buffer buffer = *it;
        if (!body_.append({static_cast<const char*>(buffer.data()), buffer.size()})) {
          ec = spool_io_error();
          return used;
        }
        used += buffer.size();
      }
      ec = {};
      return used;
    }

    void finish(boost::beast::error_code& ec) { ec = {}; }

   private:
    value_type& body_;
  };
};

struct FileResponseBody {
  using value_type = SpooledBodyPtr;

  static std::uint64_t size(const value_type& body) { return body ? body->size() : 0; }

  class writer {
   public:
    using const_buffers_type = boost::asio::const_buffer;

    template <bool isRequest, class Fields>
    writer(const boost::beast::http::header<isRequest, Fields>&, const value_type& body)
        : body_(body) {}

    void init(boost::beast::error_code& ec) { ec = {}; }

    boost::optional<std::pair<const_buffers_type, bool>> get(boost::beast::error_code& ec) {
      ec = {};
      if (!body_ || offset_ >= body_->size()) return boost::none;
      if (!chunk_) chunk_ = std::make_unique<char[]>(kChunk);
      const auto want =
          static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, body_->size() - offset_));
      auto read = body_->read_at(offset_, chunk_.get(), want);
      if (!read || *read == 0) {
        ec = spool_io_error();
        return boost::none;
      }
      offset_ += *read;
      return std::make_pair(const_buffers_type(chunk_.get(), *read), offset_ < body_->size());
    }

   private:
    static constexpr std::size_t kChunk = 64 * 1024;
    const value_type& body_;
    std::uint64_t offset_ = 0;
    std::unique_ptr<char[]> chunk_;
  };
};

}  // namespace hookd::net::detail
