#pragma once
// Where a run on another machine is: ssh://[user@]host[:port]/path, the address the
// window, `ampscope --open-run` and every ampscope-cli command that reads runs accept.
//
// Contract:
// - isRemoteRunAddress is true for text that starts with "ssh://" (and only then is it
//   parsed: a local directory can have any other name).
// - parseRemoteRunAddress accepts ssh://[user@]host[:port]/path where host is a name,
//   an address or an alias of the user's ssh_config, or [IPv6] in brackets; path is
//   absolute ("/data/run"), or relative to the remote home directory after "/~/"
//   ("ssh://gpu/~/runs/x" is runs/x in the home directory). %XX escapes are decoded.
//   Anything else is an InputError naming the address and what is wrong: no host, an
//   empty path, a port outside 1..65535, and a user or host that starts with '-' or holds
//   spaces or control characters (they would reach ssh's own command line as options).
// - shown() is what messages and the status bar name: "[user@]host:path".
// No torch, no Qt.
#include <string>
#include <string_view>

namespace ampscope {

inline constexpr std::string_view kRemoteRunScheme = "ssh://";

struct RemoteRunAddress {
    std::string user;  // empty: ssh's choice (ssh_config's User, else the local user)
    std::string host;
    int port = 0;      // 0: ssh's choice (ssh_config's Port, else 22)
    std::string path;  // absolute, or relative to the remote home directory

    std::string shown() const;
};

bool isRemoteRunAddress(std::string_view text);

RemoteRunAddress parseRemoteRunAddress(const std::string& text);

}  // namespace ampscope
