#pragma once
// Small helpers shared by the suites: locations handed in by CTest's environment.
#include <QtCore/QByteArray>
#include <QtCore/QString>
#include <cstdlib>
#include <string>

namespace ampscope::test {

inline std::string envOr(const char* name, const char* fallback) {
    const char* value = std::getenv(name);
    return value ? std::string(value) : std::string(fallback);
}
inline std::string testDataDir() { return envOr("AMPSCOPE_TEST_DATA", "tests/data"); }
inline std::string sourceDir() { return envOr("AMPSCOPE_SOURCE_DIR", "."); }
inline std::string cliPath() { return envOr("AMPSCOPE_CLI", "ampscope-cli"); }

}  // namespace ampscope::test
