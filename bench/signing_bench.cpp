// Sign and verify of a 1 KiB body for every scheme (one secret; verify of a valid request,
// which is the costly path: every check passes and the MAC is computed and compared).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "hookd/signing.hpp"

namespace {

using hookd::SchemeKind;

constexpr std::int64_t kNow = 1'700'000'000;

hookd::SchemeOptions options_for(SchemeKind kind) {
  hookd::SchemeOptions options;
  options.kind = kind;
  if (kind == SchemeKind::kHmac) {
    options.hmac.algorithm = hookd::GenericHmacOptions::Algorithm::kSha512;
    options.hmac.encoding = hookd::GenericHmacOptions::Encoding::kBase64;
    options.hmac.content_template = "{id}.{timestamp}.{body}";
  }
  return options;
}

std::vector<std::string> secrets_for(SchemeKind kind) {
  if (kind == SchemeKind::kStandardEd25519) {
    return {"whsk_nWGxne/9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A="};
  }
  return {"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"};
}

const std::string& body() {
  static const std::string kBody = [] {
    std::string text = R"({"type":"invoice.paid","data":{"payload":")";
    text.resize(1024 - 3, 'x');
    return text + "\"}}";
  }();
  return kBody;
}

void BM_Sign(benchmark::State& state, SchemeKind kind) {
  auto signer = hookd::Signer::create(options_for(kind), secrets_for(kind));
  if (!signer) std::abort();
  const hookd::SignInput input{"msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", kNow, body()};
  for (auto _ : state) benchmark::DoNotOptimize(signer->sign(input));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(body().size()));
}

void BM_Verify(benchmark::State& state, SchemeKind kind) {
  auto signer = hookd::Signer::create(options_for(kind), secrets_for(kind));
  auto verifier = hookd::Verifier::create(options_for(kind), secrets_for(kind));
  if (!signer || !verifier) std::abort();
  const hookd::HttpHeaders headers =
      signer->sign({"msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", kNow, body()});
  if (!verifier->verify(headers, body(), kNow)) std::abort();
  for (auto _ : state) benchmark::DoNotOptimize(verifier->verify(headers, body(), kNow));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(body().size()));
}

#define HOOKD_SIGNING_BENCH(name, kind)               \
  BENCHMARK_CAPTURE(BM_Sign, name, SchemeKind::kind); \
  BENCHMARK_CAPTURE(BM_Verify, name, SchemeKind::kind)

HOOKD_SIGNING_BENCH(standard, kStandard);
HOOKD_SIGNING_BENCH(standard_ed25519, kStandardEd25519);
HOOKD_SIGNING_BENCH(stripe, kStripe);
HOOKD_SIGNING_BENCH(github, kGithub);
HOOKD_SIGNING_BENCH(hmac_hex_ts, kHmacHexTs);
HOOKD_SIGNING_BENCH(hmac_sha512_base64, kHmac);

}  // namespace
