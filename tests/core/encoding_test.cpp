// Base64 and hex codecs: RFC 4648 test vectors and strict rejection of non-canonical input.
#include "hookd/encoding.hpp"

#include <gtest/gtest.h>

namespace hookd {
namespace {

std::string text(const std::optional<Bytes>& bytes) {
  if (!bytes) return "<invalid>";
  return std::string(bytes->begin(), bytes->end());
}

TEST(Base64, Rfc4648Vectors) {
  const std::pair<std::string_view, std::string_view> vectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
  };
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(base64_encode(as_bytes(plain)), encoded);
    EXPECT_EQ(text(base64_decode(encoded)), plain);
  }
}

TEST(Base64, PaddingIsOptionalButMustBeComplete) {
  EXPECT_EQ(text(base64_decode("Zg")), "f");
  EXPECT_EQ(text(base64_decode("Zm8")), "fo");
  EXPECT_EQ(text(base64_decode("Zg=")), "<invalid>");
  EXPECT_EQ(text(base64_decode("Zm8==")), "<invalid>");
  EXPECT_EQ(text(base64_decode("Zm9v=")), "<invalid>");
  EXPECT_EQ(text(base64_decode("====")), "<invalid>");
  EXPECT_EQ(text(base64_decode("Z")), "<invalid>");
}

TEST(Base64, RejectsForeignCharactersAndNonCanonicalBits) {
  EXPECT_EQ(text(base64_decode("Zm9v YmFy")), "<invalid>");
  EXPECT_EQ(text(base64_decode("Zm9v\nYmFy")), "<invalid>");
  EXPECT_EQ(text(base64_decode("Zm9-")), "<invalid>");  // URL-safe alphabet is not accepted
  EXPECT_EQ(text(base64_decode("Zh==")), "<invalid>");  // unused bits set ("Zg==" is canonical)
  EXPECT_EQ(text(base64_decode("Zm9=")), "<invalid>");
}

TEST(Base64, RoundTripsAllByteValues) {
  Bytes all(256);
  for (int i = 0; i < 256; ++i) all[i] = static_cast<std::uint8_t>(i);
  for (std::size_t n = 0; n <= all.size(); n += 37) {
    const ByteView prefix(all.data(), n);
    const auto decoded = base64_decode(base64_encode(prefix));
    ASSERT_TRUE(decoded);
    EXPECT_TRUE(std::ranges::equal(*decoded, prefix));
  }
}

TEST(Hex, EncodesLowercaseAndDecodesEitherCase) {
  const Bytes bytes = {0x00, 0x7f, 0xab, 0xff};
  EXPECT_EQ(hex_encode(bytes), "007fabff");
  EXPECT_EQ(hex_decode("007FABff"), bytes);
  EXPECT_EQ(hex_decode(""), Bytes{});
}

TEST(Hex, RejectsOddLengthAndNonHex) {
  EXPECT_FALSE(hex_decode("abc"));
  EXPECT_FALSE(hex_decode("zz"));
  EXPECT_FALSE(hex_decode("0x12"));
  EXPECT_FALSE(hex_decode("12 "));
}

}  // namespace
}  // namespace hookd
