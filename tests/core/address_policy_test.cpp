// A32 at unit level: loopback/private/link-local/metadata addresses are refused unless
// allow-listed. No traffic is sent; addresses are only parsed and classified.
#include "core/address_policy.hpp"

#include <gtest/gtest.h>

namespace hookd {
namespace {

IpAddress ip(std::string_view text) {
  auto parsed = IpAddress::parse(text);
  EXPECT_TRUE(parsed.has_value()) << text;
  return parsed.value();
}

struct ClassCase {
  const char* address;
  AddressClass expected;
};

TEST(AddressPolicyTest, ClassifiesIpv4) {
  using C = AddressClass;
  const ClassCase cases[] = {
      {"0.0.0.0", C::kUnspecified},
      {"0.1.2.3", C::kReserved},
      {"10.0.0.1", C::kPrivate},
      {"10.255.255.255", C::kPrivate},
      {"11.0.0.1", C::kGlobal},
      {"100.63.255.255", C::kGlobal},
      {"100.64.0.1", C::kSharedCgnat},
      {"100.127.255.255", C::kSharedCgnat},
      {"100.128.0.0", C::kGlobal},
      {"127.0.0.1", C::kLoopback},
      {"127.255.255.254", C::kLoopback},
      {"169.254.0.1", C::kLinkLocal},
      {"169.254.169.254", C::kCloudMetadata},
      {"169.254.170.2", C::kCloudMetadata},
      {"100.100.100.200", C::kCloudMetadata},
      {"168.63.129.16", C::kCloudMetadata},
      {"172.15.255.255", C::kGlobal},
      {"172.16.0.1", C::kPrivate},
      {"172.31.255.255", C::kPrivate},
      {"172.32.0.0", C::kGlobal},
      {"192.0.0.8", C::kReserved},
      {"192.0.2.10", C::kDocumentation},
      {"192.88.99.1", C::kReserved},
      {"192.168.1.1", C::kPrivate},
      {"192.169.0.1", C::kGlobal},
      {"198.17.255.255", C::kGlobal},
      {"198.18.0.1", C::kBenchmarking},
      {"198.19.255.255", C::kBenchmarking},
      {"198.20.0.0", C::kGlobal},
      {"198.51.100.7", C::kDocumentation},
      {"203.0.113.200", C::kDocumentation},
      {"224.0.0.1", C::kMulticast},
      {"239.255.255.255", C::kMulticast},
      {"240.0.0.1", C::kReserved},
      {"255.255.255.254", C::kReserved},
      {"255.255.255.255", C::kBroadcast},
      {"1.1.1.1", C::kGlobal},
      {"8.8.8.8", C::kGlobal},
      {"93.184.215.14", C::kGlobal},
      {"223.255.255.255", C::kGlobal},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(to_string(classify(ip(c.address))), to_string(c.expected)) << c.address;
  }
}

TEST(AddressPolicyTest, ClassifiesIpv6IncludingEmbeddedIpv4) {
  using C = AddressClass;
  const ClassCase cases[] = {
      {"::", C::kUnspecified},
      {"::1", C::kLoopback},
      {"::ffff:127.0.0.1", C::kLoopback},  // IPv4-mapped
      {"::ffff:10.1.2.3", C::kPrivate},
      {"::ffff:169.254.169.254", C::kCloudMetadata},
      {"::ffff:8.8.8.8", C::kGlobal},
      {"::127.0.0.1", C::kLoopback},  // IPv4-compatible (deprecated)
      {"::8.8.8.8", C::kReserved},
      {"::2", C::kReserved},
      {"64:ff9b::127.0.0.1", C::kLoopback},  // NAT64 well-known prefix
      {"64:ff9b::a9fe:a9fe", C::kCloudMetadata},
      {"64:ff9b::8.8.8.8", C::kGlobal},
      {"64:ff9b:1::1", C::kPrivate},    // NAT64 local-use
      {"2002:7f00:1::", C::kLoopback},  // 6to4 of 127.0.0.1
      {"2002:c0a8:101::1", C::kPrivate},
      {"2002:808:808::1", C::kGlobal},
      {"2001:0:4136:e378:8000:63bf:80ff:fffe", C::kLoopback},       // Teredo, client 127.0.0.1
      {"2001:0:4136:e378:8000:63bf:3fff:fdd2", C::kDocumentation},  // RFC 4380: 192.0.2.45
      {"2001:0:4136:e378:8000:63bf:f7f7:f7f7", C::kGlobal},         // client 8.8.8.8
      {"2001:0:a00:1::1", C::kPrivate},                             // Teredo server 10.0.0.1
      {"2001:2::1", C::kBenchmarking},
      {"2001:db8::1", C::kDocumentation},
      {"3fff::1", C::kDocumentation},
      {"2001:10::1", C::kReserved},  // IETF protocol assignments
      {"100::1", C::kReserved},      // discard-only
      {"fc00::1", C::kPrivate},
      {"fd12:3456::1", C::kPrivate},
      {"fd00:ec2::254", C::kCloudMetadata},
      {"fd00:ec2::253", C::kPrivate},
      {"fe80::1", C::kLinkLocal},
      {"febf::1", C::kLinkLocal},
      {"fec0::1", C::kPrivate},  // deprecated site-local
      {"ff02::1", C::kMulticast},
      {"ff05::2", C::kMulticast},
      {"2606:4700:4700::1111", C::kGlobal},
      {"2a00:1450:4001::1", C::kGlobal},
      {"4000::1", C::kReserved},  // outside 2000::/3
      {"1::1", C::kReserved},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(to_string(classify(ip(c.address))), to_string(c.expected)) << c.address;
  }
}

TEST(AddressPolicyTest, ParsesTextAndRawBytes) {
  const std::uint8_t loop4[4] = {127, 0, 0, 1};
  EXPECT_EQ(IpAddress::v4(loop4), ip("127.0.0.1"));
  std::uint8_t loop6[16] = {};
  loop6[15] = 1;
  EXPECT_EQ(IpAddress::v6(loop6), ip("::1"));
  EXPECT_EQ(ip("[::1]"), ip("::1"));
  EXPECT_EQ(ip("fe80::1%eth0"), ip("fe80::1"));
  EXPECT_EQ(ip("::ffff:1.2.3.4").to_string(), "::ffff:1.2.3.4");
  EXPECT_EQ(ip("2001:DB8:0:0::1").to_string(), "2001:db8::1");
  EXPECT_TRUE(ip("1.2.3.4").is_v4());
  EXPECT_FALSE(ip("::1.2.3.4").is_v4());
  EXPECT_NE(ip("127.0.0.1"), ip("::ffff:127.0.0.1"));
  for (auto bad :
       {"", "localhost", "1.2.3", "1.2.3.4.5", "256.1.1.1", "0x7f.0.0.1", "2130706433", "01.2.3.4",
        "1.2.3.4 ", " 1.2.3.4", "[1.2.3.4]", "::g", "1:2:3:4:5:6:7:8:9", "[::1", "%eth0"}) {
    EXPECT_FALSE(IpAddress::parse(bad).has_value()) << bad;
  }
}

TEST(AddressPolicyTest, ParsesCidr) {
  const auto net = Cidr::parse("10.0.0.0/8");
  ASSERT_TRUE(net.has_value());
  EXPECT_TRUE(net->contains(ip("10.200.1.1")));
  EXPECT_FALSE(net->contains(ip("11.0.0.1")));
  EXPECT_FALSE(net->contains(ip("::ffff:10.0.0.1")));  // family differs; policy maps it
  EXPECT_EQ(net->to_string(), "10.0.0.0/8");
  const auto host = Cidr::parse("127.0.0.1");
  ASSERT_TRUE(host.has_value());
  EXPECT_TRUE(host->is_single_host());
  EXPECT_EQ(host->to_string(), "127.0.0.1/32");
  const auto odd = Cidr::parse("172.16.0.0/12");
  ASSERT_TRUE(odd.has_value());
  EXPECT_TRUE(odd->contains(ip("172.31.255.255")));
  EXPECT_FALSE(odd->contains(ip("172.32.0.0")));
  const auto v6 = Cidr::parse("fd00::/8");
  ASSERT_TRUE(v6.has_value());
  EXPECT_TRUE(v6->contains(ip("fd12::1")));
  EXPECT_FALSE(v6->contains(ip("fc00::1")));
  const auto all = Cidr::parse("0.0.0.0/0");
  ASSERT_TRUE(all.has_value());
  EXPECT_TRUE(all->contains(ip("255.255.255.255")));
  for (auto bad : {"", "/8", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/8x", "10.0.0.1/8",
                   "::1/129", "fd00::1/8", "10.0.0.0/08/1", "host/8"}) {
    EXPECT_FALSE(Cidr::parse(bad).has_value()) << bad;
  }
}

TEST(AddressPolicyTest, RefusesNonGlobalByDefaultA32) {
  const AddressPolicy policy;
  for (auto refused : {"127.0.0.1", "::1", "10.0.0.5", "192.168.0.1", "169.254.169.254",
                       "fd00:ec2::254", "fe80::1", "100.64.1.1", "224.0.0.1", "0.0.0.0",
                       "::", "::ffff:127.0.0.1", "64:ff9b::7f00:1", "2002:a00:1::1", "240.0.0.1"}) {
    const auto decision = policy.check(ip(refused));
    EXPECT_FALSE(decision.allowed) << refused;
    EXPECT_NE(decision.address_class, AddressClass::kGlobal) << refused;
  }
  const auto loopback = policy.check(ip("127.0.0.1"));
  EXPECT_EQ(loopback.reason, "127.0.0.1 is loopback");
  const auto metadata = policy.check(ip("169.254.169.254"));
  EXPECT_EQ(metadata.reason, "169.254.169.254 is cloud-metadata");
  for (auto allowed : {"8.8.8.8", "2606:4700:4700::1111", "::ffff:1.1.1.1"}) {
    EXPECT_TRUE(policy.check(ip(allowed)).allowed) << allowed;
  }
}

TEST(AddressPolicyTest, AllowListOpensSubnetsA32) {
  const std::vector<std::string> entries = {"127.0.0.0/8", "10.1.0.0/16", "fd00::/8"};
  const auto policy = AddressPolicy::from_strings(entries);
  ASSERT_TRUE(policy.has_value());
  const auto loopback = policy->check(ip("127.0.0.1"));
  EXPECT_TRUE(loopback.allowed);
  EXPECT_EQ(loopback.address_class, AddressClass::kLoopback);
  EXPECT_EQ(loopback.reason, "127.0.0.1 is loopback, allow-listed");
  EXPECT_TRUE(policy->check(ip("::ffff:127.0.0.1")).allowed);  // mapped form of the same host
  EXPECT_TRUE(policy->check(ip("10.1.2.3")).allowed);
  EXPECT_FALSE(policy->check(ip("10.2.0.1")).allowed);
  EXPECT_TRUE(policy->check(ip("fd12::1")).allowed);
  EXPECT_FALSE(policy->check(ip("::1")).allowed);            // IPv6 loopback not listed
  EXPECT_FALSE(policy->check(ip("fd00:ec2::254")).allowed);  // metadata needs its own entry
}

TEST(AddressPolicyTest, MetadataNeedsAnExactHostEntry) {
  const std::vector<std::string> wide = {"0.0.0.0/0", "::/0", "169.254.0.0/16"};
  const auto open = AddressPolicy::from_strings(wide);
  ASSERT_TRUE(open.has_value());
  EXPECT_TRUE(open->check(ip("192.168.1.1")).allowed);
  EXPECT_TRUE(open->check(ip("169.254.1.1")).allowed);
  EXPECT_FALSE(open->check(ip("169.254.169.254")).allowed);
  EXPECT_FALSE(open->check(ip("fd00:ec2::254")).allowed);
  const std::vector<std::string> exact = {"169.254.169.254/32", "fd00:ec2::254"};
  const auto metadata = AddressPolicy::from_strings(exact);
  ASSERT_TRUE(metadata.has_value());
  EXPECT_TRUE(metadata->check(ip("169.254.169.254")).allowed);
  EXPECT_TRUE(metadata->check(ip("fd00:ec2::254")).allowed);
}

TEST(AddressPolicyTest, BadAllowListEntryIsAnError) {
  const std::vector<std::string> entries = {"10.0.0.0/8", "not-a-cidr"};
  const auto policy = AddressPolicy::from_strings(entries);
  ASSERT_FALSE(policy.has_value());
  EXPECT_EQ(policy.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(policy.error().message.find("not-a-cidr"), std::string::npos);
}

}  // namespace
}  // namespace hookd
