// Unit tests for the sign/verify flag translation into SchemeOptions.
#include "cli/scheme_flags.hpp"

#include <gtest/gtest.h>

namespace hookd::cli {
namespace {

SchemeFlags flags_for(std::string scheme) {
  SchemeFlags flags;
  flags.scheme = std::move(scheme);
  flags.secrets = {"k"};
  return flags;
}

TEST(SchemeFlags, SvixAliasDefaultsToSvixHeaderNames) {
  const auto svix = to_scheme_options(flags_for("svix"));
  ASSERT_TRUE(svix) << svix.error().message;
  EXPECT_EQ(svix->kind, SchemeKind::kStandard);
  EXPECT_EQ(svix->naming, HeaderNaming::kSvix);
  const auto standard = to_scheme_options(flags_for("standard"));
  ASSERT_TRUE(standard);
  EXPECT_EQ(standard->naming, HeaderNaming::kWebhook);
}

TEST(SchemeFlags, ExplicitNamingWins) {
  SchemeFlags flags = flags_for("svix");
  flags.naming = "webhook";
  EXPECT_EQ(to_scheme_options(flags)->naming, HeaderNaming::kWebhook);
  flags.naming = "other";
  EXPECT_FALSE(to_scheme_options(flags));
}

TEST(SchemeFlags, GenericHmacFlagsAreApplied) {
  SchemeFlags flags = flags_for("hmac");
  flags.algorithm = "sha512";
  flags.encoding = "base64";
  flags.signature_header = "X-Sig";
  flags.signature_prefix = "v1=";
  flags.content_template = "{id}.{body}";
  flags.timestamp_header = "X-Ts";
  flags.id_header = "X-Id";
  const auto options = to_scheme_options(flags);
  ASSERT_TRUE(options) << options.error().message;
  EXPECT_EQ(options->hmac.algorithm, GenericHmacOptions::Algorithm::kSha512);
  EXPECT_EQ(options->hmac.encoding, GenericHmacOptions::Encoding::kBase64);
  EXPECT_EQ(options->hmac.signature_header, "X-Sig");
  EXPECT_EQ(options->hmac.signature_prefix, "v1=");
  EXPECT_EQ(options->hmac.content_template, "{id}.{body}");
  EXPECT_EQ(options->hmac.timestamp_header, "X-Ts");
  EXPECT_EQ(options->hmac.id_header, "X-Id");
}

TEST(SchemeFlags, HmacHexTsHeaderNames) {
  SchemeFlags flags = flags_for("hmac-hex-ts");
  flags.signature_header = "X-S";
  const auto options = to_scheme_options(flags);
  ASSERT_TRUE(options);
  EXPECT_EQ(options->kind, SchemeKind::kHmacHexTs);
  EXPECT_EQ(options->hmac_hex_ts.signature_header, "X-S");
  EXPECT_EQ(options->hmac_hex_ts.timestamp_header, HmacHexTsOptions{}.timestamp_header);
}

TEST(SchemeFlags, RejectsBadValues) {
  EXPECT_FALSE(to_scheme_options(flags_for("rot13")));
  SchemeFlags no_secret = flags_for("github");
  no_secret.secrets.clear();
  EXPECT_FALSE(to_scheme_options(no_secret));
  SchemeFlags bad_algorithm = flags_for("hmac");
  bad_algorithm.algorithm = "md5";
  EXPECT_FALSE(to_scheme_options(bad_algorithm));
  SchemeFlags bad_encoding = flags_for("hmac");
  bad_encoding.encoding = "base32";
  EXPECT_FALSE(to_scheme_options(bad_encoding));
}

TEST(SchemeFlags, RejectsFlagsThatDoNotApplyToTheScheme) {
  SchemeFlags naming_on_stripe = flags_for("stripe");
  naming_on_stripe.naming = "svix";
  EXPECT_FALSE(to_scheme_options(naming_on_stripe));
  SchemeFlags template_on_hex_ts = flags_for("hmac-hex-ts");
  template_on_hex_ts.content_template = "{body}";
  const auto result = to_scheme_options(template_on_hex_ts);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("--template"), std::string::npos);
  SchemeFlags header_on_github = flags_for("github");
  header_on_github.signature_header = "X-Other";
  EXPECT_FALSE(to_scheme_options(header_on_github));
}

TEST(SchemeFlags, DetectsHeaderNamingFromARequest) {
  EXPECT_EQ(detect_naming({{"Svix-Signature", "v1,x"}}), HeaderNaming::kSvix);
  EXPECT_EQ(detect_naming({{"webhook-signature", "v1,x"}}), HeaderNaming::kWebhook);
  EXPECT_EQ(detect_naming({}), HeaderNaming::kWebhook);
}

}  // namespace
}  // namespace hookd::cli
