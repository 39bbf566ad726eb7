#include "api/media_type.hpp"

#include <string>

namespace hookd::api {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

ApiError unsupported(std::string detail, std::string_view method) {
  ApiError error = api_error(415, "unsupported_media_type", std::move(detail));
  if (method == "PATCH") error.headers.push_back({"Accept-Patch", "application/json"});
  if (method == "POST") error.headers.push_back({"Accept-Post", "application/json"});
  return error;
}

}  // namespace

bool is_json_media_type(std::string_view content_type) {
  const std::string type = lower(trim(content_type.substr(0, content_type.find(';'))));
  constexpr std::string_view kApplication = "application/";
  constexpr std::string_view kSuffix = "+json";
  if (type == "application/json") return true;
  return type.size() > kApplication.size() + kSuffix.size() && type.starts_with(kApplication) &&
         type.ends_with(kSuffix) && type.find('/', kApplication.size()) == std::string::npos;
}

std::optional<ApiError> body_media_type_error(const net::HttpRequest& request) {
  if (request.body.empty()) return std::nullopt;
  const auto types = request.headers.get_all("Content-Type");
  if (types.size() > 1) {
    return unsupported("The request has more than one Content-Type; send one: application/json",
                       request.method);
  }
  if (!types.empty() && !is_json_media_type(types.front())) {
    return unsupported("The request body must be JSON (Content-Type: application/json), not '" +
                           std::string(types.front()) + "'",
                       request.method);
  }
  for (auto coding : request.headers.get_all("Content-Encoding")) {
    if (lower(trim(coding)) != "identity") {
      return unsupported("Content-Encoding '" + std::string(coding) +
                             "' is not supported; send the JSON body uncompressed",
                         request.method);
    }
  }
  return std::nullopt;
}

}  // namespace hookd::api
