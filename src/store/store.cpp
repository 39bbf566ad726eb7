// Placeholder translation unit until the Store interface lands (issue 2).
namespace hookd::store {}
