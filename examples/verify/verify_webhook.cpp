// verify_webhook: checks a Standard Webhooks (Svix) signature with hookd's C++ library,
// without the daemon. Built against the installed library (`make install`):
//
//   c++ verify_webhook.cpp $(pkg-config --cflags --libs hookd) -o verify_webhook
//   echo -n '{"test": 1}' > body.json
//   hookd sign --scheme standard --secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw --id msg_1 \
//       --body-file body.json          # prints webhook-id, webhook-timestamp, webhook-signature
//   ./verify_webhook whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw msg_1 TIMESTAMP '{"test": 1}' SIG
//
// Arguments: secret, webhook-id, webhook-timestamp, body, webhook-signature. Prints "valid"
// (exit 0) or "invalid: <reason>" (exit 1); a bad secret or usage exits 2. The timestamp is
// checked against the current time (5 minutes either way), as a receiver must.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <hookd/signing.hpp>

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s SECRET ID TIMESTAMP BODY SIGNATURE\n", argv[0]);
    return 2;
  }
  const std::vector<std::string> secrets{argv[1]};
  auto verifier = hookd::Verifier::create(hookd::SchemeOptions{}, secrets);
  if (!verifier) {
    std::fprintf(stderr, "bad secret: %s\n", verifier.error().message.c_str());
    return 2;
  }
  const hookd::HttpHeaders headers{
      {"webhook-id", argv[2]}, {"webhook-timestamp", argv[3]}, {"webhook-signature", argv[5]}};
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  auto verified = verifier->verify(headers, argv[4], now);
  if (!verified) {
    std::printf("invalid: %s (%s)\n",
                std::string(hookd::to_string(verified.error().reason)).c_str(),
                verified.error().detail.c_str());
    return 1;
  }
  std::printf("valid\n");
  return 0;
}
