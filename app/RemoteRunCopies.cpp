#include "RemoteRunCopies.h"

#include <chrono>

#include "common/Text.h"
#include "run/RemoteRunAddress.h"
#include "run/RemoteRunMirror.h"

namespace ampscope::app {

RemoteRunCopies::RemoteRunCopies(const std::vector<std::string>& directories, bool quiet,
                                 std::FILE* progress) {
    using Clock = std::chrono::steady_clock;
    given_ = directories;
    for (const std::string& directory : directories) {
        if (!isRemoteRunAddress(directory)) {
            local_.push_back(directory);
            continue;
        }
        RemoteMirrorOptions options = RemoteMirrorOptions::fromEnvironment();
        options.follow = false;
        auto mirror = std::make_unique<RemoteRunMirror>(parseRemoteRunAddress(directory), options);
        const Clock::time_point started = Clock::now();
        Clock::time_point said = started;
        mirror->waitUntilSynced([&](const RemoteRunMirror::Status& status) {
            const Clock::time_point now = Clock::now();
            if (quiet || !progress || now - said < std::chrono::seconds(2)) return;
            said = now;
            std::fprintf(progress, "copying %s: %s so far%s\n",
                         mirror->address().shown().c_str(), formatBytes(status.bytesCopied).c_str(),
                         status.state == RemoteRunMirror::State::Reconnecting ? " (reconnecting…)" : "");
            std::fflush(progress);
        });
        local_.push_back(mirror->localDirectory());
        mirrors_.push_back(std::move(mirror));
    }
}

RemoteRunCopies::~RemoteRunCopies() = default;

std::string RemoteRunCopies::shown(std::string message) const {
    for (std::size_t i = 0; i < local_.size(); ++i) {
        if (local_[i] == given_[i]) continue;
        for (std::size_t at = message.find(local_[i]); at != std::string::npos;
             at = message.find(local_[i], at + given_[i].size()))
            message.replace(at, local_[i].size(), given_[i]);
    }
    return message;
}

}  // namespace ampscope::app
