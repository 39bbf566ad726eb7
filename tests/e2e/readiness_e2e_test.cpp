// A44 (readiness part), issue 19 item 4, against the real binary: while the store cannot
// commit, /readyz says 503 and every publish gets 503 with Retry-After; once commits work
// again /readyz turns 200 by itself — without a publish, through its own probe write.
// The full disk is simulated with the daemon's file size limit (prlimit RLIMIT_FSIZE = 1
// byte): every write into a file at an offset past the first byte fails with EFBIG, as on a
// full disk (hookd ignores SIGXFSZ), while reads keep working — which is why the old
// readiness (a schema read) said 200 throughout. Mutations checked: readiness without the
// commit health (200 while failing), a probe that only reads (200 after the first interval
// while the limit holds), and a publish 503 without Retry-After each fail this test.
// hookd_store_commit_failing follows it: 0, 1 while failing, 0 again (a gauge that always
// answers 0 fails it).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "e2e/api_client.hpp"
#include "e2e/hookd_process.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;

// The scraped value of hookd_store_commit_failing ("" when the family is missing).
std::string commit_failing(const HookdProcess& hookd) {
  const std::string body = http_get(hookd.url("/metrics")).body;
  const std::string name = "\nhookd_store_commit_failing ";
  const auto at = body.find(name);
  if (at == std::string::npos) return "";
  const auto from = at + name.size();
  return body.substr(from, body.find('\n', from) - from);
}

bool set_file_size_limit(pid_t pid, rlim_t bytes) {
  rlimit current{};
  if (::prlimit(pid, RLIMIT_FSIZE, nullptr, &current) != 0) return false;
  rlimit wanted{bytes, current.rlim_max};
  return ::prlimit(pid, RLIMIT_FSIZE, &wanted, nullptr) == 0;
}

// Polls /readyz (bounded) until it answers `status`.
bool readyz_becomes(const HookdProcess& hookd, long status, std::chrono::seconds within) {
  const auto give_up = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < give_up) {
    if (http_get(hookd.url("/readyz")).status == status) return true;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

std::string message(int n) {
  return nlohmann::json{{"eventType", "order.paid"}, {"payload", {{"n", n}}}}.dump();
}

TEST(ReadinessE2E, A44_ReadyzIs503WhileTheStoreCannotCommitAndRecoversByItself) {
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("shop");
  const std::string publish = "/api/v1/app/" + app + "/msg";
  ASSERT_EQ(hookd.post(publish, message(1)).status, 202);
  ASSERT_EQ(http_get(hookd.url("/readyz")).status, 200);
  EXPECT_EQ(commit_failing(hookd), "0");

  ASSERT_TRUE(set_file_size_limit(hookd.pid(), 1)) << "prlimit: " << std::strerror(errno);
  const HttpReply refused = hookd.post(publish, message(2));
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(refused.header("Retry-After").value_or(""), "1");
  EXPECT_EQ(refused.header("Content-Type").value_or(""), "application/problem+json");
  HttpReply ready = http_get(hookd.url("/readyz"));
  EXPECT_EQ(ready.status, 503);
  EXPECT_NE(ready.json().value("reason", "").find("cannot commit"), std::string::npos)
      << ready.body;
  // Past the probe interval (1 s) the probe itself runs: it writes, so it fails too.
  std::this_thread::sleep_for(2500ms);
  EXPECT_EQ(http_get(hookd.url("/readyz")).status, 503);
  EXPECT_EQ(http_get(hookd.url("/readyz")).status, 503);
  EXPECT_EQ(http_get(hookd.url("/healthz")).status, 200);  // alive all the same
  EXPECT_EQ(commit_failing(hookd), "1");
  EXPECT_TRUE(hookd.running());

  ASSERT_TRUE(set_file_size_limit(hookd.pid(), RLIM_INFINITY));
  // No publish in between: the readiness probe alone finds the store writable again.
  EXPECT_TRUE(readyz_becomes(hookd, 200, 20s)) << hookd.stderr_text();
  EXPECT_EQ(commit_failing(hookd), "0");
  const HttpReply accepted = hookd.post(publish, message(3));
  EXPECT_EQ(accepted.status, 202) << accepted.body;
  // Nothing refused was stored, everything accepted was.
  const auto listed = api.get_json("/api/v1/app/" + app + "/msg?limit=50");
  EXPECT_EQ(listed["data"].size(), 2u) << listed.dump();
  EXPECT_EQ(hookd.stop(), 0) << hookd.stderr_text();
}

}  // namespace
}  // namespace hookd::e2e
