#include "run/MirrorDirectory.h"

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

#include "common/InputError.h"
#include "run/RunFiles.h"
#include "run/RunNaming.h"

namespace ampscope {
namespace {

std::string localName(std::string_view remoteName) {
    const std::string safe = fileSafeRunName(std::string(remoteName));
    return safe == "." || safe == ".." ? std::string("run") : safe;
}

[[noreturn]] void writeFailed(const std::string& path, int error) {
    throw InputError(path + ": cannot write the local copy (" + runfiles::errnoText(error) + ")");
}

}  // namespace

MirrorDirectory::MirrorDirectory(std::string_view remoteName) {
    const char* tmp = std::getenv("TMPDIR");
    std::string root = std::string(tmp && *tmp ? tmp : "/tmp") + "/ampscope-ssh-XXXXXX";
    if (::mkdtemp(root.data()) == nullptr) writeFailed(root, errno);
    root_ = root;
    path_ = runfiles::joinPath(root_, localName(remoteName));
    if (::mkdir(path_.c_str(), 0700) != 0) writeFailed(path_, errno);
}

MirrorDirectory::~MirrorDirectory() {
    for (auto& [name, run] : runs_)
        if (run.eventsFd >= 0) ::close(run.eventsFd);
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
}

MirrorDirectory::Run& MirrorDirectory::run(const std::string& name) {
    const auto found = runs_.find(name);
    if (found != runs_.end()) return found->second;
    if (!isRemoteRunName(name)) throw std::invalid_argument("MirrorDirectory: not a run name: " + name);
    if (runs_.size() >= kMaxRuns)
        throw InputError("more than " + std::to_string(kMaxRuns) +
                         " runs in one folder; follow a run, or a job of fewer ranks");
    Run run;
    run.directory = name == "." ? path_ : runfiles::joinPath(path_, name);
    if (name != "." && ::mkdir(run.directory.c_str(), 0700) != 0 && errno != EEXIST)
        writeFailed(run.directory, errno);
    run.state.run = name;
    return runs_.emplace(name, std::move(run)).first->second;
}

void MirrorDirectory::addRun(const std::string& name) {
    run(name);
}

std::int64_t MirrorDirectory::eventsBytes(const std::string& name) const {
    const auto found = runs_.find(name);
    return found == runs_.end() ? 0 : found->second.state.eventsBytes;
}

void MirrorDirectory::appendEvents(const std::string& name, const char* data, std::size_t size) {
    Run& r = run(name);
    const std::string path = runfiles::joinPath(r.directory, "events.jsonl");
    if (r.eventsFd < 0) {
        r.eventsFd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (r.eventsFd < 0) writeFailed(path, errno);
    }
    // Straight to the file, no buffer of ours: a follower reading it sees every byte as
    // soon as it is here, and all of them before summary.json is renamed into place.
    if (const int error = runfiles::writeAll(r.eventsFd, data, size); error != 0)
        writeFailed(path, error);
    r.state.eventsBytes += static_cast<std::int64_t>(size);
    bytesCopied_ += static_cast<std::int64_t>(size);
}

void MirrorDirectory::truncateEvents(const std::string& name, std::int64_t bytes) {
    Run& r = run(name);
    const std::string path = runfiles::joinPath(r.directory, "events.jsonl");
    if (::truncate(path.c_str(), bytes) != 0 && errno != ENOENT) writeFailed(path, errno);
    r.state.eventsBytes = bytes;
}

void MirrorDirectory::writeFile(const std::string& name, std::string_view file, const std::string& content) {
    Run& r = run(name);
    const std::string path = runfiles::joinPath(r.directory, file);
    const std::string temp = path + ".part";
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) writeFailed(temp, errno);
    const int error = runfiles::writeAll(fd, content.data(), content.size());
    ::close(fd);
    if (error != 0) writeFailed(temp, error);
    if (::rename(temp.c_str(), path.c_str()) != 0) writeFailed(path, errno);
    bytesCopied_ += static_cast<std::int64_t>(content.size());
    if (file == "config.json") r.state.haveConfig = true;
    if (file == "narrative.md") r.state.haveNarrative = true;
    if (file == "summary.json") r.state.haveSummary = true;
}

std::vector<RemoteRunResume> MirrorDirectory::resume() const {
    std::vector<RemoteRunResume> states;
    for (const auto& [name, run] : runs_) states.push_back(run.state);
    return states;
}

}  // namespace ampscope
