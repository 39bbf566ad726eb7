// A43 against the real binary: settled data is purged after its retention period, nothing
// unsettled is. hookd runs with purging off while traffic makes delivered messages, retrying
// ones (their receiver answers 500; the next try is an hour away), a processed inbound event
// and audit entries; it stops, the test dates every row 400 days back in the SQLite file (the
// ids keep their real time: the store decides on the recorded times), and hookd restarts with
// `interval = "1s"`. The next pass must delete exactly the delivered messages (with their
// attempts), the inbound event and the audit entries, keep every retrying message and every
// message published after the restart, and say so on /metrics and in its log line. Then kill -9
// in the middle of a slow pass (batches of 1, 200 ms apart) and a restart: the database is
// intact and the next pass finishes the job.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <regex>
#include <thread>

#include "e2e/api_client.hpp"
#include "e2e/e2e_support.hpp"
#include "e2e/hookd_process.hpp"
#include "e2e/inbound_helpers.hpp"
#include "support/test_receiver.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using hookd::testing::ReceiverBehavior;
using hookd::testing::TestReceiver;

constexpr long long kBack = 400LL * 86'400'000;  // older than every default period

std::string config(const std::string& app_url, const std::string& retention) {
  return R"([server]
shutdown_grace = "5s"

[delivery]
connect_timeout = "500ms"
timeout = "2s"
max_attempts = 10
schedule = ["1h"]
lease_duration = "3s"
poll_interval = "100ms"
circuit_failure_threshold = 0

[ssrf]
allowed_subnets = ["127.0.0.0/8"]

[retention]
)" + retention +
         "\n\n" + inbound::standard_source("esign", app_url);
}

// Runs `sql` on the stopped daemon's SQLite file; "" when it worked, else SQLite's message.
std::string run_sql(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* conn = nullptr;
  if (sqlite3_open(db.c_str(), &conn) != SQLITE_OK) return "cannot open";
  char* error = nullptr;
  const int rc = sqlite3_exec(conn, sql.c_str(), nullptr, nullptr, &error);
  std::string out = rc == SQLITE_OK ? "" : (error ? error : "failed");
  sqlite3_free(error);
  sqlite3_close(conn);
  return out;
}

long long count_rows(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* conn = nullptr;
  sqlite3_open(db.c_str(), &conn);
  sqlite3_stmt* st = nullptr;
  long long n = -1;
  if (sqlite3_prepare_v2(conn, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    n = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  sqlite3_close(conn);
  return n;
}

std::string date_everything_back() {
  const std::string back = std::to_string(kBack);
  return "UPDATE messages SET created_at = created_at - " + back +
         "; UPDATE deliveries SET created_at = created_at - " + back +
         ", updated_at = updated_at - " + back +
         "; UPDATE attempts SET attempted_at = attempted_at - " + back +
         "; UPDATE inbox SET received_at = received_at - " + back +
         "; UPDATE audit_log SET at = at - " + back + ";";
}

// The value of one sample on /metrics, e.g. `hookd_retention_purged_total{kind="messages"}`.
double metric(const HookdProcess& hookd, const std::string& sample) {
  const std::string body = http_get(hookd.url("/metrics")).body;
  const auto at = body.find("\n" + sample + " ");
  if (at == std::string::npos) return -1;
  return std::stod(body.substr(at + sample.size() + 2));
}

struct Traffic {
  std::string app;
  std::vector<std::string> delivered;
  std::vector<std::string> retrying;
};

Traffic make_traffic(HookdProcess& hookd, TestReceiver& ok, TestReceiver& failing, int each) {
  ApiClient api(hookd);
  Traffic t;
  t.app = api.create_app("retention");
  api.create_endpoint(t.app, nlohmann::json{{"url", ok.url("/ok")}, {"channels", {"ok"}}});
  api.create_endpoint(t.app, nlohmann::json{{"url", failing.url("/fail")}, {"channels", {"fail"}}});
  for (int i = 0; i < each; ++i) {
    for (const auto* channel : {"ok", "fail"}) {
      const auto reply = api.publish(t.app, nlohmann::json{{"eventType", "contract.signed"},
                                                           {"channels", {channel}},
                                                           {"payload", {{"n", i}}}});
      EXPECT_EQ(reply.status, 202) << reply.body;
      (std::string(channel) == "ok" ? t.delivered : t.retrying)
          .push_back(reply.json().value("id", ""));
    }
  }
  return t;
}

bool message_exists(HookdProcess& hookd, const std::string& app, const std::string& id) {
  return hookd.get("/api/v1/app/" + app + "/msg/" + id).status == 200;
}

TEST(RetentionE2E, A43_SettledDataGoesUnsettledStaysAndAKill9MidPurgeLosesNothing) {
  TestReceiver ok;
  ok.start();
  TestReceiver failing;
  failing.set_default(ReceiverBehavior::respond(500));
  failing.start();
  HookdProcess hookd(config(ok.url("/app"), "interval = \"0\""));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  const int kEach = 30;
  const Traffic t = make_traffic(hookd, ok, failing, kEach);
  const std::string body = R"({"type":"contract.signed","id":"evt-old"})";
  ASSERT_EQ(inbound::send_event(hookd, "esign", "evt-old", body).status, 200);
  ASSERT_TRUE(eventually([&] { return ok.requests().size() >= kEach + 1u; }));
  ASSERT_TRUE(eventually([&] {  // every failing message tried once, its retry an hour away
    return failing.requests().size() >= static_cast<std::size_t>(kEach);
  }));
  ASSERT_EQ(inbound::wait_for_status(hookd, "esign", "evt-old", "processed").value("status", ""),
            "processed");
  ASSERT_TRUE(eventually([&] {
    return ApiClient(hookd).attempts_for_message(t.app, t.delivered.back())["data"].size() == 1;
  }));
  ASSERT_EQ(hookd.stop(), 0);
  const long long audit_rows = count_rows(hookd.database(), "SELECT COUNT(*) FROM audit_log");
  ASSERT_EQ(run_sql(hookd.database(), date_everything_back()), "");

  std::ofstream(hookd.config_file()) << config(ok.url("/app"), "interval = \"1s\"");
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  std::vector<std::string> young;
  for (int i = 0; i < 5; ++i) {
    young.push_back(api.publish(t.app, nlohmann::json{{"eventType", "contract.signed"},
                                                      {"channels", {"ok"}},
                                                      {"payload", {{"young", i}}}})
                        .json()
                        .value("id", ""));
  }
  ASSERT_TRUE(eventually(
      [&] { return metric(hookd, "hookd_retention_passes_total{result=\"ok\"}") >= 1; }, 30s))
      << hookd.stderr_text();
  EXPECT_EQ(metric(hookd, "hookd_retention_purged_total{kind=\"messages\"}"), kEach);
  EXPECT_EQ(metric(hookd, "hookd_retention_purged_total{kind=\"inbox\"}"), 1);
  EXPECT_EQ(metric(hookd, "hookd_retention_purged_total{kind=\"audit\"}"), audit_rows);
  EXPECT_GE(metric(hookd, "hookd_retention_rows{kind=\"messages\"}"), kEach);
  EXPECT_GT(metric(hookd, "hookd_retention_last_pass_timestamp_seconds"), 1.7e9);
  for (const auto& id : t.delivered) EXPECT_FALSE(message_exists(hookd, t.app, id)) << id;
  for (const auto& id : t.retrying) EXPECT_TRUE(message_exists(hookd, t.app, id)) << id;
  for (const auto& id : young) EXPECT_TRUE(message_exists(hookd, t.app, id)) << id;
  std::string purged_ids;
  for (const auto& id : t.delivered) purged_ids += (purged_ids.empty() ? "'" : ", '") + id + "'";
  EXPECT_EQ(count_rows(hookd.database(),
                       "SELECT COUNT(*) FROM attempts WHERE msg_id IN (" + purged_ids + ")"),
            0);  // their attempts went with them
  EXPECT_EQ(count_rows(hookd.database(),
                       "SELECT COUNT(*) FROM deliveries WHERE msg_id IN (" + purged_ids + ")"),
            0);
  EXPECT_TRUE(inbound::inbox_event(hookd, "esign", "evt-old").is_null());
  EXPECT_NE((hookd.stdout_text() + hookd.stderr_text()).find("hookd.retention.pass"),
            std::string::npos);

  // kill -9 in the middle of a slow pass, then a normal one finishes it.
  ASSERT_EQ(hookd.stop(), 0);
  ASSERT_TRUE(eventually([&] { return ok.requests().size() >= kEach + 6u; }));
  ASSERT_EQ(run_sql(hookd.database(), date_everything_back()), "");  // the young ones are old now
  std::ofstream(hookd.config_file())
      << config(ok.url("/app"), "interval = \"1s\"\nbatch_size = 1\npause = \"300ms\"");
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ASSERT_TRUE(eventually(
      [&] {  // at least one young message purged, most not yet
        return count_rows(hookd.database(), "SELECT COUNT(*) FROM messages") < kEach + 5;
      },
      30s));
  hookd.kill9();
  ASSERT_EQ(count_rows(hookd.database(),
                       "SELECT COUNT(*) FROM pragma_integrity_check "
                       "WHERE integrity_check <> 'ok'"),
            0);
  std::ofstream(hookd.config_file()) << config(ok.url("/app"), "interval = \"1s\"");
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ASSERT_TRUE(eventually(
      [&] { return count_rows(hookd.database(), "SELECT COUNT(*) FROM messages") == kEach; }, 30s))
      << hookd.stderr_text();
  for (const auto& id : t.retrying) EXPECT_TRUE(message_exists(hookd, t.app, id)) << id;
  EXPECT_EQ(count_rows(hookd.database(),
                       "SELECT COUNT(*) FROM deliveries WHERE status IN ('pending', 'delivering')"),
            kEach);
}

}  // namespace
}  // namespace hookd::e2e
