// A change through the API applies to the next message (issue 12 part 4), on SQLite: after the
// answer to a secret rotation every message published afterwards is signed with the new key
// (and the old one, during the rotation); after a PATCH of the URL every message published
// afterwards goes to the new URL, whatever the dispatcher had cached. The PostgreSQL variant
// with two nodes is pg_endpoint_change_e2e_test.cpp.
#include <gtest/gtest.h>

#include "e2e/endpoint_change_checks.hpp"

namespace hookd::e2e {
namespace {

class EndpointChangeE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    receiver_.start();
    ASSERT_TRUE(hookd_.start()) << hookd_.last_error();
  }
  testing::TestReceiver receiver_;
  HookdProcess hookd_;
};

TEST_F(EndpointChangeE2E, MessagesPublishedAfterARotationAreSignedWithTheNewKey) {
  endpoint_change::Rounds(receiver_, hookd_, hookd_).rotate_then_publish();
}

TEST_F(EndpointChangeE2E, MessagesPublishedAfterAUrlChangeGoToTheNewUrl) {
  endpoint_change::Rounds(receiver_, hookd_, hookd_).patch_url_then_publish();
}

}  // namespace
}  // namespace hookd::e2e
