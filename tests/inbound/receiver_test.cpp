// The receiver against an in-memory SQLite inbox: the answer for each kind of request, and
// that nothing is stored for a refused one. Group commit runs for real (InboxBatcher).
#include <gtest/gtest.h>

#include <future>

#include "inbound/inbound_fixtures.hpp"
#include "inbound/receiver.hpp"

namespace hookd::inbound {
namespace {

using namespace testing;

class ReceiverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = memory_store(clock_, ids_);
    batcher_ = std::make_unique<InboxBatcher>(*store_, 64, 1024);
    auto c = source_config();
    c.allowed_origins = {"events.example.com"};
    auto ce = source_config(config::Scheme::kCloudEvents);
    ce.name = "ce";
    ce.secrets.clear();
    ce.allowed_origins = {"events.example.com"};
    std::map<std::string, std::shared_ptr<const Source>, std::less<>> sources;
    sources["shop"] = std::make_shared<const Source>(make_source(c));
    sources["ce"] = std::make_shared<const Source>(make_source(ce));
    receiver_ = std::make_unique<Receiver>(
        ReceiverDeps{sources, *batcher_, [] { return kNow; }, nullptr, nullptr, 64});
  }

  net::HttpResponse call(net::HttpRequest request) {
    std::promise<net::HttpResponse> answer;
    auto future = answer.get_future();
    receiver_->handle(std::move(request),
                      [&answer](net::HttpResponse r) { answer.set_value(std::move(r)); });
    return future.get();
  }

  net::HttpRequest post(const std::string& path, const std::string& body,
                        net::HttpHeaders headers) {
    net::HttpRequest r;
    r.method = "POST";
    r.target = path;
    r.body = body;
    r.headers = std::move(headers);
    return r;
  }

  std::size_t stored() {
    return store_->inbox_list(store::InboxFilter{}, store::PageRequest{})->data.size();
  }

  env::FakeClock clock_{kNow * 1000};
  TestIds ids_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<InboxBatcher> batcher_;
  std::unique_ptr<Receiver> receiver_;
};

TEST_F(ReceiverTest, NewAndDuplicateEventsAre200AfterTheCommit) {  // A10, A14
  batcher_->start();
  const std::string body = R"({"a":1})";
  auto first = call(post("/in/shop", body, signed_headers("evt_1", body)));
  EXPECT_EQ(first.status, 200);
  EXPECT_NE(first.body.find(R"("duplicate":false)"), std::string::npos);
  auto again = call(post("/in/shop", body, signed_headers("evt_1", body)));
  EXPECT_EQ(again.status, 200);
  EXPECT_NE(again.body.find(R"("duplicate":true)"), std::string::npos);
  EXPECT_EQ(stored(), 1u);
  auto row = store_->inbox_find("shop", "evt_1");
  ASSERT_TRUE(row);
  EXPECT_EQ(row->payload, body);
  EXPECT_EQ(row->business_key, "shop:evt_1");  // the fallback
  EXPECT_EQ(row->headers.at("content-type"), "application/json");
}

TEST_F(ReceiverTest, RefusalsStoreNothing) {  // A16, A33
  batcher_->start();
  const std::string body = R"({"a":1})";
  auto bad = call(post("/in/shop", body + " ", signed_headers("evt_2", body)));
  EXPECT_EQ(bad.status, 401);
  EXPECT_NE(bad.body.find(R"("reason":"no_matching_signature")"), std::string::npos);
  EXPECT_EQ(bad.body.find(kSecret), std::string::npos);
  const std::string big(2000, 'x');
  EXPECT_EQ(call(post("/in/shop", big, signed_headers("evt_3", big))).status, 413);
  EXPECT_EQ(call(post("/in/nope", body, signed_headers("evt_4", body))).status, 404);
  EXPECT_EQ(call(post("/in/", body, {})).status, 404);
  auto get = post("/in/shop", "", {});
  get.method = "GET";
  EXPECT_EQ(call(get).status, 405);
  EXPECT_EQ(stored(), 0u);
}

TEST_F(ReceiverTest, NotRunningOrStoreFailureIs503) {  // A27 (inbound side)
  const std::string body = R"({"a":1})";
  auto r = call(post("/in/shop", body, signed_headers("evt_5", body)));
  EXPECT_EQ(r.status, 503);
  EXPECT_TRUE(r.headers.contains("Retry-After"));
  EXPECT_EQ(stored(), 0u);
}

TEST_F(ReceiverTest, CloudEventsAbuseProtectionHandshake) {
  net::HttpRequest options;
  options.method = "OPTIONS";
  options.target = "/in/ce";
  options.headers.add("WebHook-Request-Origin", "events.example.com");
  auto ok = call(options);
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.headers.get("WebHook-Allowed-Origin"), "events.example.com");
  options.headers.set("WebHook-Request-Origin", "evil.example.com");
  EXPECT_EQ(call(options).status, 403);
}

TEST_F(ReceiverTest, ManyConcurrentRequestsAreGroupCommitted) {
  batcher_->start();
  std::vector<std::future<net::HttpResponse>> answers;
  std::vector<std::shared_ptr<std::promise<net::HttpResponse>>> promises;
  for (int i = 0; i < 50; ++i) {
    auto p = std::make_shared<std::promise<net::HttpResponse>>();
    answers.push_back(p->get_future());
    const std::string body = R"({"n":)" + std::to_string(i) + "}";
    receiver_->handle(post("/in/shop", body, signed_headers("evt_" + std::to_string(i % 25), body)),
                      [p](net::HttpResponse r) { p->set_value(std::move(r)); });
  }
  for (auto& a : answers) EXPECT_EQ(a.get().status, 200);
  EXPECT_EQ(stored(), 25u);
}

}  // namespace
}  // namespace hookd::inbound
