// The gateway's pure rules: key parsing, fingerprints, tenants, verdicts, hop-by-hop fields,
// proxied paths and status URLs.
#include <gtest/gtest.h>

#include "net/body_spool.hpp"
#include "proxy/key_rules.hpp"

namespace hookd::proxy {
namespace {

TEST(ParseIdempotencyKey, AcceptsBareAndStructuredFieldStrings) {
  EXPECT_EQ(parse_idempotency_key("abc-123").value(), "abc-123");
  EXPECT_EQ(parse_idempotency_key("\"abc-123\"").value(), "abc-123");
  EXPECT_EQ(parse_idempotency_key(R"("a\"b\\c")").value(), "a\"b\\c");
  EXPECT_EQ(parse_idempotency_key(std::string(255, 'k')).value(), std::string(255, 'k'));
}

TEST(ParseIdempotencyKey, RefusesEmptyLongControlAndBadQuoting) {
  EXPECT_FALSE(parse_idempotency_key(""));
  EXPECT_FALSE(parse_idempotency_key("\"\""));
  EXPECT_FALSE(parse_idempotency_key(std::string(256, 'k')));
  EXPECT_FALSE(parse_idempotency_key("a\tb"));
  EXPECT_FALSE(parse_idempotency_key("caf\xc3\xa9"));
  EXPECT_FALSE(parse_idempotency_key(R"("a"b")"));
  EXPECT_FALSE(parse_idempotency_key(R"("a\x")"));
}

std::string fingerprint(std::string_view method, std::string_view target, std::string body) {
  net::HttpRequest request;
  request.body = std::move(body);
  return request_fingerprint(method, target, body_sha256(request));
}

TEST(RequestFingerprint, DependsOnMethodTargetAndEveryBodyByte) {
  const auto base = fingerprint("POST", "/c?x=1", std::string("a\0b", 3));
  EXPECT_EQ(base.size(), 64u);
  EXPECT_EQ(base, fingerprint("POST", "/c?x=1", std::string("a\0b", 3)));
  EXPECT_NE(base, fingerprint("PATCH", "/c?x=1", std::string("a\0b", 3)));
  EXPECT_NE(base, fingerprint("POST", "/c?x=2", std::string("a\0b", 3)));
  EXPECT_NE(base, fingerprint("POST", "/c?x=1", std::string("a\0c", 3)));
  // The separator cannot be forged by moving bytes between method and target.
  EXPECT_NE(fingerprint("POST", "\n/c", ""), fingerprint("POST\n", "/c", ""));
}

TEST(RequestFingerprint, ASpooledBodyHasTheFingerprintOfTheSameBytesInMemory) {
  const std::string bytes(200'000, 'z');
  net::BodySpool spool("", 1024);
  ASSERT_TRUE(spool.append(bytes).has_value());
  net::HttpRequest spooled;
  spooled.spooled = spool.finish_file();
  ASSERT_NE(spooled.spooled, nullptr);
  EXPECT_EQ(request_fingerprint("PUT", "/f", body_sha256(spooled)),
            fingerprint("PUT", "/f", bytes));
  EXPECT_NE(request_fingerprint("PUT", "/f", body_sha256(spooled)), fingerprint("PUT", "/f", "z"));
}

TEST(TenantOf, HashesTheHeaderOrIsTheOneTenant) {
  net::HttpHeaders h;
  h.add("Authorization", "Bearer a");
  EXPECT_EQ(tenant_of(h, ""), "");
  EXPECT_EQ(tenant_of(h, "authorization").size(), 64u);
  net::HttpHeaders other;
  other.add("Authorization", "Bearer b");
  EXPECT_NE(tenant_of(h, "Authorization"), tenant_of(other, "Authorization"));
  EXPECT_EQ(tenant_of(net::HttpHeaders{}, "Authorization"),
            tenant_of(net::HttpHeaders{}, "Authorization"));
}

TEST(VerdictFor, MismatchWinsOverEveryState) {
  store::ProxyKey key;
  key.fingerprint = "f";
  for (auto state : {store::ProxyKeyState::kClaimed, store::ProxyKeyState::kCompleted,
                     store::ProxyKeyState::kUnknown, store::ProxyKeyState::kNotReplayable}) {
    key.state = state;
    EXPECT_EQ(verdict_for(key, "g"), Verdict::kMismatch);
  }
  key.state = store::ProxyKeyState::kCompleted;
  EXPECT_EQ(verdict_for(key, "f"), Verdict::kReplay);
  key.state = store::ProxyKeyState::kClaimed;
  EXPECT_EQ(verdict_for(key, "f"), Verdict::kInProgress);
  key.state = store::ProxyKeyState::kUnknown;
  EXPECT_EQ(verdict_for(key, "f"), Verdict::kUnknown);
  key.state = store::ProxyKeyState::kNotReplayable;
  EXPECT_EQ(verdict_for(key, "f"), Verdict::kNotReplayable);
}

TEST(HopByHop, StandardFieldsAndThoseNamedInConnection) {
  net::HttpHeaders h;
  h.add("Connection", "keep-alive, X-Hop");
  for (const char* name : {"Connection", "keep-alive", "TE", "Transfer-Encoding", "Upgrade",
                           "Proxy-Authorization", "Host", "Content-Length", "x-hop"}) {
    EXPECT_TRUE(is_hop_by_hop(name, h)) << name;
  }
  for (const char* name : {"Content-Type", "Authorization", "Idempotency-Key", "Set-Cookie"}) {
    EXPECT_FALSE(is_hop_by_hop(name, h)) << name;
  }
}

TEST(SplitProxiedTarget, NameAndRest) {
  auto t = split_proxied_target("/proxy/esign/contracts/1?x=y");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->name, "esign");
  EXPECT_EQ(t->rest, "/contracts/1?x=y");
  EXPECT_EQ(split_proxied_target("/proxy/esign")->rest, "/");
  EXPECT_EQ(split_proxied_target("/proxy/esign?a=1")->rest, "/?a=1");
  EXPECT_FALSE(split_proxied_target("/proxy/"));
  EXPECT_FALSE(split_proxied_target("/proxy//x"));
  EXPECT_FALSE(split_proxied_target("/api/v1"));
}

TEST(UpstreamUrl, JoinsBaseAndRest) {
  EXPECT_EQ(upstream_url("http://h:1", "/a?b"), "http://h:1/a?b");
  EXPECT_EQ(upstream_url("http://h:1/base/", "/a"), "http://h:1/base/a");
}

TEST(StatusUrlFor, PercentEncodesTheKeyEverywhere) {
  EXPECT_EQ(status_url_for("http://h/ops/{key}", "a b/c"), "http://h/ops/a%20b%2Fc");
  EXPECT_EQ(status_url_for("http://h/{key}?k={key}", "x"), "http://h/x?k=x");
  EXPECT_EQ(status_url_for("http://h/none", "x"), "http://h/none");
}

TEST(GatewayProblem, IsProblemJsonWithStripesErrorShapeAndRetryHint) {
  auto r = gateway_problem(409, problem::kInProgress, "still \"running\"");
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(r.headers.get("Content-Type").value_or(""), "application/problem+json");
  EXPECT_NE(r.body.find(R"("type":"https://hookd.dev/problems/request-in-progress")"),
            std::string::npos);
  EXPECT_NE(r.body.find(R"("status":409)"), std::string::npos);
  EXPECT_NE(r.body.find(R"("error":{"type":"idempotency_error","message":"still \"running\""})"),
            std::string::npos)
      << r.body;
  EXPECT_EQ(r.body.back(), '}');
  EXPECT_EQ(r.headers.get("Stripe-Should-Retry").value_or(""), "true");
  EXPECT_EQ(gateway_problem(409, problem::kUnknown, "x").headers.get("Stripe-Should-Retry"),
            "false");
  EXPECT_EQ(gateway_problem(422, problem::kMismatch, "x").headers.get("Stripe-Should-Retry"),
            "false");
  EXPECT_NE(gateway_problem(400, problem::kKeyMissing, "x").body.find("invalid_request_error"),
            std::string::npos);
}

}  // namespace
}  // namespace hookd::proxy
