// Shared parts of the Standard Webhooks schemes (see scheme_standard_common.hpp).
#include "core/scheme_standard_common.hpp"

namespace hookd::signing_detail {

StandardHeaderNames standard_header_names(HeaderNaming naming) {
  if (naming == HeaderNaming::kSvix) return {"svix-id", "svix-timestamp", "svix-signature"};
  return {"webhook-id", "webhook-timestamp", "webhook-signature"};
}

std::expected<StandardRequest, VerifyError> read_standard_request(const HttpHeaders& headers,
                                                                  const SchemeOptions& options,
                                                                  std::int64_t now_unix) {
  // kBoth reads as kWebhook: webhook-* first, svix-* when the request has only those.
  const HeaderNaming first =
      options.naming == HeaderNaming::kSvix ? HeaderNaming::kSvix : HeaderNaming::kWebhook;
  const HeaderNaming other =
      first == HeaderNaming::kSvix ? HeaderNaming::kWebhook : HeaderNaming::kSvix;
  StandardHeaderNames names = standard_header_names(first);
  auto signatures = find_header(headers, names.signature);
  if (!signatures) {
    const StandardHeaderNames alternative = standard_header_names(other);
    signatures = find_header(headers, alternative.signature);
    if (!signatures) {
      return reject(VerifyFailure::kMissingHeader, "missing header " +
                                                       std::string(names.signature) + " (or " +
                                                       std::string(alternative.signature) + ")");
    }
    names = alternative;
  }
  const auto id = read_header(headers, names.id);
  if (!id) return std::unexpected(id.error());
  const auto timestamp = read_timestamp(headers, names.timestamp, now_unix, options.tolerance);
  if (!timestamp) return std::unexpected(timestamp.error());
  return StandardRequest{*id, *timestamp, *signatures};
}

HttpHeaders standard_headers(HeaderNaming naming, std::string_view id, std::int64_t timestamp,
                             std::string signatures) {
  HttpHeaders headers;
  auto add_family = [&](HeaderNaming family) {
    const StandardHeaderNames names = standard_header_names(family);
    headers.push_back({std::string(names.id), std::string(id)});
    headers.push_back({std::string(names.timestamp), std::to_string(timestamp)});
    headers.push_back({std::string(names.signature), signatures});
  };
  if (naming != HeaderNaming::kSvix) add_family(HeaderNaming::kWebhook);
  if (naming != HeaderNaming::kWebhook) add_family(HeaderNaming::kSvix);
  return headers;
}

std::string standard_content(std::string_view id, std::int64_t timestamp, std::string_view body) {
  std::string content;
  const std::string ts = std::to_string(timestamp);
  content.reserve(id.size() + ts.size() + body.size() + 2);
  content.append(id).append(".").append(ts).append(".").append(body);
  return content;
}

std::optional<Bytes> decode_prefixed_key(std::string_view secret, std::string_view prefix,
                                         bool prefix_optional) {
  if (secret.starts_with(prefix)) {
    secret.remove_prefix(prefix.size());
  } else if (!prefix_optional) {
    return std::nullopt;
  }
  auto key = base64_decode(secret);
  if (!key || key->empty()) return std::nullopt;
  return key;
}

}  // namespace hookd::signing_detail
