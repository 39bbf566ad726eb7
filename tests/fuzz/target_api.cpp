// Fuzz target for the REST API's request handling (JSON bodies, paths, query strings,
// Idempotency-Key): Api::handle on a real SQLite store (publishes group-committed by the real
// app::PublishBatcher) answers every request with a status
// in 200..599 other than 500, and every error is problem+json with a title (A33); an
// accepted publish answers the payload's exact bytes (A38). No dispatcher runs, so nothing
// is sent anywhere; endpoint URLs are only parsed.
#include <filesystem>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>

#include "api/api.hpp"
#include "api/json_body.hpp"
#include "app/publish_batcher.hpp"
#include "env/system_env.hpp"
#include "fuzz/fuzz_target.hpp"
#include "store/id_generator.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::fuzz {

namespace {

constexpr const char* kToken = "tok_fuzz_0123456789abcdef";

// One store + Api for the whole process, removed at exit.
class ApiHarness {
 public:
  ApiHarness() {
    dir_ = std::filesystem::temp_directory_path() / ("hookd-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    store::sqlite::SqliteOptions options;
    options.path = (dir_ / "fuzz.db").string();
    options.synchronous = "OFF";  // durability is not under test here
    auto opened = store::sqlite::SqliteStore::open(options, clock_, ids_);
    expect(opened.has_value(), "fuzz setup: store open failed");
    store_ = std::move(*opened);
    expect(store_->migrate().has_value(), "fuzz setup: migrate failed");
    api::ApiOptions api_options;
    api_options.tokens = {{"fuzz", kToken}};
    publish_ = std::make_unique<app::PublishBatcher>(*store_);
    publish_->start();
    api_ = std::make_unique<api::Api>(api::ApiDeps{*store_, *publish_, clock_, random_, nullptr,
                                                   nullptr, nullptr, std::move(api_options)});
    expect(api_->start().has_value(), "fuzz setup: api start failed");
    endpoints_app_ = create("/api/v1/app", R"({"name":"endpoints"})");
    publish_app_ = create("/api/v1/app", R"({"name":"publish"})");
    endpoint_ = create("/api/v1/app/" + publish_app_ + "/endpoint",
                       R"({"url":"https://receiver.example/hook"})");
  }

  ~ApiHarness() {
    api_->stop();
    publish_->stop();  // answers every queued publish while the Api exists
    api_.reset();
    publish_.reset();
    store_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  net::HttpResponse call(std::string method, std::string target, std::string body,
                         std::string idempotency_key = {}) {
    net::HttpRequest request;
    request.method = std::move(method);
    request.target = std::move(target);
    request.body = std::move(body);
    request.headers.add("Authorization", std::string("Bearer ") + kToken);
    if (!idempotency_key.empty()) request.headers.add("Idempotency-Key", idempotency_key);
    auto promise = std::make_shared<std::promise<net::HttpResponse>>();
    auto future = promise->get_future();
    api_->handle(std::move(request),
                 [promise](net::HttpResponse r) { promise->set_value(std::move(r)); });
    return future.get();
  }

  const std::string& endpoints_app() const { return endpoints_app_; }
  const std::string& publish_app() const { return publish_app_; }
  const std::string& endpoint() const { return endpoint_; }

 private:
  std::string create(const std::string& target, const std::string& body) {
    auto r = call("POST", target, body);
    expect(r.status == 201, "fuzz setup: create failed: " + r.body);
    return nlohmann::json::parse(r.body).at("id").get<std::string>();
  }

  std::filesystem::path dir_;
  env::SystemClock clock_;
  env::SystemRandom random_;
  store::RandomIdGenerator ids_{clock_, random_};
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<app::PublishBatcher> publish_;
  std::unique_ptr<api::Api> api_;
  std::string endpoints_app_, publish_app_, endpoint_;
};

ApiHarness& harness() {
  static ApiHarness h;
  return h;
}

void check_answer(const net::HttpResponse& r, const std::string& what) {
  expect(r.status >= 200 && r.status <= 599, what + ": status out of range");
  expect(r.status != 500, what + ": 500 " + r.body);
  if (r.status < 400) return;
  const auto type = r.headers.get("Content-Type");
  expect(type && type->find("problem+json") != std::string_view::npos,
         what + ": error without problem+json");
  auto json = nlohmann::json::parse(r.body, nullptr, false);
  expect(json.is_object() && json.contains("title") && json["title"].is_string(),
         what + ": problem without a title");
}

// A38: an accepted publish answers valid JSON carrying the payload member's exact bytes.
void check_published_bytes(const std::string& body, const net::HttpResponse& r) {
  check_answer(r, "publish");
  if (r.status != 202) return;
  expect(nlohmann::json::accept(r.body), "publish: the 202 is not valid JSON: " + r.body);
  const auto payload = api::member_text(body, "payload");
  expect(payload && r.body.find("\"payload\":" + std::string(*payload)) != std::string::npos,
         "publish: the 202 does not carry the payload's bytes: " + r.body);
}

std::pair<std::string, std::string> first_line(std::string_view rest) {
  const auto nl = rest.find('\n');
  if (nl == std::string_view::npos) return {std::string(rest), {}};
  return {std::string(rest.substr(0, nl)), std::string(rest.substr(nl + 1))};
}

void run_api(std::string_view input) {
  if (input.empty()) return;
  auto& h = harness();
  const std::string body(input.substr(1));
  const std::string ep_app = "/api/v1/app/" + h.endpoints_app();
  const std::string pub_app = "/api/v1/app/" + h.publish_app();
  const std::string pub_ep = pub_app + "/endpoint/" + h.endpoint();
  switch (static_cast<unsigned char>(input[0]) % 12) {
    case 0:
      return check_answer(h.call("POST", "/api/v1/app", body), "create app");
    case 1:
      return check_answer(h.call("POST", ep_app + "/endpoint", body), "create endpoint");
    case 2:
      return check_answer(h.call("PUT", pub_ep, body), "put endpoint");
    case 3:
      return check_answer(h.call("PATCH", pub_ep, body), "patch endpoint");
    case 4:
      return check_published_bytes(body, h.call("POST", pub_app + "/msg", body));
    case 5: {
      auto [key, rest] = first_line(body);
      return check_answer(h.call("POST", pub_app + "/msg", rest, key), "keyed publish");
    }
    case 6:
      return check_answer(h.call("POST", "/api/v1/event-type", body), "event type");
    case 7:
      return check_answer(h.call("GET", pub_app + "/msg?" + body, ""), "list messages");
    case 8: {
      auto [line, rest] = first_line(body);
      const auto space = line.find(' ');
      const std::string method = space == std::string::npos ? "GET" : line.substr(0, space);
      const std::string target = space == std::string::npos ? line : line.substr(space + 1);
      return check_answer(h.call(method, "/api/v1/" + target, rest), "raw " + method);
    }
    case 9:
      return check_answer(h.call("POST", "/api/v1/hookd/dlq/replay", body), "dlq replay");
    case 10:
      return check_answer(
          h.call("POST",
                 "/api/v1/hookd/app/" + h.publish_app() + "/endpoint/" + h.endpoint() + "/disable",
                 body),
          "disable");
    default:
      return check_answer(h.call("PATCH", pub_app, body), "patch app");
  }
}

}  // namespace

FuzzTarget api_target() {
  return {
      "api",
      run_api,
      {std::string(1, '\0') + R"({"name":"Shop","uid":"shop-1","metadata":{"a":"b"}})",
       std::string(1, '\1') +
           R"({"url":"https://a.example/h","filterTypes":["x"],"channels":["c"],"rateLimit":5,"secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"})",
       std::string(1, '\2') +
           R"({"url":"https://b.example/h","fifo":true,"retryPolicy":{"maxAttempts":3,"scheduleMs":[1,2]}})",
       std::string(1, '\3') + R"({"disabled":false,"headers":{"X-A":"1"}})",
       std::string(1, '\4') +
           R"({"eventType":"order.paid","payload":{"order":1},"orderingKey":"k","channels":["c"]})",
       std::string(1, '\5') + "key-1\n" + R"({"eventType":"a","payload":{}})",
       std::string(1, '\6') + R"({"name":"order.paid","description":"d"})",
       std::string(1, '\7') +
           "limit=10&iterator=msg_2bPQ9fAkvLxC1uSJ3nZtY0wHc7E&before=2026-01-01T00:00:00Z",
       std::string(1, '\x08') + "GET app?limit=1",
       std::string(1, '\x09') + R"({"ids":["dlv_1"],"reason":"fixed"})",
       std::string(1, '\x0a') + R"({"reason":"maintenance"})",
       std::string(1, '\x0b') + R"({"name":"renamed"})"},
      {"{",
       "}",
       "[",
       "]",
       "\"",
       ":",
       ",",
       "null",
       "true",
       "1e999",
       "-0",
       "\\u0000",
       "\\ud800",
       "\"payload\":",
       "\"eventType\":",
       "\"url\":",
       "http://127.0.0.1/",
       "https://[::1]:8/",
       "\"retryPolicy\":",
       "\"headers\":",
       "\"orderingKey\":",
       "%00",
       "%ff",
       "&limit=",
       "iterator=",
       "msg_",
       "ep_",
       "app_",
       "../",
       "\xff\xfe"}};
}

}  // namespace hookd::fuzz
