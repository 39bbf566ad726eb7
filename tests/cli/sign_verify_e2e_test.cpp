// End-to-end: `hookd sign` output verifies with `hookd verify`, for every scheme, and the
// exact bytes are signed (A15/A18 from the command line).
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "cli/run_hookd.hpp"

namespace hookd::cli::testing {
namespace {

constexpr const char* kStandardSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
// Ed25519 seed 0x01..0x20 and its public key.
constexpr const char* kEd25519Secret = "whsk_AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=";
constexpr const char* kEd25519Public = "whpk_ebVWLo/mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ=";
constexpr const char* kTimestamp = "1700000000";

struct SchemeCase {
  std::string name;
  std::vector<std::string> flags;  // --scheme, --secret and scheme-specific flags
  std::vector<std::string> expected_headers;
};

void PrintTo(const SchemeCase& scheme, std::ostream* out) { *out << scheme.name; }

// `hookd <command> <flags...> <extra...>`.
std::vector<std::string> command_line(const std::string& command,
                                      const std::vector<std::string>& flags,
                                      const std::vector<std::string>& extra) {
  std::vector<std::string> args{command};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

class SignVerifyRoundTrip : public ::testing::TestWithParam<SchemeCase> {
 protected:
  HookdRunner hookd;
};

TEST_P(SignVerifyRoundTrip, SignedRequestVerifiesAndTamperedOneDoesNot) {
  const SchemeCase& scheme = GetParam();
  const std::string body = "{\"type\":\"invoice.paid\",\"amount\":4200}";
  const std::string body_file = hookd.write_file("body.json", body);
  const RunResult signed_out = hookd.run(
      command_line("sign", scheme.flags,
                   {"--id", "msg_test1", "--timestamp", kTimestamp, "--body-file", body_file}));
  ASSERT_EQ(signed_out.exit_code, 0) << signed_out.err;
  const HttpHeaders headers = parse_header_lines(signed_out.out);
  for (const std::string& name : scheme.expected_headers) {
    EXPECT_TRUE(find_header(headers, name).has_value()) << name << " in\n" << signed_out.out;
  }

  const auto verify = [&](const std::string& request_body) {
    const std::string file = hookd.write_file("req.json", request_json(headers, request_body));
    return hookd.run(
        command_line("verify", scheme.flags, {"--now", "1700000100", "--request-file", file}));
  };
  const RunResult ok = verify(body);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "ok\n");

  std::string changed = body;
  changed[changed.size() - 2] = '1';  // one byte
  const RunResult bad = verify(changed);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("no_matching_signature"), std::string::npos) << bad.err;
}

INSTANTIATE_TEST_SUITE_P(
    EveryScheme, SignVerifyRoundTrip,
    ::testing::Values(
        SchemeCase{"standard",
                   {"--scheme", "standard", "--secret", kStandardSecret},
                   {"webhook-id", "webhook-timestamp", "webhook-signature"}},
        SchemeCase{"svix",
                   {"--scheme", "svix", "--secret", kStandardSecret},
                   {"svix-id", "svix-timestamp", "svix-signature"}},
        SchemeCase{"standard_svix_naming",
                   {"--scheme", "standard", "--naming", "svix", "--secret", kStandardSecret},
                   {"svix-id", "svix-timestamp", "svix-signature"}},
        SchemeCase{"standard_ed25519",
                   {"--scheme", "standard-ed25519", "--secret", kEd25519Secret},
                   {"webhook-id", "webhook-timestamp", "webhook-signature"}},
        SchemeCase{"stripe",
                   {"--scheme", "stripe", "--secret", "whsec_stripe_test"},
                   {"Stripe-Signature"}},
        SchemeCase{"github",
                   {"--scheme", "github", "--secret", "It's a Secret to Everybody"},
                   {"X-Hub-Signature-256"}},
        SchemeCase{"hmac_hex_ts",
                   {"--scheme", "hmac-hex-ts", "--secret", "seed-secret", "--signature-header",
                    "X-Seed-Signature", "--timestamp-header", "X-Seed-Timestamp"},
                   {"X-Seed-Signature", "X-Seed-Timestamp"}},
        SchemeCase{
            "hmac_sha512_base64",
            {"--scheme", "hmac", "--secret", "generic", "--algorithm", "sha512", "--encoding",
             "base64", "--signature-header", "X-Sig", "--signature-prefix", "v1=", "--template",
             "{id}:{timestamp}:{body}", "--timestamp-header", "X-Ts", "--id-header", "X-Id"},
            {"X-Sig", "X-Ts", "X-Id"}}),
    [](const ::testing::TestParamInfo<SchemeCase>& info) { return info.param.name; });

}  // namespace
}  // namespace hookd::cli::testing
