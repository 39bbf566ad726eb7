// The idempotency gateway through the real daemon (SQLite) in front of a counting upstream
// (proxy_helpers.hpp): A13 — a client that times out and retries creates one resource; an
// outcome that may have happened is never re-sent — and each rule of docs/proxy.md, with
// concurrent same-key requests and kill -9 at random moments under keyed load.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>
#include <thread>

#include "e2e/proxy_helpers.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;

// `hookd idem <args>` on the daemon's own files.
RunOutput idem(const HookdProcess& hookd, std::vector<std::string> args) {
  args.insert(args.begin(), "idem");
  args.insert(args.end(),
              {"--config", hookd.config_file().string(), "--database", hookd.database().string()});
  return hookd.run_command(args);
}

std::string unknown_keys_listed(const HookdProcess& hookd) {
  return idem(hookd, {"list", "--state", "unknown", "--json"}).out;
}

TEST(ProxyE2E, ClientThatTimesOutAndRetriesCreatesOneResource) {  // A13
  CountingUpstream upstream;
  HookdProcess hookd(proxy_config(upstream.url(), "5s"));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  // The first try gives up after 300 ms while the upstream takes 1.5 s to create.
  auto first = proxied(hookd, "contract-1", "slow:1500", "tenant-a", 300ms);
  EXPECT_EQ(first.status, 0) << "the client should have timed out";
  // The client retries (same key, same body) until it gets an answer that is not 409.
  HttpReply last;
  bool settled = eventually([&] {
    last = proxied(hookd, "contract-1", "slow:1500");
    if (last.status == 409) {
      EXPECT_TRUE(type_is(last, "request-in-progress")) << last.body;
      EXPECT_TRUE(last.header("Retry-After").has_value());
    }
    return last.status != 409;
  });
  ASSERT_TRUE(settled);
  EXPECT_EQ(last.status, 201);
  EXPECT_EQ(last.header("Idempotent-Replayed").value_or(""), "true");
  EXPECT_EQ(last.json().value("contract", ""), "c_1");
  EXPECT_EQ(upstream.created("contract-1"), 1);
  // More retries, even much later, still replay.
  for (int i = 0; i < 5; ++i) EXPECT_EQ(proxied(hookd, "contract-1", "slow:1500").status, 201);
  EXPECT_EQ(upstream.created("contract-1"), 1);
}

TEST(ProxyE2E, ConcurrentSameKeyRequestsReachTheUpstreamOnce) {
  CountingUpstream upstream;
  HookdProcess hookd(proxy_config(upstream.url()));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  for (int round = 0; round < 10; ++round) {
    const std::string key = "race-" + std::to_string(round);
    std::atomic<int> created{0}, replayed{0}, in_progress{0}, other{0};
    std::vector<std::jthread> clients;
    for (int c = 0; c < 12; ++c) {
      clients.emplace_back([&] {
        auto r = proxied(hookd, key, "slow:50");
        if (r.status == 201 && r.header("Idempotent-Replayed")) {
          ++replayed;
        } else if (r.status == 201) {
          ++created;
        } else if (r.status == 409 && type_is(r, "request-in-progress")) {
          ++in_progress;
        } else {
          ++other;
        }
      });
    }
    for (auto& t : clients) t.join();
    EXPECT_EQ(upstream.created(key), 1) << "round " << round;
    EXPECT_EQ(created.load(), 1) << "round " << round;
    EXPECT_EQ(other.load(), 0) << "round " << round;
    EXPECT_EQ(created + replayed + in_progress, 12);
  }
}

TEST(ProxyE2E, SentThenNoAnswerIsUnknownAndNeverResentUntilAPersonResolves) {
  CountingUpstream upstream;
  HookdProcess hookd(proxy_config(upstream.url()));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  auto hung = proxied(hookd, "k-hang", "hang");
  EXPECT_EQ(hung.status, 504);
  EXPECT_TRUE(type_is(hung, "outcome-unknown")) << hung.body;
  auto reset = proxied(hookd, "k-reset", "reset");
  EXPECT_EQ(reset.status, 502);
  EXPECT_TRUE(type_is(reset, "outcome-unknown")) << reset.body;
  for (int i = 0; i < 5; ++i) {
    for (const char* key : {"k-hang", "k-reset"}) {
      auto again = proxied(hookd, key, key == std::string("k-hang") ? "hang" : "reset");
      EXPECT_EQ(again.status, 409);
      EXPECT_TRUE(type_is(again, "outcome-unknown")) << again.body;
    }
  }
  EXPECT_EQ(upstream.created("k-hang"), 1);
  EXPECT_EQ(upstream.created("k-reset"), 1);
  EXPECT_EQ(upstream.requests(), 2u) << "an unknown outcome was sent again";

  // Visible: the API, the CLI and the gauge.
  auto listed = hookd.get("/api/v1/hookd/idempotency?proxy=esign&state=unknown");
  ASSERT_EQ(listed.status, 200) << listed.body;
  ASSERT_EQ(listed.json()["data"].size(), 2u);
  EXPECT_NE(unknown_keys_listed(hookd).find("k-hang"), std::string::npos);
  auto metrics = hookd.get("/metrics").body;
  EXPECT_NE(metrics.find("hookd_proxy_unknown_keys{proxy=\"esign\"} 2"), std::string::npos)
      << metrics;

  // A person resolves k-hang as completed with its answer, k-reset as not executed.
  std::string hang_id, reset_id;
  const auto listed_json = listed.json();
  for (const auto& k : listed_json["data"]) {
    (k["key"] == "k-hang" ? hang_id : reset_id) = k["id"].get<std::string>();
  }
  auto no_reason =
      hookd.post("/api/v1/hookd/idempotency/" + hang_id + "/resolve", R"({"outcome":"completed"})");
  EXPECT_EQ(no_reason.status, 422);
  auto resolved = hookd.post(
      "/api/v1/hookd/idempotency/" + hang_id + "/resolve",
      R"({"outcome":"completed","reason":"upstream shows contract c_1","response":{"status":201,"headers":{"Content-Type":"application/json"},"body":"{\"contract\":\"c_1\"}"}})");
  ASSERT_EQ(resolved.status, 200) << resolved.body;
  EXPECT_EQ(resolved.json()["state"], "completed");
  auto twice = hookd.post("/api/v1/hookd/idempotency/" + hang_id + "/resolve",
                          R"({"outcome":"not_executed","reason":"again"})");
  EXPECT_EQ(twice.status, 409) << "only an unknown key can be resolved";
  auto replay = proxied(hookd, "k-hang", "hang");
  EXPECT_EQ(replay.status, 201);
  EXPECT_EQ(replay.body, R"({"contract":"c_1"})");
  EXPECT_EQ(replay.header("Idempotent-Replayed").value_or(""), "true");

  auto cli = idem(hookd, {"resolve", reset_id, "--outcome", "not_executed", "--reason",
                          "no contract upstream", "--actor", "ops-anna"});
  EXPECT_EQ(cli.exit_code, 0) << cli.err;
  auto rerun = proxied(hookd, "k-reset", "fast");
  EXPECT_EQ(rerun.status, 201);
  EXPECT_EQ(upstream.created("k-reset"), 2) << "released by a person: the retry runs";

  auto audit = hookd.get("/api/v1/hookd/audit?action=proxy_key.resolve");
  ASSERT_EQ(audit.status, 200);
  EXPECT_EQ(audit.json()["data"].size(), 2u) << audit.body;
  EXPECT_NE(audit.body.find("ops-anna"), std::string::npos);
}

TEST(ProxyE2E, StatusUrlResolvesUnknownOutcomes) {
  CountingUpstream upstream;
  HookdProcess hookd(proxy_config(
      upstream.url(), "1s",
      "status_url = \"" + upstream.url() + "/ops/{key}\"\nstatus_interval = \"200ms\"\n"));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  EXPECT_EQ(proxied(hookd, "ran", "reset").status, 502);       // created, answer lost
  EXPECT_EQ(proxied(hookd, "never-ran", "lost").status, 502);  // reset before creating
  // "ran": the status URL says 200 → completed, replayed with that answer.
  HttpReply replay;
  ASSERT_TRUE(eventually([&] {
    replay = proxied(hookd, "ran", "reset");
    return replay.status != 409;
  })) << replay.body;
  EXPECT_EQ(replay.status, 200);
  EXPECT_EQ(replay.header("Idempotent-Replayed").value_or(""), "true");
  EXPECT_EQ(replay.json().value("contract", ""), "c_1");
  // "never-ran": 404 → released; the retry creates it, once.
  HttpReply retry;
  ASSERT_TRUE(eventually([&] {
    retry = proxied(hookd, "never-ran", "fast");
    return retry.status != 409;
  })) << retry.body;
  EXPECT_EQ(retry.status, 201);
  EXPECT_EQ(upstream.created("ran"), 1);
  EXPECT_EQ(upstream.created("never-ran"), 1);
}

TEST(ProxyE2E, NothingSentOr503ReleasesTheKey) {
  CountingUpstream upstream;
  HookdProcess hookd(proxy_config(upstream.url()));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  auto busy = proxied(hookd, "k", "busy");
  EXPECT_EQ(busy.status, 503);
  EXPECT_EQ(busy.header("Retry-After").value_or(""), "1");
  auto ok = proxied(hookd, "k", "busy");  // released: sent again
  EXPECT_EQ(ok.status, 503);
  EXPECT_EQ(upstream.requests(), 2u);

  // An upstream that refuses connections: nothing was sent, the key is released each time.
  const std::string closed = "http://127.0.0.1:1";
  HookdProcess refused(proxy_config(closed));
  ASSERT_TRUE(refused.start()) << refused.last_error();
  for (int i = 0; i < 3; ++i) {
    auto r = proxied(refused, "k2");
    EXPECT_EQ(r.status, 502) << r.body;
    EXPECT_TRUE(type_is(r, "upstream-unreachable")) << r.body;
  }
  auto listed = refused.get("/api/v1/hookd/idempotency?proxy=esign");
  EXPECT_EQ(listed.json()["data"].size(), 0u) << listed.body;
}

TEST(ProxyE2E, MismatchMissingKeyTooLargeAndPassthrough) {
  CountingUpstream upstream;
  HookdProcess hookd(proxy_config(upstream.url()));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  EXPECT_EQ(proxied(hookd, "m", "fast").status, 201);
  auto mismatch = proxied(hookd, "m", "slow:1");  // another body
  EXPECT_EQ(mismatch.status, 422);
  EXPECT_TRUE(type_is(mismatch, "idempotency-key-mismatch")) << mismatch.body;
  EXPECT_EQ(mismatch.header("Content-Type").value_or(""), "application/problem+json");
  auto missing = proxied(hookd, "", "fast");
  EXPECT_EQ(missing.status, 400);
  EXPECT_TRUE(type_is(missing, "idempotency-key-missing"));
  auto other_tenant = proxied(hookd, "m", "slow:1", "tenant-b");  // its own key space
  EXPECT_EQ(other_tenant.status, 201);

  auto big = proxied(hookd, "b", "big");  // 4 KiB > max_stored_body 1 KiB
  EXPECT_EQ(big.status, 201);
  EXPECT_EQ(big.body.size(), 4096u) << "the first caller gets the whole answer";
  auto big_again = proxied(hookd, "b", "big");
  EXPECT_EQ(big_again.status, 409);
  EXPECT_TRUE(type_is(big_again, "not-replayable")) << big_again.body;
  EXPECT_EQ(upstream.created("b"), 1);

  auto list = http_get(hookd.url("/proxy/esign/contracts?page=2"));
  EXPECT_EQ(list.status, 200);
  EXPECT_EQ(list.body, R"({"list":[]})");
  EXPECT_EQ(upstream.receiver().requests().back().target, "/contracts?page=2");

  auto metrics = hookd.get("/metrics").body;
  EXPECT_NE(metrics.find(R"(hookd_proxy_requests_total{proxy="esign",outcome="mismatch"} 1)"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find(R"(hookd_proxy_requests_total{proxy="esign",outcome="not_replayable"} 1)"),
            std::string::npos);
  EXPECT_NE(metrics.find(R"(hookd_proxy_requests_total{proxy="esign",outcome="forwarded"} 3)"),
            std::string::npos);
  EXPECT_NE(hookd.stderr_text().find("proxy.idempotency_key_mismatch"), std::string::npos);
}

// Spool files the daemon holds open (unlinked, so their links end in "(deleted)").
int open_spool_files(const HookdProcess& hookd) {
  int count = 0;
  const auto dir = std::filesystem::path("/proc") / std::to_string(hookd.pid()) / "fd";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    auto target = std::filesystem::read_symlink(entry.path(), ec);
    if (!ec && target.string().find("hookd-spool-") != std::string::npos) ++count;
  }
  return count;
}

TEST(ProxyE2E, LargeUploadIsStreamedByteExactAndAnAnswerTooLargeToStoreReachesTheFirstCaller) {
  CountingUpstream upstream;
  HookdProcess hookd(proxy_config(upstream.url(), "20s"));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();

  // 5 MiB up (above server.max_body_bytes = 1 MiB: only /proxy/ may, spooled to a file).
  std::string upload(5 * 1024 * 1024, '\0');
  std::mt19937 random(7);
  for (auto& c : upload) c = static_cast<char>(random() & 0xff);
  HttpCall call;
  call.method = "POST";
  call.url = hookd.url("/proxy/esign/upload");
  call.body = upload;
  call.headers = {{"Content-Type", "application/octet-stream"},
                  {"Authorization", "Bearer tenant-a"},
                  {"Idempotency-Key", "upload-1"}};
  call.timeout = 30s;
  auto up = http_call(call);
  ASSERT_EQ(up.status, 201) << up.error << up.body;
  EXPECT_EQ(up.json()["size"], upload.size());
  EXPECT_EQ(up.json()["sha256"], crypto::sha256_hex(upload));
  ASSERT_FALSE(upstream.receiver().requests().empty());
  EXPECT_TRUE(upstream.receiver().requests().back().body == upload) << "the upload changed";
  auto replay = http_call(call);  // the same 5 MiB again: same fingerprint, replayed
  EXPECT_EQ(replay.status, 201) << replay.body;
  EXPECT_EQ(replay.header("Idempotent-Replayed").value_or(""), "true");
  call.body.back() ^= 1;  // one bit changed: another request under the same key
  EXPECT_EQ(http_call(call).status, 422);
  EXPECT_EQ(upstream.created("upload-1"), 1);
  auto elsewhere = hookd.post("/api/v1/app", upload);  // other routes keep 1 MiB
  EXPECT_EQ(elsewhere.status, 413) << elsewhere.body;

  // 8 MiB down, above max_stored_body (1 KiB): whole to the first caller, never again.
  auto huge = proxied(hookd, "huge-1", "huge", "tenant-a", 30s);
  ASSERT_EQ(huge.status, 201) << huge.error;
  EXPECT_EQ(huge.body.size(), huge_answer().size());
  EXPECT_TRUE(huge.body == huge_answer()) << "the answer changed on its way";
  auto retry = proxied(hookd, "huge-1", "huge", "tenant-a", 30s);
  EXPECT_EQ(retry.status, 409);
  EXPECT_TRUE(type_is(retry, "not-replayable")) << retry.body;
  EXPECT_EQ(upstream.created("huge-1"), 1);

  auto listed = hookd.get("/api/v1/hookd/idempotency?proxy=esign");
  std::string id;
  const auto keys = listed.json();
  for (const auto& key : keys["data"]) {
    if (key["key"] == "huge-1") id = key["id"];
  }
  ASSERT_FALSE(id.empty()) << listed.body;
  auto shown = hookd.get("/api/v1/hookd/idempotency/" + id).json();
  EXPECT_EQ(shown["state"], "not_replayable") << shown.dump();
  EXPECT_EQ(shown["response"]["bodySize"], 8388608) << shown.dump();
  EXPECT_EQ(shown["response"]["bodySha256"], crypto::sha256_hex(huge_answer()));
  EXPECT_TRUE(eventually([&] { return open_spool_files(hookd) == 0; }))
      << "a spool file is still open";
}

TEST(ProxyE2E, KillNineWhileTheUpstreamWorksLeavesTheKeyUnknownAfterRestart) {
  CountingUpstream upstream;
  HookdProcess hookd(proxy_config(upstream.url(), "5s"));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  std::jthread client([&] { proxied(hookd, "crash", "slow:800", "tenant-a", 3s); });
  ASSERT_TRUE(upstream.receiver().wait_for_requests(1, 10s));
  hookd.kill9();
  client.join();
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ASSERT_TRUE(eventually([&] { return upstream.created("crash") == 1; }));
  for (int i = 0; i < 3; ++i) {
    auto r = proxied(hookd, "crash", "slow:800");
    EXPECT_EQ(r.status, 409);
    EXPECT_TRUE(type_is(r, "outcome-unknown")) << r.body;
  }
  EXPECT_EQ(upstream.requests(), 1u) << "a request that may have run was sent again";
  EXPECT_NE(hookd.stderr_text().find("proxy.orphaned_keys_unknown"), std::string::npos);
}

TEST(ProxyE2E, GracefulStopWhileTheUpstreamHangsRecordsTheKeyUnknown) {
  CountingUpstream upstream;
  HookdProcess hookd(proxy_config(upstream.url(), "30s"));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  std::jthread client([&] { proxied(hookd, "stop", "hang", "tenant-a", 20s); });
  ASSERT_TRUE(upstream.receiver().wait_for_requests(1, 10s));
  EXPECT_EQ(hookd.stop(), 0);  // the grace (5 s) ends with the call still out
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  auto listed = hookd.get("/api/v1/hookd/idempotency?state=unknown");
  ASSERT_EQ(listed.json()["data"].size(), 1u) << listed.body;
  auto r = proxied(hookd, "stop", "hang");
  EXPECT_EQ(r.status, 409);
  EXPECT_TRUE(type_is(r, "outcome-unknown")) << r.body;
  EXPECT_EQ(upstream.requests(), 1u);
  // Recorded by the stopping daemon (its cancelled call), not found orphaned at the restart.
  EXPECT_EQ(hookd.stderr_text().find("proxy.orphaned_keys_unknown"), std::string::npos);
}

// kill -9 at random moments under keyed load (between claim and send, while the upstream
// works, after its answer before the record): afterwards every key is retried until it
// settles, and no operation ran twice.
TEST(ProxyE2E, KillNineAtRandomMomentsNeverRunsAnOperationTwice) {
  CountingUpstream upstream;
  HookdProcess hookd(proxy_config(upstream.url()));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  constexpr int kKeys = 300;
  std::atomic<int> next{0};
  std::atomic<bool> stop_clients{false};
  std::atomic<std::uint16_t> port{hookd.port()};
  std::vector<std::jthread> clients;
  for (int c = 0; c < 4; ++c) {
    clients.emplace_back([&] {
      while (!stop_clients) {
        const int n = next++;
        if (n >= kKeys) return;
        HttpCall call;
        call.method = "POST";
        call.url = "http://127.0.0.1:" + std::to_string(port.load()) + "/proxy/esign/contracts";
        call.body = R"({"mode":"slow:5"})";
        call.headers = {{"Idempotency-Key", "load-" + std::to_string(n)},
                        {"Content-Type", "application/json"}};
        call.timeout = 2s;
        http_call(call);
      }
    });
  }
  std::mt19937 rng(std::random_device{}());
  for (int kill = 0; kill < 4; ++kill) {
    std::this_thread::sleep_for(Millis(100 + rng() % 300));
    hookd.kill9();
    ASSERT_TRUE(hookd.start()) << hookd.last_error();
    port = hookd.port();
  }
  for (auto& t : clients) t.join();
  // Retry every key (same body): each settles as a replay, an unknown outcome, or (never
  // sent before) a first run.
  int unknown = 0;
  int unknown_never_sent = 0;  // claimed, then killed before the request left
  for (int n = 0; n < kKeys; ++n) {
    const std::string key = "load-" + std::to_string(n);
    HttpCall call;
    call.method = "POST";
    call.url = hookd.url("/proxy/esign/contracts");
    call.body = R"({"mode":"slow:5"})";
    call.headers = {{"Idempotency-Key", key}, {"Content-Type", "application/json"}};
    HttpReply r;
    ASSERT_TRUE(eventually(
        [&] {
          r = http_call(call);
          return !(r.status == 409 && type_is(r, "request-in-progress"));
        },
        30s))
        << key;
    if (r.status == 409) {
      EXPECT_TRUE(type_is(r, "outcome-unknown")) << key << " " << r.body;
      ++unknown;
      if (upstream.created(key) == 0) ++unknown_never_sent;
    } else {
      EXPECT_EQ(r.status, 201) << key << " " << r.body;
    }
    EXPECT_LE(upstream.created(key), 1) << key << " ran twice";
  }
  EXPECT_EQ(static_cast<std::size_t>(upstream.total_created()), upstream.requests())
      << "every request the upstream saw created once";
  // What the kills hit (not asserted: it depends on timing): unknown keys, and among them
  // those whose request never reached the upstream.
  std::printf("[ proxy kills ] %d unknown keys, %d of them never sent\n", unknown,
              unknown_never_sent);
}

}  // namespace
}  // namespace hookd::e2e
