#include "config/names.hpp"

#include <array>

namespace hookd::config {
namespace {

constexpr std::array<EnumName<SqliteSynchronous>, 3> kSynchronous{{
    {"full", SqliteSynchronous::kFull},
    {"normal", SqliteSynchronous::kNormal},
    {"extra", SqliteSynchronous::kExtra},
}};

constexpr std::array<EnumName<Scheme>, 10> kSchemes{{
    {"standard", Scheme::kStandard},
    {"standard-ed25519", Scheme::kStandardEd25519},
    {"stripe", Scheme::kStripe},
    {"github", Scheme::kGithub},
    {"hmac-hex-ts", Scheme::kHmacHexTs},
    {"hmac", Scheme::kHmac},
    {"cloudevents", Scheme::kCloudEvents},
    {"token", Scheme::kToken},
    {"none", Scheme::kNone},
    {"svix", Scheme::kStandard},  // alias, as for `hookd sign --scheme`
}};

constexpr std::array<EnumName<HmacAlgorithm>, 2> kAlgorithms{{
    {"sha256", HmacAlgorithm::kSha256},
    {"sha512", HmacAlgorithm::kSha512},
}};

constexpr std::array<EnumName<SignatureEncoding>, 2> kEncodings{{
    {"hex", SignatureEncoding::kHex},
    {"base64", SignatureEncoding::kBase64},
}};

constexpr std::array<EnumName<LogLevel>, 6> kLevels{{
    {"trace", LogLevel::kTrace},
    {"debug", LogLevel::kDebug},
    {"info", LogLevel::kInfo},
    {"warn", LogLevel::kWarn},
    {"error", LogLevel::kError},
    {"off", LogLevel::kOff},
}};

constexpr std::array<EnumName<LogFormat>, 2> kFormats{{
    {"json", LogFormat::kJson},
    {"text", LogFormat::kText},
}};

constexpr std::array<EnumName<ReconcileRepair>, 2> kRepairs{{
    {"auto", ReconcileRepair::kAuto},
    {"manual", ReconcileRepair::kManual},
}};

constexpr std::array<EnumName<SinceFormat>, 2> kSinceFormats{{
    {"unix", SinceFormat::kUnix},
    {"rfc3339", SinceFormat::kRfc3339},
}};

}  // namespace

std::span<const EnumName<SqliteSynchronous>> enum_names(SqliteSynchronous) { return kSynchronous; }
std::span<const EnumName<Scheme>> enum_names(Scheme) { return kSchemes; }
std::span<const EnumName<HmacAlgorithm>> enum_names(HmacAlgorithm) { return kAlgorithms; }
std::span<const EnumName<SignatureEncoding>> enum_names(SignatureEncoding) { return kEncodings; }
std::span<const EnumName<LogLevel>> enum_names(LogLevel) { return kLevels; }
std::span<const EnumName<LogFormat>> enum_names(LogFormat) { return kFormats; }
std::span<const EnumName<ReconcileRepair>> enum_names(ReconcileRepair) { return kRepairs; }
std::span<const EnumName<SinceFormat>> enum_names(SinceFormat) { return kSinceFormats; }

std::string_view default_event_id(Scheme scheme) {
  switch (scheme) {
    case Scheme::kStandard:
    case Scheme::kStandardEd25519:
      return "webhook-id";  // or svix-id with svix-* headers
    case Scheme::kStripe:
      return "/id";
    case Scheme::kGithub:
      return "X-GitHub-Delivery";
    case Scheme::kCloudEvents:
      return "ce-id";  // structured mode: the "id" attribute
    default:
      return "";
  }
}

}  // namespace hookd::config
