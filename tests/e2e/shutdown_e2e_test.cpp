// A44 (shutdown part), issue 19 item 3, against the real binary: shutdown_grace is a total
// bound. With a grace of 4 s, an upload that never ends and an endpoint that hangs far longer,
// the old stop waited the whole grace in the HTTP phase and then the grace again for the
// dispatcher's attempt (8 s and more); now both run against one deadline, so hookd exits
// within the grace plus process overhead (bound: 6.5 s, a generous margin that the old
// behaviour cannot meet — the mutation checked: Parts::stop without the shared deadline
// fails it). The attempt cut off is given back (its lease released), so a restart delivers
// the acknowledged message.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "e2e/api_client.hpp"
#include "e2e/e2e_support.hpp"
#include "e2e/hookd_process.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using hookd::testing::ReceiverBehavior;
using hookd::testing::TestReceiver;

// An upload that started and never finishes (its read_timeout is 30 s, far past the grace).
int start_endless_upload(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return -1;
  const std::string head =
      "POST /api/v1/app HTTP/1.1\r\nHost: hookd\r\nContent-Type: application/json\r\n"
      "Content-Length: 100000\r\n\r\n{\"name\":";
  ::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
  return fd;
}

std::string config_with_grace(const std::string& grace) {
  std::string config = test_config({{"timeout", "\"30s\""}, {"lease_duration", "\"60s\""}});
  const std::string line = "shutdown_grace = \"5s\"";
  config.replace(config.find(line), line.size(), "shutdown_grace = \"" + grace + "\"");
  return config;
}

TEST(ShutdownE2E, A44_TheGraceBoundsTheWholeStopAndNothingAcknowledgedIsLost) {
  TestReceiver receiver;
  receiver.set_default(ReceiverBehavior::respond(200).after(20s));  // hangs past the grace
  receiver.start();
  HookdProcess hookd(config_with_grace("4s"));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("shop");
  api.create_endpoint(app, receiver.url("/hook"));
  const HttpReply published = api.publish(app, "order.paid", {{"n", 1}});
  ASSERT_EQ(published.status, 202) << published.body;
  const std::string msg = published.json().value("id", "");
  ASSERT_TRUE(receiver.wait_for_requests(1, 10s));  // the attempt is in flight, hanging
  const int upload = start_endless_upload(hookd.port());
  ASSERT_GE(upload, 0);

  const auto sigterm = Steady::now();
  EXPECT_EQ(hookd.stop(), 0) << hookd.stderr_text();
  const auto took = Steady::now() - sigterm;
  ::close(upload);
  EXPECT_LT(took, 6500ms) << "stop took " << std::chrono::duration_cast<Millis>(took).count()
                          << " ms";
  EXPECT_EQ(receiver.processed_for_webhook_id(msg), 0u);  // cut off, never answered

  // The lease was given back: the restarted node delivers the message at once.
  receiver.set_default(ReceiverBehavior::respond(200));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  EXPECT_TRUE(eventually([&] { return receiver.processed_for_webhook_id(msg) >= 1; }, 15s))
      << hookd.stderr_text();
  EXPECT_EQ(hookd.stop(), 0);
}

}  // namespace
}  // namespace hookd::e2e
