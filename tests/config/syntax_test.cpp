#include "config/syntax.hpp"

#include <gtest/gtest.h>

namespace hookd::config {
namespace {

TEST(ConfigSyntax, JsonPointers) {
  EXPECT_TRUE(check_json_pointer("/id"));
  EXPECT_TRUE(check_json_pointer("/data/object/id"));
  EXPECT_TRUE(check_json_pointer("/a~1b/c~0d/0"));
  EXPECT_FALSE(check_json_pointer(""));
  EXPECT_FALSE(check_json_pointer("id"));
  EXPECT_FALSE(check_json_pointer("/a~2"));
  EXPECT_FALSE(check_json_pointer("/a~"));
}

TEST(ConfigSyntax, Cidrs) {
  EXPECT_TRUE(check_cidr("10.0.0.0/8"));
  EXPECT_TRUE(check_cidr("127.0.0.1/32"));
  EXPECT_TRUE(check_cidr("0.0.0.0/0"));
  EXPECT_TRUE(check_cidr("fd00::/8"));
  EXPECT_TRUE(check_cidr("::1/128"));
  EXPECT_FALSE(check_cidr("10.0.0.0"));
  EXPECT_FALSE(check_cidr("10.0.0/8"));
  EXPECT_FALSE(check_cidr("10.0.0.256/32"));
  EXPECT_FALSE(check_cidr("10.0.0.0/33"));
  EXPECT_FALSE(check_cidr("fd00::/129"));
  EXPECT_FALSE(check_cidr("10.0.0.0/"));
  EXPECT_FALSE(check_cidr("10.0.0.0/x"));
  EXPECT_NE(check_cidr("10.1.2.3/8").error().find("network address"), std::string::npos);
}

TEST(ConfigSyntax, HttpUrls) {
  EXPECT_TRUE(check_http_url("http://127.0.0.1:3000/hooks"));
  EXPECT_TRUE(check_http_url("https://app.example.com"));
  EXPECT_FALSE(check_http_url("ftp://x"));
  EXPECT_FALSE(check_http_url("http:///path"));
  EXPECT_FALSE(check_http_url("http://a b/"));
  EXPECT_FALSE(check_http_url("app.example.com"));
}

TEST(ConfigSyntax, DatabaseUrlNeverQuotesTheValue) {
  EXPECT_TRUE(check_database_url("./hookd.db"));
  EXPECT_TRUE(check_database_url(":memory:"));
  EXPECT_TRUE(check_database_url("postgresql://u:p@h/db"));
  EXPECT_TRUE(check_database_url("postgres://h/db"));
  const auto bad = check_database_url("mysql://user:hunter2@h/db");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().find("hunter2"), std::string::npos);
  EXPECT_NE(bad.error().find("mysql://"), std::string::npos);
  EXPECT_FALSE(check_database_url(""));
}

TEST(ConfigSyntax, ListenAddresses) {
  EXPECT_TRUE(check_listen_address("127.0.0.1:8071"));
  EXPECT_TRUE(check_listen_address("0.0.0.0:0"));
  EXPECT_TRUE(check_listen_address("localhost:80"));
  EXPECT_TRUE(check_listen_address("[::1]:8071"));
  EXPECT_FALSE(check_listen_address("8071"));
  EXPECT_FALSE(check_listen_address(":8071"));
  EXPECT_FALSE(check_listen_address("127.0.0.1:65536"));
  EXPECT_FALSE(check_listen_address("127.0.0.1:http"));
  EXPECT_FALSE(check_listen_address("::1:8071"));
  EXPECT_FALSE(check_listen_address("[zz]:8071"));
}

TEST(ConfigSyntax, HeaderNamesAndPaths) {
  EXPECT_TRUE(check_header_name("X-Signature"));
  EXPECT_TRUE(check_header_name("webhook-id"));
  EXPECT_FALSE(check_header_name(""));
  EXPECT_FALSE(check_header_name("X Signature"));
  EXPECT_FALSE(check_header_name("X-Sig:"));
  EXPECT_TRUE(check_url_path("/metrics"));
  EXPECT_FALSE(check_url_path("metrics"));
  EXPECT_FALSE(check_url_path("/metrics?x=1"));
}

TEST(ConfigSyntax, BusinessKeyTemplates) {
  EXPECT_TRUE(check_business_key_template("delivery:{/data/order_id}"));
  EXPECT_TRUE(check_business_key_template("{/a}-{/b}"));
  EXPECT_FALSE(check_business_key_template("delivery"));
  EXPECT_FALSE(check_business_key_template("delivery:{/data/order_id"));
  EXPECT_FALSE(check_business_key_template("delivery:}"));
  EXPECT_FALSE(check_business_key_template("delivery:{data}"));
  EXPECT_FALSE(check_business_key_template("{{/a}}"));
}

TEST(ConfigSyntax, HmacTemplates) {
  EXPECT_TRUE(check_hmac_template("{timestamp}.{body}"));
  EXPECT_TRUE(check_hmac_template("{id}.{timestamp}.{body}"));
  EXPECT_TRUE(check_hmac_template("{body}"));
  EXPECT_FALSE(check_hmac_template("{timestamp}"));
  EXPECT_NE(check_hmac_template("{ts}.{body}").error().find("unknown placeholder \"{ts}\""),
            std::string::npos);
  EXPECT_FALSE(check_hmac_template("{body"));
}

TEST(ConfigSyntax, Base64AndNames) {
  EXPECT_TRUE(check_base64("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"));
  EXPECT_TRUE(check_base64("YQ=="));
  EXPECT_TRUE(check_base64("YQ"));
  EXPECT_FALSE(check_base64("not base64!"));
  EXPECT_FALSE(check_base64(""));
  EXPECT_TRUE(check_base64("11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=", 32));
  EXPECT_FALSE(check_base64("YQ==", 32));
  EXPECT_TRUE(check_name("stripe"));
  EXPECT_TRUE(check_name("e-contract_2"));
  EXPECT_FALSE(check_name(""));
  EXPECT_FALSE(check_name("-x"));
  EXPECT_FALSE(check_name("Stripe"));
  EXPECT_FALSE(check_name("a/b"));
  EXPECT_FALSE(check_name(".."));
  EXPECT_FALSE(check_name(std::string(65, 'a')));
}

}  // namespace
}  // namespace hookd::config
