// StoreHealth (readiness of the store, issue 19 item 4): a commit failing as unavailable
// makes the store not ready with its reason; a commit that succeeds, or the probe once due,
// makes it ready again; the probe runs at most once per interval and never for failures that
// are not about storage. Mutations checked: ignoring observe() failures, probing before the
// interval, and treating a kConflict as a storage failure each fail a test here.
#include "app/store_health.hpp"

#include <gtest/gtest.h>

namespace hookd::app {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class StoreHealthTest : public ::testing::Test {
 protected:
  StoreHealth health_{[this] {
                        ++probes_;
                        return probe_result_;
                      },
                      1s};
  Status probe_result_ = fail(ErrorCode::kUnavailable, "disk I/O error (probe)");
  int probes_ = 0;
  Clock::time_point t0_ = Clock::now();
};

TEST_F(StoreHealthTest, ReadyUntilACommitFailsAsUnavailable) {
  EXPECT_TRUE(health_.check(t0_).has_value());
  health_.observe(fail(ErrorCode::kUnavailable, "database or disk is full"), t0_);
  auto checked = health_.check(t0_);
  ASSERT_FALSE(checked.has_value());
  EXPECT_EQ(checked.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(checked.error().message.find("database or disk is full"), std::string::npos);
  EXPECT_EQ(probes_, 0);  // not before a whole interval
}

TEST_F(StoreHealthTest, FailuresThatAreNotAboutStorageChangeNothing) {
  health_.observe(fail(ErrorCode::kConflict, "duplicate"), t0_);
  health_.observe(fail(ErrorCode::kInvalidArgument, "bad"), t0_);
  health_.observe(fail(ErrorCode::kInternal, "bug"), t0_);
  EXPECT_TRUE(health_.check(t0_).has_value());
  EXPECT_FALSE(health_.failing());
}

TEST_F(StoreHealthTest, ASucceedingCommitMakesItReadyAgain) {
  health_.observe(fail(ErrorCode::kUnavailable, "full"), t0_);
  health_.observe(Status{}, t0_ + 10ms);
  EXPECT_TRUE(health_.check(t0_ + 10ms).has_value());
  EXPECT_EQ(probes_, 0);
}

TEST_F(StoreHealthTest, ProbesOncePerIntervalWhileFailingAndRecoversWhenTheProbeCommits) {
  health_.observe(fail(ErrorCode::kUnavailable, "full"), t0_);
  EXPECT_FALSE(health_.check(t0_ + 999ms).has_value());
  EXPECT_EQ(probes_, 0);
  EXPECT_FALSE(health_.check(t0_ + 1s).has_value());  // due: probed, failed
  EXPECT_EQ(probes_, 1);
  EXPECT_FALSE(health_.check(t0_ + 1500ms).has_value());  // the next one is an interval later
  EXPECT_EQ(probes_, 1);
  probe_result_ = Status{};
  EXPECT_TRUE(health_.check(t0_ + 2s).has_value());
  EXPECT_EQ(probes_, 2);
  EXPECT_TRUE(health_.check(t0_ + 5s).has_value());  // healthy: no more probes
  EXPECT_EQ(probes_, 2);
}

TEST_F(StoreHealthTest, AProbeErrorBecomesTheReason) {
  health_.observe(fail(ErrorCode::kUnavailable, "full"), t0_);
  auto checked = health_.check(t0_ + 1s);
  ASSERT_FALSE(checked.has_value());
  EXPECT_NE(checked.error().message.find("(probe)"), std::string::npos);
}

}  // namespace
}  // namespace hookd::app
