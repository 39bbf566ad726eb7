// A change through the API applies to the next message (issue 12 part 4) with two hookd nodes
// on one PostgreSQL database: the change goes to node 0's API, the messages right after it to
// node 1's, and either node's dispatcher may send them, each with its own endpoint cache.
#include <gtest/gtest.h>

#include "e2e/endpoint_change_checks.hpp"
#include "e2e/pg_support.hpp"

namespace hookd::e2e {
namespace {

class PgEndpointChangeE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(db_.ok()) << "no PostgreSQL test cluster (HOOKD_PG_URL / HOOKD_PG_URL_FILE)";
    receiver_.start();
    for (int i = 0; i < 2; ++i) {
      nodes_[i].use_database(db_.url());
      nodes_[i].set_env("HOOKD_NODE_ID", concat({"node", std::to_string(i)}));
      ASSERT_TRUE(nodes_[i].start()) << nodes_[i].last_error();
    }
  }
  PgTestDatabase db_;
  testing::TestReceiver receiver_;
  HookdProcess nodes_[2];
};

TEST_F(PgEndpointChangeE2E, MessagesPublishedAfterARotationAreSignedWithTheNewKey) {
  endpoint_change::Rounds(receiver_, nodes_[0], nodes_[1]).rotate_then_publish();
}

TEST_F(PgEndpointChangeE2E, MessagesPublishedAfterAUrlChangeGoToTheNewUrl) {
  endpoint_change::Rounds(receiver_, nodes_[0], nodes_[1]).patch_url_then_publish();
}

}  // namespace
}  // namespace hookd::e2e
