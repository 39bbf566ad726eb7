// Fuzz target for signature verification (all six schemes): arbitrary header values and
// bodies never crash the verifier, a failure always carries a reason, and for any body and
// id, sign → verify succeeds while the same request with one body byte changed fails (A16).
#include <array>
#include <memory>

#include "fuzz/fuzz_target.hpp"
#include "hookd/signing.hpp"

namespace hookd::fuzz {

namespace {

constexpr std::int64_t kSigningNow = 1'700'000'000;

struct SchemeCase {
  SchemeOptions options;
  std::vector<std::string> secrets;
  // Header names that carry the fuzzed values h1 (id), h2 (timestamp), h3 (signature).
  std::array<const char*, 3> headers;
  std::unique_ptr<Signer> signer;
  std::unique_ptr<Verifier> verifier;
};

SchemeCase make_case(SchemeKind kind, std::vector<std::string> secrets,
                     std::array<const char*, 3> headers,
                     HeaderNaming naming = HeaderNaming::kWebhook) {
  SchemeCase c;
  c.options.kind = kind;
  c.options.naming = naming;
  c.secrets = std::move(secrets);
  c.headers = headers;
  auto signer = Signer::create(c.options, c.secrets);
  auto verifier = Verifier::create(c.options, c.secrets);
  expect(signer.has_value() && verifier.has_value(), "fuzz setup: scheme creation failed");
  c.signer = std::make_unique<Signer>(std::move(*signer));
  c.verifier = std::make_unique<Verifier>(std::move(*verifier));
  return c;
}

std::vector<SchemeCase>& cases() {
  static std::vector<SchemeCase> all = [] {
    std::vector<SchemeCase> v;
    v.push_back(make_case(SchemeKind::kStandard, {"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
                          {"webhook-id", "webhook-timestamp", "webhook-signature"}));
    v.push_back(make_case(SchemeKind::kStandard, {"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
                          {"svix-id", "svix-timestamp", "svix-signature"}, HeaderNaming::kSvix));
    v.push_back(make_case(SchemeKind::kStandardEd25519,
                          {"whsk_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="},
                          {"webhook-id", "webhook-timestamp", "webhook-signature"}));
    v.push_back(make_case(SchemeKind::kStripe, {"whsec_stripe_test_secret"},
                          {"X-Unused", "X-Unused-2", "Stripe-Signature"}));
    v.push_back(make_case(SchemeKind::kGithub, {"gh-secret"},
                          {"X-GitHub-Delivery", "X-Unused", "X-Hub-Signature-256"}));
    v.push_back(make_case(SchemeKind::kHmacHexTs, {"seed-secret"},
                          {"X-Unused", "X-Timestamp", "X-Signature"}));
    v.push_back(make_case(SchemeKind::kHmac, {"generic-secret"},
                          {"X-Webhook-Id", "X-Timestamp", "X-Signature"}));
    return v;
  }();
  return all;
}

// Splits "h1\nh2\nh3\nbody..." (missing parts are empty).
std::array<std::string_view, 4> split(std::string_view input) {
  std::array<std::string_view, 4> parts{};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto nl = input.find('\n');
    if (nl == std::string_view::npos) {
      parts[i] = input;
      return parts;
    }
    parts[i] = input.substr(0, nl);
    input.remove_prefix(nl + 1);
  }
  parts[3] = input;
  return parts;
}

void check_fuzzed_headers(const SchemeCase& c, const std::array<std::string_view, 4>& parts) {
  HttpHeaders headers;
  for (std::size_t i = 0; i < 3; ++i) {
    if (!parts[i].empty()) headers.push_back({c.headers[i], std::string(parts[i])});
  }
  auto verified = c.verifier->verify(headers, parts[3], kSigningNow);
  if (!verified) expect(!to_string(verified.error().reason).empty(), "failure without a reason");
}

void check_round_trip(const SchemeCase& c, std::string_view id, std::string_view body) {
  const std::string the_id = id.empty() ? std::string("msg_1") : std::string(id);
  const auto headers = c.signer->sign({the_id, kSigningNow, body});
  auto ok = c.verifier->verify(headers, body, kSigningNow);
  expect(ok.has_value(), "a freshly signed request does not verify");
  std::string changed(body);
  if (changed.empty()) {
    changed.push_back('x');
  } else {
    changed[changed.size() / 2] ^= 0x01;
  }
  expect(!c.verifier->verify(headers, changed, kSigningNow).has_value(),
         "a request with one body byte changed verifies");
}

void run_signing(std::string_view input) {
  const auto parts = split(input);
  for (const auto& c : cases()) {
    check_fuzzed_headers(c, parts);
    check_round_trip(c, parts[0], parts[3]);
  }
}

}  // namespace

FuzzTarget signing_target() {
  return {"signing",
          run_signing,
          {"msg_1\n1700000000\nv1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=\n{\"a\":1}",
           "msg_1\n1700000000\nv1a,AAAA v1,BBBB\n{}", "\n\nt=1700000000,v1=00ff,v0=11\n{}",
           "d1\n\nsha256=00\nbody", "\n1700000000\n0011223344\nbody", "\n\n\n"},
          {"v1,", "v1a,", " ", "t=", ",v1=", "sha256=", "1700000000", "1699999000", "=", "\n"}};
}

}  // namespace hookd::fuzz
