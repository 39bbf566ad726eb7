// The idempotency gateway's end-to-end helpers: a counting upstream (a TestReceiver whose
// handler creates one "contract" per request and tells, per request, how to misbehave), a
// hookd config with a [[proxy]] in front of it, and a client call through /proxy/esign.
// The request body's "mode" says what the upstream does:
//   fast          create, 201 {"contract": "c_<n>"}
//   slow:<ms>     create, answer after <ms>
//   hang          create, never answer (the gateway's timeout cuts it)
//   reset         create, then reset the connection (processed, answer lost)
//   lost          reset without creating (not processed)
//   busy          503 without creating
//   big           create, 201 with a 4 KiB body
//   huge          create, 201 with huge_answer() (8 MiB)
// POST /upload (any body, not JSON) creates and answers 201 {"size", "sha256"} of the body it
// received.
// GET /ops/<key> answers 200 {"contract"} for a key it created, 404 otherwise.
// Thread-safety: the upstream's counters are locked; the rest is used from the test thread.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "core/crypto.hpp"
#include "e2e/e2e_support.hpp"
#include "e2e/hookd_process.hpp"
#include "e2e/http_call.hpp"
#include "support/test_receiver.hpp"

namespace hookd::e2e {

// The 8 MiB answer of mode "huge": a pattern that shows a lost, repeated or moved chunk.
inline const std::string& huge_answer() {
  static const std::string bytes = [] {
    std::string out(8 * 1024 * 1024, '\0');
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = static_cast<char>((i * 2654435761u) >> 13);
    }
    return out;
  }();
  return bytes;
}

class CountingUpstream {
 public:
  CountingUpstream() {
    receiver_.set_handler([this](const testing::ReceivedRequest& r) { return answer(r); });
    receiver_.start();
  }
  std::uint16_t port() const { return receiver_.port(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port()); }
  // How many times the operation ran for this Idempotency-Key.
  int created(const std::string& key) const {
    std::lock_guard lock(mu_);
    auto it = created_.find(key);
    return it == created_.end() ? 0 : it->second;
  }
  int total_created() const {
    std::lock_guard lock(mu_);
    int n = 0;
    for (const auto& [k, v] : created_) n += v;
    return n;
  }
  std::size_t requests() const { return receiver_.request_count(); }
  testing::TestReceiver& receiver() { return receiver_; }

 private:
  testing::ReceiverBehavior answer(const testing::ReceivedRequest& r) {
    if (r.method == "GET" && r.path.starts_with("/ops/")) {
      const std::string key = r.path.substr(5);
      std::lock_guard lock(mu_);
      auto it = contracts_.find(key);
      if (it == contracts_.end()) return testing::ReceiverBehavior::respond(404);
      return testing::ReceiverBehavior::respond(200, contract_body(it->second),
                                                {{"Content-Type", "application/json"}});
    }
    if (r.method == "POST" && r.path == "/upload") {
      create(r.header("Idempotency-Key").value_or(""));
      return testing::ReceiverBehavior::respond(
          201,
          nlohmann::json{{"size", r.body.size()}, {"sha256", crypto::sha256_hex(r.body)}}.dump(),
          {{"Content-Type", "application/json"}});
    }
    if (r.method != "POST") {
      return testing::ReceiverBehavior::respond(200, R"({"list":[]})",
                                                {{"Content-Type", "application/json"}});
    }
    const auto body = nlohmann::json::parse(r.body, nullptr, false);
    const std::string mode = body.is_object() ? body.value("mode", "fast") : "fast";
    if (mode == "busy")
      return testing::ReceiverBehavior::respond(503, "busy", {{"Retry-After", "1"}});
    if (mode == "lost") return testing::ReceiverBehavior::reset();
    const std::string id = create(r.header("Idempotency-Key").value_or(""));
    if (mode == "hang") return testing::ReceiverBehavior::hang();
    if (mode == "reset") return testing::ReceiverBehavior::reset();
    if (mode == "huge") {
      return testing::ReceiverBehavior::respond(201, huge_answer(),
                                                {{"Content-Type", "application/octet-stream"}});
    }
    if (mode == "big") {
      return testing::ReceiverBehavior::respond(201, std::string(4096, 'b'),
                                                {{"Content-Type", "text/plain"}});
    }
    auto done = testing::ReceiverBehavior::respond(
        201, contract_body(id), {{"Content-Type", "application/json"}, {"X-Contract", id}});
    if (mode.starts_with("slow:")) return done.after(Millis(std::stoi(mode.substr(5))));
    return done;
  }
  std::string create(const std::string& key) {
    std::lock_guard lock(mu_);
    ++created_[key];
    const std::string id = "c_" + std::to_string(++next_);
    contracts_[key] = id;
    return id;
  }
  static std::string contract_body(const std::string& id) {
    return nlohmann::json{{"contract", id}}.dump();
  }

  testing::TestReceiver receiver_;
  mutable std::mutex mu_;
  std::map<std::string, int> created_;
  std::map<std::string, std::string> contracts_;
  int next_ = 0;
};

// default_test_config() plus one [[proxy]] "esign" in front of `upstream` with this upstream
// timeout; `extra` adds keys.
inline std::string proxy_config(const std::string& upstream, const std::string& timeout = "1s",
                                const std::string& extra = "") {
  std::string out = default_test_config();
  for (const std::string& part :
       {std::string("\n[[proxy]]\nname = \"esign\"\nupstream = \""), upstream,
        std::string("\"\ntimeout = \""), timeout,
        std::string("\"\nconnect_timeout = \"500ms\"\nmax_stored_body = \"1KiB\"\n"), extra}) {
    out.append(part);
  }
  return out;
}

// A client call through the gateway: POST /proxy/esign/contracts with `key`.
inline HttpReply proxied(const HookdProcess& hookd, const std::string& key,
                         const std::string& mode = "fast", const std::string& tenant = "tenant-a",
                         Millis timeout = Millis(10'000)) {
  HttpCall call;
  call.method = "POST";
  call.url = hookd.url("/proxy/esign/contracts");
  call.body = nlohmann::json{{"title", "lease"}, {"mode", mode}}.dump();
  call.headers = {{"Content-Type", "application/json"}, {"Authorization", "Bearer " + tenant}};
  if (!key.empty()) call.headers.emplace_back("Idempotency-Key", key);
  call.timeout = timeout;
  return http_call(call);
}

inline std::string problem_type(const HttpReply& reply) {
  const auto j = reply.json();
  return j.is_object() ? j.value("type", "") : "";
}

inline bool type_is(const HttpReply& reply, const std::string& suffix) {
  return problem_type(reply).ends_with("/" + suffix);
}

}  // namespace hookd::e2e
