// End-to-end behaviour of `hookd sign` / `hookd verify`: known vectors, defaults, rotation,
// each failure reason (exit 1), usage and input errors (exit 2), and the help texts.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/run_hookd.hpp"
#include "hookd/ids.hpp"

namespace hookd::cli::testing {
namespace {

constexpr const char* kSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
constexpr const char* kOtherSecret = "whsec_dGhlIG90aGVyIHNlY3JldCwgMzIgYnl0ZXMgbG9uZyE=";

class CliTest : public ::testing::Test {
 protected:
  // Signs `body` with the standard scheme and returns the headers.
  HttpHeaders sign_standard(const std::string& body, const std::vector<std::string>& secrets,
                            const std::string& timestamp = "1700000000") {
    std::vector<std::string> args{"sign", "--scheme", "standard", "--id", "msg_1"};
    for (const std::string& secret : secrets) args.insert(args.end(), {"--secret", secret});
    args.insert(args.end(),
                {"--timestamp", timestamp, "--body-file", hookd.write_file("body", body)});
    const RunResult result = hookd.run(args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return parse_header_lines(result.out);
  }

  RunResult verify_standard(const std::string& request, const std::string& secret,
                            const std::string& now = "1700000000",
                            std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"verify",
                                  "--scheme",
                                  "standard",
                                  "--secret",
                                  secret,
                                  "--request-file",
                                  hookd.write_file("req.json", request),
                                  "--now",
                                  now};
    args.insert(args.end(), extra.begin(), extra.end());
    return hookd.run(args);
  }

  static void expect_invalid(const RunResult& result, const std::string& reason) {
    EXPECT_EQ(result.exit_code, 1) << result.err;
    EXPECT_NE(result.err.find(reason), std::string::npos) << result.err;
    EXPECT_EQ(result.out, "");
  }

  static void expect_usage_error(const RunResult& result, const std::string& message) {
    EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
    EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
  }

  HookdRunner hookd;
};

TEST_F(CliTest, SignMatchesTheStandardWebhooksExampleVector) {
  const RunResult result =
      hookd.run({"sign", "--scheme", "standard", "--secret", kSecret, "--id",
                 "msg_p5jXN8AQM9LWM0D4loKWxJek", "--timestamp", "1614265330", "--body-file", "-"},
                R"({"test": 2432232314})");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out,
            "webhook-id: msg_p5jXN8AQM9LWM0D4loKWxJek\n"
            "webhook-timestamp: 1614265330\n"
            "webhook-signature: v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=\n");
}

TEST_F(CliTest, SignDefaultsToAFreshMessageIdAndTheCurrentTime) {
  const RunResult result =
      hookd.run({"sign", "--scheme", "standard", "--secret", kSecret, "--body-file", "-"}, "{}");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const HttpHeaders headers = parse_header_lines(result.out);
  const std::string_view id = find_header(headers, "webhook-id").value_or("");
  EXPECT_TRUE(parse_id(id, id_prefix::kMessage)) << id;
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const long long signed_at = std::stoll(std::string(*find_header(headers, "webhook-timestamp")));
  EXPECT_LE(std::llabs(signed_at - now), 3600);  // generous margin: no timing assertion
}

TEST_F(CliTest, BinaryBodyFromStdinIsSignedByteForByte) {
  const std::string body("a\0b\r\n\xff\xfe", 7);
  const RunResult signed_out =
      hookd.run({"sign", "--scheme", "standard", "--secret", kSecret, "--id", "msg_1",
                 "--timestamp", "1700000000", "--body-file", "-"},
                body);
  ASSERT_EQ(signed_out.exit_code, 0) << signed_out.err;
  const std::string request =
      R"({"headers": {"webhook-id": "msg_1",
      "webhook-timestamp": "1700000000", "webhook-signature": ")" +
      std::string(*find_header(parse_header_lines(signed_out.out), "webhook-signature")) +
      R"("}, "body_base64": "YQBiDQr//g=="})";
  EXPECT_EQ(verify_standard(request, kSecret).exit_code, 0);
}

TEST_F(CliTest, SecretCanComeFromTheEnvironment) {
  const std::vector<std::string> args{"sign",        "--scheme",   "standard",    "--id", "msg_1",
                                      "--timestamp", "1700000000", "--body-file", "-"};
  ::setenv("HOOKD_SECRET", kSecret, 1);
  const RunResult from_env = hookd.run(args, "{}");
  ::unsetenv("HOOKD_SECRET");
  std::vector<std::string> with_flag = args;
  with_flag.insert(with_flag.end(), {"--secret", kSecret});
  const RunResult from_flag = hookd.run(with_flag, "{}");
  ASSERT_EQ(from_env.exit_code, 0) << from_env.err;
  EXPECT_EQ(from_env.out, from_flag.out);
}

// A18: during a rotation both keys sign; a verifier holding either one accepts.
TEST_F(CliTest, RotationSignsWithBothSecretsAndEitherVerifies) {
  const HttpHeaders headers = sign_standard("{}", {kSecret, kOtherSecret});
  const std::string request = request_json(headers, "{}");
  EXPECT_EQ(verify_standard(request, kSecret).exit_code, 0);
  EXPECT_EQ(verify_standard(request, kOtherSecret).exit_code, 0);
}

TEST_F(CliTest, VerifyDetectsSvixHeaderNames) {
  HttpHeaders headers = sign_standard("{}", {kSecret});
  for (HttpHeader& header : headers) header.name.replace(0, 7, "svix");  // webhook-* -> svix-*
  EXPECT_EQ(verify_standard(request_json(headers, "{}"), kSecret).exit_code, 0);
}

TEST_F(CliTest, VerifyAcceptsTheEd25519PublicKey) {
  const RunResult signed_out =
      hookd.run({"sign", "--scheme", "standard-ed25519", "--secret",
                 "whsk_AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=", "--timestamp", "1700000000",
                 "--body-file", "-"},
                "{}");
  ASSERT_EQ(signed_out.exit_code, 0) << signed_out.err;
  const std::string file =
      hookd.write_file("req.json", request_json(parse_header_lines(signed_out.out), "{}"));
  const RunResult result = hookd.run({"verify", "--scheme", "standard-ed25519", "--secret",
                                      "whpk_ebVWLo/mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ=", "--now",
                                      "1700000000", "--request-file", file});
  EXPECT_EQ(result.exit_code, 0) << result.err;
}

// A16: each rejection exits 1 with its reason code.
TEST_F(CliTest, BodyChangedByOneByteIsRejected) {
  const HttpHeaders headers = sign_standard(R"({"amount":100})", {kSecret});
  expect_invalid(verify_standard(request_json(headers, R"({"amount":900})"), kSecret),
                 "no_matching_signature");
}

TEST_F(CliTest, ReserializedJsonBodyIsRejected) {
  const HttpHeaders headers = sign_standard(R"({"b":2,"a":1})", {kSecret});
  expect_invalid(verify_standard(request_json(headers, R"({"a": 1, "b": 2})"), kSecret),
                 "no_matching_signature");
}

TEST_F(CliTest, WrongSecretIsRejected) {
  const HttpHeaders headers = sign_standard("{}", {kSecret});
  expect_invalid(verify_standard(request_json(headers, "{}"), kOtherSecret),
                 "no_matching_signature");
}

// A17: a captured request checked after the window is rejected; --tolerance widens it.
TEST_F(CliTest, StaleAndFutureTimestampsAreRejected) {
  const std::string request = request_json(sign_standard("{}", {kSecret}), "{}");
  expect_invalid(verify_standard(request, kSecret, "1700000301"), "timestamp_too_old");
  expect_invalid(verify_standard(request, kSecret, "1699999699"), "timestamp_too_new");
  EXPECT_EQ(verify_standard(request, kSecret, "1700000299").exit_code, 0);
  EXPECT_EQ(verify_standard(request, kSecret, "1700000900", {"--tolerance", "1000"}).exit_code, 0);
}

TEST_F(CliTest, MissingSignatureHeaderIsRejected) {
  HttpHeaders headers = sign_standard("{}", {kSecret});
  std::erase_if(headers, [](const HttpHeader& h) { return h.name == "webhook-signature"; });
  expect_invalid(verify_standard(request_json(headers, "{}"), kSecret), "missing_header");
}

TEST_F(CliTest, ChangedTimestampWithTheOldSignatureIsRejected) {
  HttpHeaders headers = sign_standard("{}", {kSecret});
  for (HttpHeader& header : headers) {
    if (header.name == "webhook-timestamp") header.value = "1700000001";
  }
  expect_invalid(verify_standard(request_json(headers, "{}"), kSecret), "no_matching_signature");
}

// Exit 2: the input or the flags are wrong, not the signature.
TEST_F(CliTest, UnreadableRequestFileIsAUsageError) {
  expect_usage_error(hookd.run({"verify", "--scheme", "standard", "--secret", kSecret,
                                "--request-file", "/nonexistent/req.json"}),
                     "cannot open");
}

TEST_F(CliTest, MalformedRequestFilesAreUsageErrors) {
  expect_usage_error(verify_standard("{not json", kSecret), "not valid JSON");
  expect_usage_error(verify_standard("[]", kSecret), "JSON object");
  expect_usage_error(verify_standard(R"({"headers": {}})", kSecret), "body");
  expect_usage_error(verify_standard(R"({"headers": {"a": 1}, "body": ""})", kSecret),
                     "header 'a'");
}

TEST_F(CliTest, UnknownSchemeIsAUsageError) {
  expect_usage_error(
      hookd.run({"sign", "--scheme", "rot13", "--secret", "k", "--body-file", "-"}, "{}"),
      "unknown scheme 'rot13'");
}

TEST_F(CliTest, BadSecretIsAUsageError) {
  const RunResult result = hookd.run(
      {"sign", "--scheme", "standard", "--secret", "whsec_***", "--body-file", "-"}, "{}");
  EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
  EXPECT_FALSE(result.err.empty());
}

TEST_F(CliTest, FlagForAnotherSchemeIsAUsageError) {
  expect_usage_error(hookd.run({"sign", "--scheme", "stripe", "--secret", "k", "--algorithm",
                                "sha512", "--body-file", "-"},
                               "{}"),
                     "--algorithm applies only to --scheme hmac");
}

TEST_F(CliTest, MissingRequiredFlagsAreUsageErrors) {
  EXPECT_EQ(hookd.run({"sign", "--scheme", "standard", "--body-file", "-"}).exit_code, 2);
  EXPECT_EQ(hookd.run({"verify", "--scheme", "standard", "--secret", kSecret}).exit_code, 2);
  EXPECT_EQ(hookd.run({"verify", "--bogus"}).exit_code, 2);
}

TEST_F(CliTest, HelpNamesEveryScheme) {
  const RunResult result = hookd.run({"--help"});
  EXPECT_EQ(result.exit_code, 0);
  for (const char* scheme :
       {"standard", "svix", "standard-ed25519", "stripe", "github", "hmac-hex-ts", "hmac"}) {
    EXPECT_NE(result.out.find(scheme), std::string::npos) << scheme;
  }
}

TEST_F(CliTest, SubcommandHelpDocumentsEveryFlag) {
  const std::vector<std::string> shared{
      "--scheme",    "--secret",   "--naming",           "--signature-header", "--timestamp-header",
      "--algorithm", "--encoding", "--signature-prefix", "--template",         "--id-header"};
  const RunResult sign = hookd.run({"sign", "--help"});
  const RunResult verify = hookd.run({"verify", "--help"});
  EXPECT_EQ(sign.exit_code, 0);
  EXPECT_EQ(verify.exit_code, 0);
  for (const std::string& flag : shared) {
    EXPECT_NE(sign.out.find(flag), std::string::npos) << flag;
    EXPECT_NE(verify.out.find(flag), std::string::npos) << flag;
  }
  for (const char* flag : {"--id", "--timestamp", "--body-file"}) {
    EXPECT_NE(sign.out.find(flag), std::string::npos) << flag;
  }
  for (const char* flag : {"--request-file", "--tolerance", "--now"}) {
    EXPECT_NE(verify.out.find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace hookd::cli::testing
