// `hookd serve` and `hookd migrate` as a process: readiness, metrics, auth, graceful stop,
// restart on the same database.
#include <gtest/gtest.h>

#include "e2e/hookd_process.hpp"

namespace hookd::e2e {
namespace {

TEST(ServeE2E, BecomesReadyAndAnswersProbes) {
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  EXPECT_EQ(http_get(hookd.url("/healthz")).status, 200);
  const HttpReply ready = http_get(hookd.url("/readyz"));
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(ready.json().value("status", ""), "ready");
  EXPECT_EQ(http_get(hookd.url("/no/such/route")).status, 404);
  EXPECT_EQ(http_request("POST", hookd.url("/healthz")).status, 405);
  EXPECT_NE(hookd.stdout_text().find("hookd listening on http://127.0.0.1:" +
                                     std::to_string(hookd.port())),
            std::string::npos);
}

TEST(ServeE2E, MetricsArePrometheusText) {  // A35 (the families exist)
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  const HttpReply metrics = http_get(hookd.url("/metrics"));
  ASSERT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.header("Content-Type").value_or("").find("text/plain"), std::string::npos);
  for (const char* family : {"# TYPE hookd_outbound_deliveries_total counter",
                             "hookd_outbound_queue_depth", "hookd_outbound_dead_letters 0",
                             "# TYPE hookd_outbound_attempt_duration_seconds histogram"}) {
    EXPECT_NE(metrics.body.find(family), std::string::npos) << family;
  }
}

TEST(ServeE2E, A34_ApiRefusesMissingOrWrongToken) {
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  EXPECT_EQ(http_get(hookd.url("/api/v1/app")).status, 401);
  EXPECT_EQ(http_get(hookd.url("/api/v1/app"), {{"Authorization", "Bearer wrong-token"}}).status,
            401);
  EXPECT_EQ(http_get(hookd.url("/api/v1/app"), {{"Authorization", "Basic ZTJlOnRva2Vu"}}).status,
            401);
  EXPECT_EQ(hookd.get("/api/v1/app").status, 200);
}

TEST(ServeE2E, SigtermStopsGracefullyWithExitZero) {
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  EXPECT_EQ(hookd.stop(), 0) << hookd.stderr_text();
  EXPECT_FALSE(std::filesystem::exists(hookd.dir() / "port"));
  EXPECT_NE(hookd.stderr_text().find("hookd.stopped"), std::string::npos);
}

TEST(ServeE2E, RestartsAfterKillNineOnTheSameDatabase) {
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  const HttpReply created = hookd.post("/api/v1/app", R"({"name":"survives","uid":"kill9-app"})");
  ASSERT_EQ(created.status, 201) << created.body;
  hookd.kill9();
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  const HttpReply fetched = hookd.get("/api/v1/app/kill9-app");
  ASSERT_EQ(fetched.status, 200) << fetched.body;
  EXPECT_EQ(fetched.json().value("name", ""), "survives");
}

TEST(ServeE2E, BadConfigurationExitsTwoWithTheProblem) {
  HookdProcess hookd("[server]\nlisten = \"nonsense\"\n");
  const RunOutput run = hookd.run_command({"serve", "--config", hookd.config_file().string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("server.listen"), std::string::npos) << run.err;
}

TEST(MigrateE2E, IsIdempotentAndPrintsTheSchemaVersion) {
  HookdProcess hookd;
  const std::vector<std::string> args = {"migrate", "--database", hookd.database().string()};
  const RunOutput first = hookd.run_command(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("schema version "), std::string::npos);
  const RunOutput second = hookd.run_command(args);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.out, first.out);
  // The daemon starts on the migrated database too.
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
}

TEST(MigrateE2E, UnopenableDatabaseExitsOne) {
  HookdProcess hookd;
  const RunOutput run =
      hookd.run_command({"migrate", "--database", (hookd.dir() / "no/such/dir/x.db").string()});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_FALSE(run.err.empty());
}

}  // namespace
}  // namespace hookd::e2e
