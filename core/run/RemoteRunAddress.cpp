#include "run/RemoteRunAddress.h"

#include <algorithm>

#include "common/InputError.h"

namespace ampscope {
namespace {

int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool hasControlOrSpace(std::string_view text) {
    return std::any_of(text.begin(), text.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return byte <= 0x20 || byte == 0x7f;
    });
}

std::string percentDecoded(const std::string& address, std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        const bool both = i + 2 < text.size();
        const int high = both ? hexValue(text[i + 1]) : -1;
        const int low = both ? hexValue(text[i + 2]) : -1;
        if (high < 0 || low < 0)
            throw InputError(address + ": '%' must start an escape of two hex digits (%20 is a space)");
        out += static_cast<char>(high * 16 + low);
        i += 2;
    }
    if (out.find('\0') != std::string::npos) throw InputError(address + ": the path holds %00");
    return out;
}

// ssh reads an argument that starts with '-' as an option; a space or a control
// character has no place in a host or user name either.
void checkName(const std::string& address, std::string_view what, std::string_view name) {
    if (name.empty()) throw InputError(address + ": no " + std::string(what) + " before '@'");
    if (name.front() == '-' || hasControlOrSpace(name))
        throw InputError(address + ": the " + std::string(what) + " '" + std::string(name) +
                         "' starts with '-' or holds a space or control character");
}

}  // namespace

bool isRemoteRunAddress(std::string_view text) {
    return text.substr(0, kRemoteRunScheme.size()) == kRemoteRunScheme;
}

std::string RemoteRunAddress::shown() const {
    std::string text;
    if (!user.empty()) text.append(user).append("@");
    const bool brackets = host.find(':') != std::string::npos;  // an IPv6 address
    if (brackets) text.append("[");
    text.append(host);
    if (brackets) text.append("]");
    return text.append(":").append(path);
}

RemoteRunAddress parseRemoteRunAddress(const std::string& text) {
    if (!isRemoteRunAddress(text))
        throw InputError(text + ": not an ssh:// address (ssh://[user@]host[:port]/path)");
    const std::string_view rest = std::string_view(text).substr(kRemoteRunScheme.size());
    const std::size_t slash = rest.find('/');
    if (slash == std::string_view::npos || slash + 1 >= rest.size())
        throw InputError(text + ": no path after the host (ssh://[user@]host[:port]/path)");
    std::string_view authority = rest.substr(0, slash);
    RemoteRunAddress address;
    if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
        address.user = percentDecoded(text, authority.substr(0, at));
        checkName(text, "user", address.user);
        authority.remove_prefix(at + 1);
    }
    std::string_view portText;
    if (!authority.empty() && authority.front() == '[') {
        const std::size_t close = authority.find(']');
        if (close == std::string_view::npos) throw InputError(text + ": '[' without ']' around the host");
        address.host = std::string(authority.substr(1, close - 1));
        const std::string_view after = authority.substr(close + 1);
        if (!after.empty() && after.front() != ':')
            throw InputError(text + ": ']' must be followed by ':port' or the path");
        if (!after.empty()) portText = after.substr(1);
    } else if (const std::size_t colon = authority.find(':'); colon != std::string_view::npos) {
        address.host = std::string(authority.substr(0, colon));
        portText = authority.substr(colon + 1);
    } else {
        address.host = std::string(authority);
    }
    if (address.host.empty()) throw InputError(text + ": no host (ssh://[user@]host[:port]/path)");
    if (address.host.front() == '-' || hasControlOrSpace(address.host))
        throw InputError(text + ": the host '" + address.host +
                         "' starts with '-' or holds a space or control character");
    if (!portText.empty() || authority.back() == ':') {
        const bool digits = !portText.empty() && portText.size() <= 5 &&
                            std::all_of(portText.begin(), portText.end(),
                                        [](char c) { return c >= '0' && c <= '9'; });
        const int port = digits ? std::stoi(std::string(portText)) : 0;
        if (port < 1 || port > 65535)
            throw InputError(text + ": port '" + std::string(portText) + "' is not a number in 1..65535");
        address.port = port;
    }
    std::string path = percentDecoded(text, rest.substr(slash));
    // "/~/runs/x" (and "/~") name a folder in the remote home directory, where the
    // remote shell starts.
    if (path == "/~" || path == "/~/") {
        path.assign(1, '.');
    } else if (path.rfind("/~/", 0) == 0) {
        path.erase(0, 3);
    }
    address.path = path;
    return address;
}

}  // namespace ampscope
