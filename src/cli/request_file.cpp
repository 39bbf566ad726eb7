#include "cli/request_file.hpp"

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace hookd::cli {
namespace {

using json = nlohmann::ordered_json;  // keeps the headers in file order

Status add_header(const std::string& name, const json& value, HttpHeaders& headers) {
  const auto is_string = [](const json& v) { return v.is_string(); };
  if (value.is_string()) {
    headers.push_back({name, value.get<std::string>()});
    return {};
  }
  if (value.is_array() && std::ranges::all_of(value, is_string)) {
    for (const json& item : value) headers.push_back({name, item.get<std::string>()});
    return {};
  }
  return fail(ErrorCode::kInvalidArgument,
              "header '" + name + "' must be a string or an array of strings");
}

Result<HttpHeaders> parse_headers(const json& request) {
  const auto it = request.find("headers");
  if (it == request.end() || !it->is_object()) {
    return fail(ErrorCode::kInvalidArgument, "\"headers\" must be an object of name: value");
  }
  HttpHeaders headers;
  for (const auto& [name, value] : it->items()) {
    if (Status added = add_header(name, value, headers); !added) {
      return std::unexpected(added.error());
    }
  }
  return headers;
}

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

// Standard or URL-safe alphabet; padding optional.
Result<std::string> decode_base64(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  std::string bytes;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    const int value = base64_value(c);
    if (value < 0) {
      return fail(ErrorCode::kInvalidArgument, "\"body_base64\" is not valid base64");
    }
    buffer = (buffer << 6) | static_cast<std::uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  if (bits >= 6) {  // one leftover character cannot encode a byte
    return fail(ErrorCode::kInvalidArgument, "\"body_base64\" has a truncated final group");
  }
  return bytes;
}

Result<std::string> parse_body(const json& request) {
  const auto text = request.find("body");
  const auto encoded = request.find("body_base64");
  const bool has_text = text != request.end();
  const bool has_encoded = encoded != request.end();
  if (has_text == has_encoded) {
    return fail(ErrorCode::kInvalidArgument,
                "give exactly one of \"body\" (a string) or \"body_base64\"");
  }
  if (has_text) {
    if (!text->is_string()) {
      return fail(ErrorCode::kInvalidArgument,
                  "\"body\" must be a string holding the raw body, not parsed JSON");
    }
    return text->get<std::string>();
  }
  if (!encoded->is_string()) {
    return fail(ErrorCode::kInvalidArgument, "\"body_base64\" must be a string");
  }
  return decode_base64(encoded->get<std::string>());
}

}  // namespace

Result<CapturedRequest> parse_request_file(std::string_view json_text) {
  const json request = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (request.is_discarded()) {
    return fail(ErrorCode::kInvalidArgument, "request file is not valid JSON");
  }
  if (!request.is_object()) {
    return fail(ErrorCode::kInvalidArgument,
                "request file must be a JSON object {\"headers\": {...}, \"body\": \"...\"}");
  }
  Result<HttpHeaders> headers = parse_headers(request);
  if (!headers) return std::unexpected(headers.error());
  Result<std::string> body = parse_body(request);
  if (!body) return std::unexpected(body.error());
  return CapturedRequest{std::move(*headers), std::move(*body)};
}

}  // namespace hookd::cli
