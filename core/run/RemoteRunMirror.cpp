#include "run/RemoteRunMirror.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <optional>
#include <sstream>
#include <unistd.h>
#include <vector>

#include "common/InputError.h"
#include "run/RemoteFollowScript.h"
#include "run/RunFiles.h"

namespace ampscope {
namespace {

using Clock = std::chrono::steady_clock;

// A config, narrative or summary larger than this is not one a writer made.
constexpr std::int64_t kMaxWholeFileBytes = 64 << 20;
// Lines a login script prints before the program starts (a banner, a motd).
constexpr std::size_t kMaxChatterBytes = 64 << 10;
constexpr int kReadBytes = 1 << 16;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<std::string> words(const std::string& line) {
    std::vector<std::string> out;
    std::istringstream in(line);
    for (std::string word; in >> word;) out.push_back(word);
    return out;
}

bool parseCount(const std::string& text, std::int64_t& value) {
    if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos)
        return false;
    value = std::stoll(text);
    return true;
}

bool isWholeFileName(const std::string& name) {
    return name == "config.json" || name == "narrative.md" || name == "summary.json";
}

}  // namespace

RemoteMirrorOptions RemoteMirrorOptions::fromEnvironment() {
    RemoteMirrorOptions options;
    if (const char* seconds = std::getenv("AMPSCOPE_SSH_RECONNECT_SECONDS"); seconds && *seconds) {
        char* end = nullptr;
        const double value = std::strtod(seconds, &end);
        if (end && *end == '\0' && value >= 0) options.giveUpSeconds = value;
    }
    return options;
}

std::string remoteRunMessage(const RemoteRunAddress& address, const std::string& what) {
    return address.shown() + ": " + what;
}

const char* remoteMirrorStateName(RemoteRunMirror::State state) {
    switch (state) {
        case RemoteRunMirror::State::Connecting: return "connecting";
        case RemoteRunMirror::State::Copying: return "copying";
        case RemoteRunMirror::State::Following: return "following";
        case RemoteRunMirror::State::Reconnecting: return "reconnecting";
        case RemoteRunMirror::State::Finished: return "finished";
        case RemoteRunMirror::State::Failed: return "failed";
    }
    return "";
}

// One connection: reads the remote program's messages and applies them to the copy.
class RemoteRunMirror::Session {
public:
    enum class End { Dropped, Done, Failed, Stopped };

    Session(RemoteRunMirror& mirror, SshProcess& ssh) : mirror_(mirror), ssh_(ssh) {}

    End run() {
        Clock::time_point heard = Clock::now();
        std::vector<char> chunk(kReadBytes);
        for (;;) {
            if (mirror_.stopRequested_) return End::Stopped;
            pollfd fds[3] = {{ssh_.outputFd(), POLLIN, 0},
                             {ssh_.errorFd(), POLLIN, 0},
                             {mirror_.wakeRead_, POLLIN, 0}};
            ::poll(fds, 3, 250);
            ssh_.readErrors();
            bool ended = false;
            for (;;) {
                const ssize_t got = ::read(ssh_.outputFd(), chunk.data(), chunk.size());
                if (got > 0) {
                    heard = Clock::now();
                    const auto end = take(chunk.data(), static_cast<std::size_t>(got));
                    const std::int64_t bytes = mirror_.directory_.bytesCopied();
                    mirror_.setStatus([bytes](Status& s) { s.bytesCopied = bytes; });
                    if (end) return *end;
                    continue;
                }
                if (got < 0 && errno == EINTR) continue;
                ended = got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
                break;
            }
            if (ended) return End::Dropped;
            if (secondsSince(heard) > mirror_.options_.silenceSeconds) {
                ssh_.terminate();
                lastProblem = "nothing arrived for " +
                              std::to_string(static_cast<int>(mirror_.options_.silenceSeconds)) + " s";
                return End::Dropped;
            }
        }
    }

    bool helloSeen = false;
    std::string failure;      // End::Failed: the one line
    std::string lastProblem;  // End::Dropped because the connection went silent

private:
    enum class Mode { Hello, Header, Data, File };

    // Takes bytes from the connection; an End when the session is over.
    std::optional<End> take(const char* data, std::size_t size) {
        std::size_t i = 0;
        while (i < size) {
            if (mode_ == Mode::Data || mode_ == Mode::File) {
                const std::size_t part =
                    static_cast<std::size_t>(std::min<std::int64_t>(remaining_, static_cast<std::int64_t>(size - i)));
                if (mode_ == Mode::Data) {
                    mirror_.directory_.appendEvents(run_, data + i, part);
                } else {
                    content_.append(data + i, part);
                }
                remaining_ -= static_cast<std::int64_t>(part);
                i += part;
                if (remaining_ == 0) finishPayload();
                continue;
            }
            const char* newline = static_cast<const char*>(std::memchr(data + i, '\n', size - i));
            const std::size_t end = newline ? static_cast<std::size_t>(newline - data) : size;
            line_.append(data + i, end - i);
            i = end;
            if (!newline) {
                if (mode_ == Mode::Header && line_.size() > remote_follow::kMaxHeaderBytes)
                    return protocolError("a line longer than " +
                                         std::to_string(remote_follow::kMaxHeaderBytes) + " bytes");
                if (mode_ == Mode::Hello && chatter_ + line_.size() > kMaxChatterBytes)
                    return protocolError("no AmpScope reply among the first 64 KiB it printed");
                break;
            }
            ++i;
            std::string line;
            line.swap(line_);
            if (const auto end = takeLine(line)) return end;
        }
        return std::nullopt;
    }

    std::optional<End> takeLine(const std::string& line) {
        if (mode_ == Mode::Hello) {
            if (line == remote_follow::kHello) {
                mode_ = Mode::Header;
                helloSeen = true;
                mirror_.setStatus([](Status& s) {
                    s.state = s.synced ? State::Following : State::Copying;
                    s.message.clear();
                });
            } else {
                chatter_ += line.size() + 1;
            }
            return std::nullopt;
        }
        const std::vector<std::string> w = words(line);
        if (w.empty()) return protocolError("an empty line");
        const std::string& kind = w[0];
        std::int64_t a = 0, b = 0;
        if (kind == "TICK") return std::nullopt;
        if (kind == "SYNCED") {
            mirror_.setStatus([this](Status& s) {
                s.synced = true;
                s.state = mirror_.options_.follow ? State::Following : State::Copying;
            });
            return std::nullopt;
        }
        if (kind == "DONE" || kind == "END") return End::Done;
        if (kind == "ERROR") return remoteRefusal(w);
        if (w.size() < 2 || !isRemoteRunName(w[1])) return protocolError("'" + line + "'");
        run_ = w[1];
        if (kind == "RUN" && w.size() == 2) {
            mirror_.directory_.addRun(run_);
            return std::nullopt;
        }
        if (kind == "DATA" && w.size() == 4 && parseCount(w[2], a) && parseCount(w[3], b) &&
            b > 0 && b <= remote_follow::kChunkBytes) {
            if (a != mirror_.directory_.eventsBytes(run_))
                return protocolError("bytes from offset " + w[2] + " of " + run_ + "/events.jsonl, "
                                     "which holds " + std::to_string(mirror_.directory_.eventsBytes(run_)));
            mode_ = Mode::Data;
            remaining_ = b;
            return std::nullopt;
        }
        if (kind == "FILE" && w.size() == 4 && isWholeFileName(w[2]) && parseCount(w[3], b)) {
            if (b > kMaxWholeFileBytes)
                return refusal(filePath(run_, w[2]) + ": " + std::to_string(b) +
                               " bytes, more than a run's " + w[2] + " can hold (64 MiB)");
            file_ = w[2];
            content_.clear();
            remaining_ = b;
            mode_ = Mode::File;
            if (b == 0) finishPayload();
            return std::nullopt;
        }
        if (kind == "SHRANK" && w.size() == 3 && parseCount(w[2], a) &&
            a < mirror_.directory_.eventsBytes(run_)) {
            mirror_.directory_.truncateEvents(run_, a);
            return std::nullopt;
        }
        return protocolError("'" + line + "'");
    }

    void finishPayload() {
        if (mode_ == Mode::File) mirror_.directory_.writeFile(run_, file_, content_);
        content_.clear();
        mode_ = Mode::Header;
    }

    std::string filePath(const std::string& run, const std::string& name) const {
        std::string path = mirror_.address_.shown();
        if (path.back() != '/') path += '/';
        if (run != ".") path += run + "/";
        return path + name;
    }

    std::optional<End> remoteRefusal(const std::vector<std::string>& w) {
        const std::string code = w.size() > 1 ? w[1] : "";
        const bool named = w.size() == 4 && isRemoteRunName(w[2]) &&
                           (isWholeFileName(w[3]) || w[3] == "events.jsonl");
        const std::string file = named ? filePath(w[2], w[3]) : std::string();
        const auto& address = mirror_.address_;
        if (code == "nodir") return refusal(remoteRunMessage(address, "no such run directory"));
        if (code == "notdir") return refusal(remoteRunMessage(address, "is a file, not a run directory"));
        if (code == "norun")
            return refusal(remoteRunMessage(
                address, "missing config.json — not an AmpScope run directory (nor a folder of runs)"));
        if (code == "denied")
            return refusal(named ? file + ": " + runfiles::runFileErrorText(EACCES)
                                 : remoteRunMessage(address, "cannot open (Permission denied)"));
        if (code == "link" && named) return refusal(file + ": " + runfiles::runFileErrorText(ELOOP));
        if (code == "notplain" && named)
            return refusal(file + ": " + runfiles::runFileErrorText(runfiles::kNotPlainFile));
        return protocolError("ERROR " + code);
    }

    End refusal(const std::string& message) {
        failure = message;
        return End::Failed;
    }

    End protocolError(const std::string& what) {
        return refusal(remoteRunMessage(mirror_.address_, "unexpected reply from the remote side: " + what));
    }

    RemoteRunMirror& mirror_;
    SshProcess& ssh_;
    Mode mode_ = Mode::Hello;
    std::string line_;
    std::size_t chatter_ = 0;
    std::string run_;
    std::string file_;
    std::string content_;
    std::int64_t remaining_ = 0;
};

RemoteRunMirror::RemoteRunMirror(const RemoteRunAddress& address, RemoteMirrorOptions options)
    : address_(address), options_(std::move(options)),
      directory_([&] {
          std::string path = address.path;
          while (path.size() > 1 && path.back() == '/') path.pop_back();
          const std::size_t slash = path.rfind('/');
          const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
          return name.empty() || name == "." ? address.host : name;
      }()) {
    int wake[2];
    if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0)
        throw InputError("ssh: cannot make a pipe (" + runfiles::errnoText(errno) + ")");
    wakeRead_ = wake[0];
    wakeWrite_ = wake[1];
    thread_ = std::thread([this] { run(); });
}

RemoteRunMirror::~RemoteRunMirror() {
    stop();
    ::close(wakeRead_);
    ::close(wakeWrite_);
}

void RemoteRunMirror::stop() {
    stopRequested_ = true;
    const char byte = 1;
    [[maybe_unused]] const ssize_t wrote = ::write(wakeWrite_, &byte, 1);
    if (thread_.joinable()) thread_.join();
}

RemoteRunMirror::Status RemoteRunMirror::status() const {
    std::lock_guard lock(mutex_);
    return status_;
}

void RemoteRunMirror::setStatus(const std::function<void(Status&)>& change) {
    {
        std::lock_guard lock(mutex_);
        change(status_);
    }
    changed_.notify_all();
}

void RemoteRunMirror::waitUntilSynced(const std::function<void(const Status&)>& progress) {
    std::unique_lock lock(mutex_);
    for (;;) {
        const Status now = status_;
        if (now.state == State::Failed) throw InputError(now.message);
        if (now.synced || now.state == State::Finished) return;
        if (progress) {
            lock.unlock();
            progress(now);
            lock.lock();
        }
        changed_.wait_for(lock, std::chrono::milliseconds(100));
    }
}

bool RemoteRunMirror::sleepUnlessStopped(double seconds) {
    pollfd wake{wakeRead_, POLLIN, 0};
    ::poll(&wake, 1, static_cast<int>(seconds * 1000));
    return !stopRequested_;
}

void RemoteRunMirror::run() {
    bool everConnected = false;
    double retry = options_.firstRetrySeconds;
    std::optional<Clock::time_point> lostSince;
    std::string lastFailure;
    try {
        while (!stopRequested_) {
            RemoteFollowRequest request;
            request.path = address_.path;
            request.follow = options_.follow;
            request.pollSeconds = options_.pollSeconds;
            request.resume = directory_.resume();
            SshProcess ssh(address_, options_.ssh, std::string(remote_follow::kRemoteCommand),
                           remoteFollowScript(request));
            Session session(*this, ssh);
            const Session::End end = session.run();
            if (end == Session::End::Stopped) break;
            if (end == Session::End::Done) {
                setStatus([](Status& s) {
                    s.state = State::Finished;
                    s.synced = true;
                });
                return;
            }
            if (end == Session::End::Failed) {
                setStatus([&](Status& s) {
                    s.state = State::Failed;
                    s.message = session.failure;
                });
                return;
            }
            // The connection ended: say why, from ssh's own words (given a moment to exit
            // with them, rather than be ended by our signal).
            for (int waited = 0; waited < 100 && !ssh.exited(); ++waited) ::poll(nullptr, 0, 10);
            ssh.terminate();
            ssh.readErrors();
            const std::string why =
                session.lastProblem.empty()
                    ? sshFailureText(address_, ssh.errors(), ssh.exitStatus())
                    : remoteRunMessage(address_, session.lastProblem);
            if (!everConnected && !session.helloSeen) {
                setStatus([&](Status& s) {
                    s.state = State::Failed;
                    s.message = why;
                });
                return;
            }
            everConnected = true;
            if (session.helloSeen) {
                retry = options_.firstRetrySeconds;  // it worked for a while: start over
                lostSince = Clock::now();
            }
            if (!lostSince) lostSince = Clock::now();
            lastFailure = why;
            if (secondsSince(*lostSince) > options_.giveUpSeconds) {
                setStatus([&](Status& s) {
                    s.state = State::Failed;
                    s.message = remoteRunMessage(
                        address_, "connection lost and not regained in " +
                                      std::to_string(static_cast<int>(options_.giveUpSeconds)) +
                                      " s (last try: " + lastFailure + ")");
                });
                return;
            }
            setStatus([&](Status& s) {
                s.state = State::Reconnecting;
                s.message = lastFailure;
                ++s.reconnections;
            });
            if (!sleepUnlessStopped(retry)) break;
            retry = std::min(retry * 2, options_.maxRetrySeconds);
        }
    } catch (const std::exception& e) {
        setStatus([&](Status& s) {
            s.state = State::Failed;
            s.message = e.what();
        });
        return;
    }
    setStatus([](Status& s) {
        if (s.state != State::Finished && s.state != State::Failed) s.state = State::Finished;
    });
}

}  // namespace ampscope
