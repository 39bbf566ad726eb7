// Spooled bodies end to end inside net: BodySpool (memory, then an unlinked file, SHA-256 on
// the way), the server reading a large body under its spool prefix into a file (and only
// there), the client streaming a file body and spooling a large answer, the server writing a
// file body. Each test fails if bytes change, if a large body is kept in memory, or if a
// spool file stays open.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <random>
#include <string>

#include "core/crypto.hpp"
#include "net/body_spool.hpp"
#include "net/http_client.hpp"
#include "net/http_server.hpp"

namespace hookd::net {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kMiB = 1024 * 1024;

std::string random_bytes(std::size_t size, unsigned seed) {
  std::mt19937 random(seed);
  std::string out(size, '\0');
  for (auto& c : out) c = static_cast<char>(random() & 0xff);
  return out;
}

// Open descriptors of spool files in this process (they are unlinked, so "(deleted)").
int open_spool_files() {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    auto target = std::filesystem::read_symlink(entry.path(), ec);
    if (!ec && target.string().find("hookd-spool-") != std::string::npos) ++count;
  }
  return count;
}

SpooledBodyPtr spool_of(const std::string& bytes) {
  BodySpool spool("", 64 * 1024);
  EXPECT_TRUE(spool.append(bytes).has_value());
  return spool.finish_file();
}

AttemptResult send_and_wait(HttpClient& client, OutboundRequest request) {
  auto promise = std::make_shared<std::promise<AttemptResult>>();
  auto future = promise->get_future();
  client.send(std::move(request),
              [promise](AttemptResult result) { promise->set_value(std::move(result)); });
  EXPECT_EQ(future.wait_for(30s), std::future_status::ready);
  return future.get();
}

TEST(BodySpool, SmallBodiesStayInMemoryLargeOnesGoToAFileWithTheirHash) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("hookd-spool-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  BodySpool small(dir.string(), 1024);
  ASSERT_TRUE(small.append(std::string(1024, 'a')).has_value());
  EXPECT_FALSE(small.in_file());
  EXPECT_EQ(small.take_memory(), std::string(1024, 'a'));

  const std::string bytes = random_bytes(3 * kMiB + 17, 1);
  {
    BodySpool large(dir.string(), 1024);
    for (std::size_t at = 0; at < bytes.size(); at += 100'000) {
      ASSERT_TRUE(large.append(std::string_view(bytes).substr(at, 100'000)).has_value());
    }
    ASSERT_TRUE(large.in_file());
    auto body = large.finish_file();
    ASSERT_NE(body, nullptr);
    EXPECT_EQ(body->size(), bytes.size());
    EXPECT_EQ(body->sha256_hex(), crypto::sha256_hex(bytes));
    EXPECT_EQ(body->read_all().value(), bytes);
    EXPECT_TRUE(std::filesystem::is_empty(dir));  // unlinked at once
    EXPECT_EQ(open_spool_files(), 1);
  }
  EXPECT_EQ(open_spool_files(), 0);  // closed with the last reference
  std::filesystem::remove_all(dir);
}

// A server with the spool prefix "/proxy/" whose handler records what it got.
class SpoolServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HttpServerOptions options;
    options.spool_prefix = "/proxy/";
    options.spool_max_body_bytes = 8 * kMiB;
    server_ = std::make_unique<HttpServer>(options, [this](HttpRequest request, Responder respond) {
      HttpResponse response;
      if (request.path() == "/proxy/file") {
        response.file_body = answer_file_;
        return respond(std::move(response));
      }
      {
        std::lock_guard lock(mutex_);
        last_body_ = request.body;
        last_spooled_ = request.spooled;
        open_while_handling_ = open_spool_files();
      }
      response.body =
          request.spooled ? request.spooled->sha256_hex() : crypto::sha256_hex(request.body);
      respond(std::move(response));
    });
    ASSERT_TRUE(server_->start().has_value());
    HttpClientOptions client_options;
    client_options.body_limit = 16 * kMiB;
    client_ = std::make_unique<HttpClient>(client_options);
    client_->start();
  }
  void TearDown() override {
    client_->stop();
    server_->stop(2s);
  }
  std::string url(std::string_view path) const {
    return "http://127.0.0.1:" + std::to_string(server_->local_port()) + std::string(path);
  }
  OutboundRequest post(std::string_view path, std::string body) const {
    OutboundRequest request;
    request.url = url(path);
    request.body = std::move(body);
    return request;
  }

  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<HttpClient> client_;
  SpooledBodyPtr answer_file_;
  std::mutex mutex_;
  std::string last_body_;
  SpooledBodyPtr last_spooled_;
  int open_while_handling_ = 0;
};

TEST_F(SpoolServerTest, LargeBodyUnderThePrefixArrivesInAFileByteExact) {
  const std::string bytes = random_bytes(5 * kMiB, 2);
  auto result = send_and_wait(*client_, post("/proxy/up", bytes));
  ASSERT_TRUE(result.ok()) << result.error_detail;
  EXPECT_EQ(result.status, 200);
  EXPECT_EQ(result.body, crypto::sha256_hex(bytes));
  SpooledBodyPtr spooled;
  {
    std::lock_guard lock(mutex_);
    EXPECT_TRUE(last_body_.empty());  // not held in memory
    EXPECT_EQ(open_while_handling_, 1);
    spooled = std::exchange(last_spooled_, nullptr);
  }
  ASSERT_NE(spooled, nullptr);
  EXPECT_EQ(spooled->size(), bytes.size());
  EXPECT_EQ(spooled->read_all().value(), bytes);
  spooled.reset();
  EXPECT_EQ(open_spool_files(), 0);
}

TEST_F(SpoolServerTest, SmallBodyUnderThePrefixStaysInMemory) {
  auto result = send_and_wait(*client_, post("/proxy/up", "small"));
  ASSERT_TRUE(result.ok()) << result.error_detail;
  std::lock_guard lock(mutex_);
  EXPECT_EQ(last_body_, "small");
  EXPECT_EQ(last_spooled_, nullptr);
}

TEST_F(SpoolServerTest, OtherRoutesKeepTheirLimitAndThePrefixHasItsOwn) {
  auto other = send_and_wait(*client_, post("/api/x", std::string(2 * kMiB, 'x')));
  ASSERT_TRUE(other.ok()) << other.error_detail;
  EXPECT_EQ(other.status, 413);  // max_body_bytes (1 MiB) unchanged
  auto proxied = send_and_wait(*client_, post("/proxy/up", std::string(9 * kMiB, 'x')));
  if (proxied.ok()) {
    EXPECT_EQ(proxied.status, 413);  // above spool_max_body_bytes
  }
  EXPECT_EQ(open_spool_files(), 0);
}

TEST_F(SpoolServerTest, ClientStreamsAFileBodyByteExact) {
  const std::string bytes = random_bytes(5 * kMiB + 3, 3);
  OutboundRequest request;
  request.method = "PUT";
  request.url = url("/proxy/up");
  request.body_file = spool_of(bytes);
  auto result = send_and_wait(*client_, std::move(request));
  ASSERT_TRUE(result.ok()) << result.error_detail;
  EXPECT_EQ(result.status, 200);
  EXPECT_EQ(result.body, crypto::sha256_hex(bytes));
  std::lock_guard lock(mutex_);
  ASSERT_NE(last_spooled_, nullptr);
  EXPECT_EQ(last_spooled_->read_all().value(), bytes);
}

TEST_F(SpoolServerTest, ServerWritesAFileBodyAndTheClientSpoolsIt) {
  const std::string bytes = random_bytes(8 * kMiB, 4);
  answer_file_ = spool_of(bytes);
  OutboundRequest request;
  request.method = "GET";
  request.url = url("/proxy/file");
  request.spool_response_above = 1 * kMiB;
  auto result = send_and_wait(*client_, std::move(request));
  ASSERT_TRUE(result.ok()) << result.error_detail;
  EXPECT_EQ(result.status, 200);
  EXPECT_EQ(result.header("Content-Length").value_or(""), std::to_string(bytes.size()));
  EXPECT_TRUE(result.body.empty());
  EXPECT_FALSE(result.truncated);
  ASSERT_NE(result.body_file, nullptr);
  EXPECT_EQ(result.body_file->size(), bytes.size());
  EXPECT_EQ(result.body_file->sha256_hex(), crypto::sha256_hex(bytes));
  EXPECT_EQ(result.body_file->read_all().value(), bytes);

  // Without spooling the same answer arrives in memory, byte-exact.
  OutboundRequest plain;
  plain.method = "GET";
  plain.url = url("/proxy/file");
  auto in_memory = send_and_wait(*client_, std::move(plain));
  ASSERT_TRUE(in_memory.ok()) << in_memory.error_detail;
  EXPECT_EQ(in_memory.body_file, nullptr);
  EXPECT_EQ(in_memory.body, bytes);
}

TEST_F(SpoolServerTest, SpooledAnswersAreCutAtTheBodyLimitAndSmallOnesStayInMemory) {
  answer_file_ = spool_of(random_bytes(8 * kMiB, 5));
  HttpClientOptions options;
  options.body_limit = 2 * kMiB;
  options.drain_limit = 0;
  HttpClient small(options);
  small.start();
  OutboundRequest request;
  request.method = "GET";
  request.url = url("/proxy/file");
  request.spool_response_above = 1 * kMiB;
  auto cut = send_and_wait(small, request);
  ASSERT_TRUE(cut.ok()) << cut.error_detail;
  EXPECT_TRUE(cut.truncated);
  ASSERT_NE(cut.body_file, nullptr);
  EXPECT_EQ(cut.body_file->size(), 2 * kMiB);

  request.url = url("/proxy/echo");
  request.method = "POST";
  request.body = "tiny";
  auto tiny = send_and_wait(small, request);
  ASSERT_TRUE(tiny.ok()) << tiny.error_detail;
  EXPECT_EQ(tiny.body_file, nullptr);
  EXPECT_EQ(tiny.body, crypto::sha256_hex("tiny"));
  small.stop();
}

}  // namespace
}  // namespace hookd::net
