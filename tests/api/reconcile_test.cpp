// /api/v1/hookd/reconcile: a run started through the ReconcilePort (202, 404 without a
// reconciler or for a source without one, 409 while one is in progress), the lists' filters
// (422 naming the parameter), and resolving a difference: the body's validation (each error
// names its field; `release` is not a person's action), the resolution and audit entry handed
// to the port, and the port's errors as problems.
#include <mutex>

#include "api/reconcile_port.hpp"
#include "api_fixture.hpp"

namespace hookd::api::testing {
namespace {

constexpr store::Millis kT0 = 1'700'000'000'000;

// Records every call; answers with the configured results.
class FakeReconcilePort final : public ReconcilePort {
 public:
  Result<store::ReconcileRun> start_run(const std::string& source,
                                        const std::string& trigger) override {
    std::lock_guard lock(mu_);
    runs.emplace_back(source, trigger);
    if (run_error) return fail(*run_error, "fake run error");
    store::ReconcileRun run;
    run.id = "rcr_1";
    run.source = source;
    run.trigger = trigger;
    run.owner = "node-a/reconcile";
    run.started_at = kT0;
    return run;
  }

  Result<store::Difference> resolve(const std::string& difference_id,
                                    const DifferenceResolution& resolution) override {
    std::lock_guard lock(mu_);
    resolutions.emplace_back(difference_id, resolution);
    if (resolve_error) return fail(*resolve_error, "fake: cannot repair a stuck entity");
    store::Difference d;
    d.id = difference_id;
    d.source = "esign";
    d.kind = store::DifferenceKind::kStateMismatch;
    d.subject = "c-1\nsigned";
    d.entity_key = "c-1";
    d.state = resolution.action == store::DifferenceAction::kRepair
                  ? store::DifferenceState::kRepaired
                  : store::DifferenceState::kResolved;
    d.found_at = kT0;
    d.updated_at = kT0 + 1000;
    return d;
  }

  std::optional<ErrorCode> run_error;
  std::optional<ErrorCode> resolve_error;
  std::vector<std::pair<std::string, std::string>> runs;
  std::vector<std::pair<std::string, DifferenceResolution>> resolutions;

 private:
  std::mutex mu_;
};

class ReconcileApiTest : public ApiTest {
 protected:
  void SetUp() override {
    reconcile_ = &port_;
    ApiTest::SetUp();
  }

  Answer resolve(const nlohmann::json& body, const std::string& id = "rcd_1") {
    return post("/api/v1/hookd/reconcile/differences/" + id + "/resolve", body);
  }

  // The fields named by a 422 answer's errors.
  static std::vector<std::string> fields_of(const Answer& a) {
    std::vector<std::string> out;
    const auto j = a.json();
    for (const auto& e : j["errors"]) out.push_back(e["field"].get<std::string>());
    return out;
  }

  FakeReconcilePort port_;
};

class NoReconcilerApiTest : public ApiTest {};

TEST_F(ReconcileApiTest, StartsARunThroughThePort) {
  const auto a = call("POST", "/api/v1/hookd/reconcile/esign/run");
  ASSERT_EQ(a.status, 202) << a.body;
  ASSERT_EQ(port_.runs.size(), 1u);
  EXPECT_EQ(port_.runs[0], (std::pair<std::string, std::string>{"esign", "api"}));
  const auto j = a.json();
  EXPECT_EQ(j["id"], "rcr_1");
  EXPECT_EQ(j["source"], "esign");
  EXPECT_EQ(j["trigger"], "api");
  EXPECT_EQ(j["state"], "running");
  EXPECT_TRUE(j["finishedAt"].is_null());
  EXPECT_EQ(a.header("Location"), "/api/v1/hookd/reconcile/runs/rcr_1");
  EXPECT_EQ(a.header("Content-Type"), "application/json");
}

TEST_F(ReconcileApiTest, ARunOfAnUnknownSourceIs404) {
  port_.run_error = ErrorCode::kNotFound;
  const auto a = call("POST", "/api/v1/hookd/reconcile/nosuch/run");
  EXPECT_EQ(a.status, 404) << a.body;
  EXPECT_EQ(a.json()["detail"], "source 'nosuch' has no reconciler");
}

TEST_F(ReconcileApiTest, ARunInProgressIs409) {
  port_.run_error = ErrorCode::kConflict;
  const auto a = call("POST", "/api/v1/hookd/reconcile/esign/run");
  EXPECT_EQ(a.status, 409) << a.body;
  EXPECT_EQ(a.json()["code"], "conflict");
  EXPECT_NE(a.json()["detail"].get<std::string>().find("a run is in progress"), std::string::npos);
}

TEST_F(ReconcileApiTest, AStorageFailureOfARunIs503) {
  port_.run_error = ErrorCode::kUnavailable;
  EXPECT_EQ(call("POST", "/api/v1/hookd/reconcile/esign/run").status, 503);
}

TEST_F(ReconcileApiTest, SourcesNamedLikeTheListsStillRun) {
  EXPECT_EQ(call("POST", "/api/v1/hookd/reconcile/runs/run").status, 202);
  EXPECT_EQ(call("POST", "/api/v1/hookd/reconcile/differences/run").status, 202);
  ASSERT_EQ(port_.runs.size(), 2u);
  EXPECT_EQ(port_.runs[0].first, "runs");
  EXPECT_EQ(port_.runs[1].first, "differences");
}

TEST_F(ReconcileApiTest, EveryRouteNeedsAnApiToken) {
  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"POST", "/api/v1/hookd/reconcile/esign/run"},
           {"GET", "/api/v1/hookd/reconcile/runs"},
           {"GET", "/api/v1/hookd/reconcile/runs/rcr_1"},
           {"GET", "/api/v1/hookd/reconcile/differences"},
           {"GET", "/api/v1/hookd/reconcile/differences/rcd_1"},
           {"POST", "/api/v1/hookd/reconcile/differences/rcd_1/resolve"}}) {
    EXPECT_EQ(call(method, path, "", {}, nullptr).status, 401) << method << " " << path;
    EXPECT_EQ(call(method, path, "", {}, "tok_wrong").status, 401) << method << " " << path;
  }
  EXPECT_TRUE(port_.runs.empty());
  EXPECT_TRUE(port_.resolutions.empty());
}

TEST_F(ReconcileApiTest, UnknownFilterValuesAre422NamingTheParameter) {
  auto a = call("GET", "/api/v1/hookd/reconcile/differences?state=closed");
  EXPECT_EQ(a.status, 422) << a.body;
  EXPECT_EQ(fields_of(a), std::vector<std::string>{"state"});
  EXPECT_EQ(a.json()["errors"][0]["message"], "must be one of open, repaired, resolved");
  a = call("GET", "/api/v1/hookd/reconcile/differences?kind=lost");
  EXPECT_EQ(a.status, 422) << a.body;
  EXPECT_EQ(fields_of(a), std::vector<std::string>{"kind"});
  a = call("GET", "/api/v1/hookd/reconcile/differences?kind=lost&state=closed");
  EXPECT_EQ(fields_of(a), (std::vector<std::string>{"state", "kind"}));
  for (const char* path :
       {"/api/v1/hookd/reconcile/differences?limit=0", "/api/v1/hookd/reconcile/runs?limit=251",
        "/api/v1/hookd/reconcile/runs?limit=x"}) {
    a = call("GET", path);
    EXPECT_EQ(a.status, 422) << path << " " << a.body;
    EXPECT_EQ(fields_of(a), std::vector<std::string>{"limit"}) << path;
  }
}

TEST_F(ReconcileApiTest, ResolvesThroughThePortWithTheAuditEntry) {
  const auto a = resolve({{"action", "repair"}, {"reason", "the provider confirmed it"}});
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json()["id"], "rcd_1");
  EXPECT_EQ(a.json()["state"], "repaired");
  EXPECT_EQ(a.json()["kind"], "state_mismatch");
  ASSERT_EQ(port_.resolutions.size(), 1u);
  const auto& [id, r] = port_.resolutions[0];
  EXPECT_EQ(id, "rcd_1");
  EXPECT_EQ(r.action, store::DifferenceAction::kRepair);
  EXPECT_FALSE(r.state.has_value());
  EXPECT_EQ(r.reason, "the provider confirmed it");
  EXPECT_EQ(r.audit.actor, "alice");
  EXPECT_EQ(r.audit.action, "reconcile.difference.resolve");
  EXPECT_EQ(r.audit.target_type, "difference");
  EXPECT_EQ(r.audit.target_id, "rcd_1");
  EXPECT_EQ(r.audit.reason, "the provider confirmed it");
}

TEST_F(ReconcileApiTest, TheAuditReasonIsTheBodysEvenWithTheReasonHeader) {
  const auto a = post("/api/v1/hookd/reconcile/differences/rcd_1/resolve",
                      {{"action", "ignore"}, {"reason", "a test contract"}},
                      {{"X-Hookd-Reason", "another reason"}});
  ASSERT_EQ(a.status, 200) << a.body;
  ASSERT_EQ(port_.resolutions.size(), 1u);
  EXPECT_EQ(port_.resolutions[0].second.action, store::DifferenceAction::kIgnore);
  EXPECT_EQ(port_.resolutions[0].second.audit.reason, "a test contract");
  EXPECT_EQ(a.json()["state"], "resolved");
}

TEST_F(ReconcileApiTest, CorrectStateTakesTheState) {
  const auto a = resolve({{"action", "correct_state"}, {"state", "signed"}, {"reason", "checked"}});
  ASSERT_EQ(a.status, 200) << a.body;
  ASSERT_EQ(port_.resolutions.size(), 1u);
  EXPECT_EQ(port_.resolutions[0].second.action, store::DifferenceAction::kCorrectState);
  EXPECT_EQ(port_.resolutions[0].second.state, "signed");
}

struct BadBody {
  nlohmann::json body;
  std::vector<std::string> fields;
};

TEST_F(ReconcileApiTest, InvalidBodiesAre422NamingTheField) {
  const std::string long_reason(1001, 'r');
  const std::vector<BadBody> cases = {
      {{{"reason", "x"}}, {"action"}},
      {{{"action", "fix"}, {"reason", "x"}}, {"action"}},
      {{{"action", "release"}, {"reason", "x"}}, {"action"}},
      {{{"action", 3}, {"reason", "x"}}, {"action"}},
      {{{"action", "repair"}}, {"reason"}},
      {{{"action", "repair"}, {"reason", "   "}}, {"reason"}},
      {{{"action", "repair"}, {"reason", ""}}, {"reason"}},
      {{{"action", "repair"}, {"reason", long_reason}}, {"reason"}},
      {{{"action", "repair"}, {"reason", 7}}, {"reason"}},
      {{{"action", "correct_state"}, {"reason", "x"}}, {"state"}},
      {{{"action", "correct_state"}, {"state", nullptr}, {"reason", "x"}}, {"state"}},
      {{{"action", "correct_state"}, {"state", ""}, {"reason", "x"}}, {"state"}},
      {{{"action", "correct_state"}, {"state", 1}, {"reason", "x"}}, {"state"}},
      {{{"action", "ignore"}, {"state", "signed"}, {"reason", "x"}}, {"state"}},
      {nlohmann::json::object(), {"action", "reason"}},
  };
  for (const auto& c : cases) {
    const auto a = resolve(c.body);
    EXPECT_EQ(a.status, 422) << c.body.dump() << " " << a.body;
    EXPECT_EQ(fields_of(a), c.fields) << c.body.dump() << " " << a.body;
  }
  EXPECT_TRUE(port_.resolutions.empty());
  EXPECT_EQ(resolve({{"action", "ignore"}, {"reason", std::string(1000, 'r')}}).status, 200);
}

TEST_F(ReconcileApiTest, AMalformedBodyIs400) {
  EXPECT_EQ(call("POST", "/api/v1/hookd/reconcile/differences/rcd_1/resolve", "{").status, 400);
  EXPECT_EQ(call("POST", "/api/v1/hookd/reconcile/differences/rcd_1/resolve", "[]").status, 400);
  EXPECT_TRUE(port_.resolutions.empty());
}

TEST_F(ReconcileApiTest, ThePortsErrorsAreProblems) {
  port_.resolve_error = ErrorCode::kNotFound;
  auto a = resolve({{"action", "ignore"}, {"reason", "x"}}, "rcd_nope");
  EXPECT_EQ(a.status, 404) << a.body;
  EXPECT_EQ(a.json()["detail"], "difference 'rcd_nope' was not found");
  port_.resolve_error = ErrorCode::kConflict;
  a = resolve({{"action", "ignore"}, {"reason", "x"}});
  EXPECT_EQ(a.status, 409) << a.body;
  port_.resolve_error = ErrorCode::kInvalidArgument;
  a = resolve({{"action", "repair"}, {"reason", "x"}});
  EXPECT_EQ(a.status, 422) << a.body;
  EXPECT_EQ(fields_of(a), std::vector<std::string>{"action"});
  EXPECT_EQ(a.json()["errors"][0]["message"], "fake: cannot repair a stuck entity");
  port_.resolve_error = ErrorCode::kUnavailable;
  EXPECT_EQ(resolve({{"action", "ignore"}, {"reason", "x"}}).status, 503);
}

TEST_F(NoReconcilerApiTest, RunAndResolveAre404NoReconciler) {
  for (const auto& a : {call("POST", "/api/v1/hookd/reconcile/esign/run"),
                        post("/api/v1/hookd/reconcile/differences/rcd_1/resolve",
                             {{"action", "ignore"}, {"reason", "x"}})}) {
    EXPECT_EQ(a.status, 404) << a.body;
    EXPECT_EQ(a.json()["code"], "not_found");
    EXPECT_NE(a.json()["detail"].get<std::string>().find("no reconciler"), std::string::npos);
  }
}

TEST_F(NoReconcilerApiTest, TheListsStillReadTheStore) {
  // The filters are checked without a reconciler too; a valid list is not "no reconciler".
  EXPECT_EQ(call("GET", "/api/v1/hookd/reconcile/differences?state=closed").status, 422);
  for (const char* path :
       {"/api/v1/hookd/reconcile/runs", "/api/v1/hookd/reconcile/differences?state=open"}) {
    const auto a = call("GET", path);
    EXPECT_NE(a.status, 404) << path << " " << a.body;
  }
}

}  // namespace
}  // namespace hookd::api::testing
