#include "config/syntax.hpp"

#include <arpa/inet.h>

#include <array>
#include <charconv>
#include <cstdint>
#include <optional>

namespace hookd::config {
namespace {

bool is_digits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool parse_uint(std::string_view text, int& out) {
  if (!is_digits(text) || text.size() > 6) return false;
  std::from_chars(text.data(), text.data() + text.size(), out);
  return true;
}

bool is_tchar(char c) {
  static constexpr std::string_view kExtra = "!#$%&'*+-.^_`|~";
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         kExtra.find(c) != std::string_view::npos;
}

bool has_space_or_control(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return true;
  }
  return false;
}

// The port of an authority ("host:port", "[v6]:port"); nullopt when it has none.
std::optional<std::string_view> port_of(std::string_view authority) {
  std::size_t from = 0;
  if (authority.starts_with('[')) {
    from = authority.find(']');
    if (from == std::string_view::npos) return std::nullopt;
  }
  const auto colon = authority.find(':', from);
  if (colon == std::string_view::npos) return std::nullopt;
  return authority.substr(colon + 1);
}

// True when every bit after the first prefix_bits of the address is zero.
bool host_bits_zero(const unsigned char* bytes, int size, int prefix_bits) {
  for (int bit = prefix_bits; bit < size * 8; ++bit) {
    if (bytes[bit / 8] & (0x80 >> (bit % 8))) return false;
  }
  return true;
}

}  // namespace

Check check_json_pointer(std::string_view text) {
  if (text.empty() || text[0] != '/') {
    return std::unexpected("JSON pointer " + quoted(text) +
                           " must start with \"/\" (RFC 6901), e.g. \"/data/id\"");
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '~' && (i + 1 == text.size() || (text[i + 1] != '0' && text[i + 1] != '1'))) {
      return std::unexpected("JSON pointer " + quoted(text) +
                             ": \"~\" must be followed by 0 (for ~) or 1 (for /)");
    }
  }
  return {};
}

Check check_cidr(std::string_view text) {
  const std::string hint =
      "; write an address and a prefix length, e.g. \"10.0.0.0/8\" or \"fd00::/8\"";
  const auto slash = text.find('/');
  if (slash == std::string_view::npos)
    return std::unexpected("subnet " + quoted(text) + " has no /prefix" + hint);
  const std::string address(text.substr(0, slash));
  int prefix = 0;
  std::array<unsigned char, 16> bytes{};
  const bool v6 = address.find(':') != std::string::npos;
  if (inet_pton(v6 ? AF_INET6 : AF_INET, address.c_str(), bytes.data()) != 1) {
    return std::unexpected("subnet " + quoted(text) + " has an invalid IP address" + hint);
  }
  const int max_prefix = v6 ? 128 : 32;
  if (!parse_uint(text.substr(slash + 1), prefix) || prefix > max_prefix) {
    return std::unexpected("subnet " + quoted(text) + ": prefix length must be 0-" +
                           std::to_string(max_prefix));
  }
  if (!host_bits_zero(bytes.data(), v6 ? 16 : 4, prefix)) {
    return std::unexpected("subnet " + quoted(text) +
                           " has bits set after the prefix; write the network address");
  }
  return {};
}

Check check_http_url(std::string_view text) {
  std::string_view rest;
  if (text.starts_with("http://")) {
    rest = text.substr(7);
  } else if (text.starts_with("https://")) {
    rest = text.substr(8);
  } else {
    return std::unexpected("URL " + quoted(text) + " must start with http:// or https://");
  }
  if (has_space_or_control(text))
    return std::unexpected("URL " + quoted(text) + " contains spaces");
  const auto host_end = rest.find_first_of("/?#");
  if (rest.substr(0, host_end).empty())
    return std::unexpected("URL " + quoted(text) + " has no host");
  return {};
}

Check check_upstream_url(std::string_view text) {
  const auto scheme_end = text.find("://");
  const auto rest = scheme_end == std::string_view::npos ? text : text.substr(scheme_end + 3);
  const auto authority = rest.substr(0, rest.find_first_of("/?#"));
  if (auto ok = check_http_url_without_user_info(text); !ok) return ok;
  if (text.find_first_of("?#") != std::string_view::npos) {
    return std::unexpected("URL " + quoted(text) +
                           " must not have a query or fragment: each request brings its own");
  }
  const auto port = port_of(authority);
  int number = 0;
  if (port && (!parse_uint(*port, number) || number < 1 || number > 65535)) {
    return std::unexpected("URL " + quoted(text) + ": port must be 1-65535");
  }
  return {};
}

Check check_key_url_template(std::string_view text) {
  return check_url_template(text, "{key}", "http://127.0.0.1:9000/ops/{key}");
}

Check check_url_template(std::string_view text, std::string_view placeholder,
                         std::string_view example) {
  if (auto ok = check_http_url(text); !ok) return ok;
  const auto rest = text.substr(text.find("://") + 3);
  const auto after_host = rest.find_first_of("/?#");
  const auto at = rest.find(placeholder);
  if (at == std::string_view::npos || after_host == std::string_view::npos || at < after_host) {
    return std::unexpected("URL " + quoted(text) + " must contain " + std::string(placeholder) +
                           " in its path or query (it is replaced by the URL-encoded " +
                           std::string(placeholder.substr(1, placeholder.size() - 2)) + "), e.g. " +
                           quoted(example));
  }
  return {};
}

Check check_http_url_without_user_info(std::string_view text) {
  const auto scheme_end = text.find("://");
  const auto rest = scheme_end == std::string_view::npos ? text : text.substr(scheme_end + 3);
  const auto authority = rest.substr(0, rest.find_first_of("/?#"));
  if (authority.find('@') != std::string_view::npos) {
    return std::unexpected(
        std::string("URL must not hold user info (user:password@; the value is not shown)"));
  }
  return check_http_url(text);
}

Check check_method(std::string_view text) {
  bool ok = !text.empty();
  for (char c : text) ok = ok && is_tchar(c) && !(c >= 'a' && c <= 'z');
  if (!ok) {
    return std::unexpected("method " + quoted(text) +
                           " must be an upper-case HTTP method token, e.g. \"POST\"");
  }
  return {};
}

Check check_database_url(std::string_view text) {
  if (text.empty()) return std::unexpected("is empty; give a SQLite file path or postgresql://...");
  const auto scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos) return {};  // a SQLite file path
  const auto scheme = text.substr(0, scheme_end);
  if (scheme == "postgresql" || scheme == "postgres") return {};
  // The URL may hold a password: name the scheme only.
  return std::unexpected("unsupported URL scheme \"" + std::string(scheme) +
                         "://\"; use a SQLite file path or postgresql://...");
}

Check check_listen_address(std::string_view text) {
  const std::string hint = "; write host:port, e.g. \"127.0.0.1:8071\" or \"[::1]:8071\"";
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) return std::unexpected(quoted(text) + " has no port" + hint);
  std::string_view host = text.substr(0, colon);
  int port = 0;
  if (!parse_uint(text.substr(colon + 1), port) || port > 65535) {
    return std::unexpected(quoted(text) + ": port must be 0-65535" + hint);
  }
  if (host.starts_with('[') && host.ends_with(']')) {
    std::array<unsigned char, 16> bytes{};
    const std::string inner(host.substr(1, host.size() - 2));
    if (inet_pton(AF_INET6, inner.c_str(), bytes.data()) != 1) {
      return std::unexpected(quoted(text) + " has an invalid IPv6 address" + hint);
    }
    return {};
  }
  if (host.empty() || host.find_first_of("[]:/ ") != std::string_view::npos) {
    return std::unexpected(quoted(text) + " has an invalid host" + hint);
  }
  return {};
}

Check check_header_name(std::string_view text) {
  if (text.empty()) return std::unexpected("header name is empty");
  for (char c : text) {
    if (!is_tchar(c)) {
      return std::unexpected("header name " + quoted(text) +
                             " may only contain letters, digits and !#$%&'*+-.^_`|~");
    }
  }
  return {};
}

Check check_url_path(std::string_view text) {
  if (!text.starts_with('/') || has_space_or_control(text) ||
      text.find_first_of("?#") != std::string_view::npos) {
    return std::unexpected("path " + quoted(text) +
                           " must start with \"/\" and have no spaces, ? or #");
  }
  return {};
}

Check check_business_key_template(std::string_view text) {
  bool any = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto open = text.find_first_of("{}", pos);
    if (open == std::string_view::npos) break;
    const auto close = text.find('}', open);
    if (text[open] == '}' || close == std::string_view::npos) {
      return std::unexpected("template " + quoted(text) + " has an unbalanced brace");
    }
    const auto pointer = text.substr(open + 1, close - open - 1);
    if (pointer.find('{') != std::string_view::npos) {
      return std::unexpected("template " + quoted(text) + " has an unbalanced brace");
    }
    if (auto ok = check_json_pointer(pointer); !ok) {
      return std::unexpected("template " + quoted(text) + ": " + ok.error());
    }
    any = true;
    pos = close + 1;
  }
  if (!any) {
    return std::unexpected(
        "template " + quoted(text) +
        " has no {/json/pointer} placeholder, e.g. \"delivery:{/data/order_id}\"");
  }
  return {};
}

Check check_hmac_template(std::string_view text) {
  bool has_body = false;
  std::size_t pos = 0;
  while ((pos = text.find('{', pos)) != std::string_view::npos) {
    const auto close = text.find('}', pos);
    const auto name = text.substr(pos, close == std::string_view::npos ? close : close - pos + 1);
    if (name != "{id}" && name != "{timestamp}" && name != "{body}") {
      return std::unexpected("template " + quoted(text) + ": unknown placeholder " + quoted(name) +
                             "; use {id}, {timestamp} and {body}");
    }
    has_body = has_body || name == "{body}";
    pos = close;
  }
  if (!has_body) return std::unexpected("template " + quoted(text) + " must contain {body}");
  return {};
}

Check check_base64(std::string_view text, std::size_t expected_bytes) {
  while (text.ends_with('=')) text.remove_suffix(1);
  if (text.empty()) return std::unexpected("the base64 part is empty");
  for (char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '+' || c == '/' || c == '-' || c == '_';
    if (!ok) return std::unexpected("the part after the prefix is not base64");
  }
  if (text.size() % 4 == 1) return std::unexpected("the base64 part has an impossible length");
  const std::size_t bytes = text.size() * 3 / 4;
  if (expected_bytes > 0 && bytes != expected_bytes) {
    return std::unexpected("the key must be " + std::to_string(expected_bytes) + " bytes, got " +
                           std::to_string(bytes));
  }
  return {};
}

Check check_name(std::string_view text) {
  const bool ok_start =
      !text.empty() && ((text[0] >= 'a' && text[0] <= 'z') || (text[0] >= '0' && text[0] <= '9'));
  bool ok = ok_start && text.size() <= 64;
  for (char c : text) {
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-');
  }
  if (!ok) {
    return std::unexpected("name " + quoted(text) +
                           " must be 1-64 characters of a-z, 0-9, _ and -, starting with a letter "
                           "or digit");
  }
  return {};
}

// Built with append: GCC 12 warns (-Wrestrict, a false positive) on "\"" + std::string.
std::string quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out.append(1, '"').append(text).append(1, '"');
  return out;
}

}  // namespace hookd::config
