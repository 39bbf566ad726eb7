// A40, A19 and A21 on PostgreSQL: the races of inbound_race.hpp against one hookd node, and against
// two nodes on one database taking turns at receiving (the claim of one node must see what
// the other has in flight).
#include <gtest/gtest.h>

#include <memory>

#include "e2e/inbound_race.hpp"
#include "e2e/pg_support.hpp"

namespace hookd::e2e {
namespace {

using namespace hookd::e2e::inbound;
using hookd::testing::TestReceiver;

TEST(PgInboundOrderE2E, A40_RacingSequencesOfManyEntitiesAreNeverAppliedBackwards) {  // A20
  PgTestDatabase db;
  ASSERT_TRUE(db.ok()) << "no PostgreSQL test cluster (HOOKD_PG_URL / HOOKD_PG_URL_FILE)";
  TestReceiver app;
  OrderRace::answer_slowly_sometimes(app);
  app.start();
  const OrderRace race;
  HookdProcess hookd(config_with_sources(race.sources_toml(app)));
  hookd.use_database(db.url());
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  race.run({&hookd}, app);
}

TEST(PgInboundOrderE2E, A40_TwoNodesRacingOnOneDatabaseNeverApplyAnEntityBackwards) {  // A26
  PgTestDatabase db;
  ASSERT_TRUE(db.ok()) << "no PostgreSQL test cluster (HOOKD_PG_URL / HOOKD_PG_URL_FILE)";
  TestReceiver app;
  OrderRace::answer_slowly_sometimes(app);
  app.start();
  OrderRace race;
  race.repetitions = 2;
  std::vector<std::unique_ptr<HookdProcess>> nodes;
  std::vector<const HookdProcess*> turns;
  for (int i = 0; i < 2; ++i) {
    nodes.push_back(std::make_unique<HookdProcess>(config_with_sources(race.sources_toml(app))));
    nodes.back()->use_database(db.url());
    nodes.back()->set_env("HOOKD_NODE_ID", concat({"node", std::to_string(i)}));
    ASSERT_TRUE(nodes.back()->start()) << nodes.back()->last_error();
    turns.push_back(nodes.back().get());
  }
  race.run(turns, app);
}

TEST(PgInboundOrderE2E, A19_TerminalStateHoldsWhenAnOlderEventArrivesWhileItIsInFlight) {
  PgTestDatabase db;
  ASSERT_TRUE(db.ok()) << "no PostgreSQL test cluster (HOOKD_PG_URL / HOOKD_PG_URL_FILE)";
  TestReceiver app;
  TerminalInFlightRace::answer_signed_slowly(app);
  app.start();
  HookdProcess hookd(
      config_with_sources(standard_source("esign", app.url("/c"), TerminalInFlightRace::keys())));
  hookd.use_database(db.url());
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  TerminalInFlightRace{}.run(hookd, app, "esign");
}

TEST(PgInboundOrderE2E, A21_DependentArrivingWhileItsDependencyIsInFlightFollowsIt) {
  PgTestDatabase db;
  ASSERT_TRUE(db.ok()) << "no PostgreSQL test cluster (HOOKD_PG_URL / HOOKD_PG_URL_FILE)";
  TestReceiver app;
  DependencyInFlightRace::answer_parents_slowly(app);
  app.start();
  HookdProcess hookd(config_with_sources(
      standard_source("flow", app.url("/f"), DependencyInFlightRace::source_extra())));
  hookd.use_database(db.url());
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  DependencyInFlightRace{}.run(hookd, app, "flow");
}

}  // namespace
}  // namespace hookd::e2e
