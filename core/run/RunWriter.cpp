#include "run/RunWriter.h"

#include <atomic>
#include <cerrno>
#include <exception>
#include <fcntl.h>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include "common/BuildInfo.h"
#include "common/InputError.h"
#include "run/EventSchema.h"
#include "run/RunFiles.h"
#include "run/RunLifecycleRecords.h"

namespace ampscope {

namespace {

using runfiles::errnoText;
using runfiles::joinPath;

// Serializes record at the end of out, without a temporary string: nlohmann's
// serializer writes into any std::string through its output adapter. Invalid UTF-8
// is replaced as in dumpLine.
void appendDump(const nlohmann::json& record, std::string& out) {
    nlohmann::detail::serializer<nlohmann::json> serializer(
        nlohmann::detail::output_adapter<char>(out), ' ',
        nlohmann::json::error_handler_t::replace);
    serializer.dump(record, false, false, 0);
}

// One line per record; invalid UTF-8 (a layer name from a user's model, say) is
// replaced rather than thrown about mid-training.
std::string dumpLine(const nlohmann::json& record) {
    std::string line = record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line += '\n';
    return line;
}

// Makes a rename durable: without it a crash can forget the new directory entry.
void syncDirectoryOf(const std::string& path) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    const std::string dir = parent.empty() ? std::string(".") : parent.string();
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);  // best effort: some filesystems refuse fsync on a directory
        ::close(fd);
    }
}

}  // namespace

RunWriter::RunWriter(const std::string& dir, const nlohmann::json& config)
    : RunWriter(dir, config, RunStartRecord{}) {}

RunWriter::RunWriter(const std::string& dir, const nlohmann::json& config, RunStartRecord start)
    : dir_(dir), eventsPath_(joinPath(dir, kEventsFileName)) {
    openDirectory(config, std::move(start));
}

std::unique_ptr<RunWriter> RunWriter::open(const std::string& dir, const nlohmann::json& config) {
    return std::make_unique<RunWriter>(dir, config);
}

void RunWriter::openDirectory(const nlohmann::json& config, RunStartRecord start) {
    struct stat info {};
    if (::stat(dir_.c_str(), &info) == 0) {
        if (!S_ISDIR(info.st_mode)) {
            throw InputError(dir_ + ": exists and is not a directory");
        }
    } else if (errno == ENOENT) {
        std::error_code error;
        std::filesystem::create_directories(dir_, error);
        if (error) {
            throw InputError(dir_ + ": cannot create (" + errnoText(error.value()) + ")");
        }
    } else {
        // ENOTDIR (a parent is a file), EACCES (a parent is closed to us), ...
        throw InputError(dir_ + ": cannot create (" + errnoText(errno) + ")");
    }

    // O_EXCL claims the directory: two writers started on the same --out cannot
    // both get here, and an old run is never appended to.
    struct stat existing {};
    if (::lstat(eventsPath_.c_str(), &existing) == 0) {
        throw InputError(dir_ + ": already holds a run (events.jsonl); choose another --out");
    }
    fd_ = ::open(eventsPath_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) {
        const int error = errno;
        if (error == EEXIST) {
            throw InputError(dir_ + ": already holds a run (events.jsonl); choose another --out");
        }
        if (error == EACCES || error == EPERM || error == EROFS) {
            throw InputError(dir_ + ": cannot write (" + errnoText(error) + ")");
        }
        throw InputError(eventsPath_ + ": cannot create (" + errnoText(error) + ")");
    }

    // From here on a failure undoes the claim, so the user can retry the same DIR.
    auto abandon = [this](const std::string& message) {
        ::close(fd_);
        fd_ = -1;
        ::unlink(eventsPath_.c_str());
        throw InputError(message);
    };
    try {
        writeJsonAtomically(joinPath(dir_, kConfigFileName), config);
    } catch (const RunWriteError& error) {
        abandon(error.what());
    }

    start.schemaVersion = kEventsSchemaVersion;
    start.time = utcTimeNow();
    start.ampscopeVersion = build::kVersion;
    // Written at once (not buffered) so that a follower sees the run begin.
    const std::string line = dumpLine(toJson(start));
    if (const int error = runfiles::writeAll(fd_, line.data(), line.size()); error != 0) {
        ::unlink(joinPath(dir_, kConfigFileName).c_str());
        abandon(eventsPath_ + ": write failed (" + errnoText(error) + ")");
    }
    committedBytes_ = static_cast<long long>(line.size());
    lastWrite_ = std::chrono::steady_clock::now();
    // One line past kFlushBytes at most before a write: the buffer never reallocates.
    buffer_.reserve(kFlushBytes + kFlushBytes / 4);
}

RunWriter::~RunWriter() {
    if (fd_ < 0) {
        return;
    }
    if (!failure_) {
        try {
            writeBuffer();
        } catch (...) {
            // A destructor must not throw; the owner that cared called close().
        }
    }
    ::close(fd_);
}

void RunWriter::append(const nlohmann::json& record) {
    if (closed_) {
        throw std::logic_error("RunWriter::append after close");
    }
    if (failure_) {
        throw *failure_;
    }
    const auto type = record.is_object() ? record.find("type") : record.end();
    if (!record.is_object() || type == record.end() || !type->is_string()) {
        throw std::invalid_argument(
            "RunWriter::append: a record must be a JSON object with a string \"type\"");
    }
    appendDump(record, buffer_);
    buffer_ += '\n';
    if (buffer_.size() >= kFlushBytes) {
        writeBuffer();
    }
}

void RunWriter::appendText(std::string_view recordText) {
    if (closed_) {
        throw std::logic_error("RunWriter::appendText after close");
    }
    if (failure_) {
        throw *failure_;
    }
    if (recordText.size() < 2 || recordText.front() != '{' || recordText.back() != '}' ||
        recordText.find('\n') != std::string_view::npos) {
        throw std::invalid_argument("RunWriter::appendText: a record must be one line of JSON object text");
    }
    buffer_.append(recordText);
    buffer_ += '\n';
    if (buffer_.size() >= kFlushBytes) {
        writeBuffer();
    }
}

bool RunWriter::flushIfDue() {
    if (buffer_.empty() || failure_ || closed_) {
        return false;
    }
    if (std::chrono::steady_clock::now() - lastWrite_ < kFlushInterval) {
        return false;
    }
    writeBuffer();
    return true;
}

void RunWriter::flush() {
    if (failure_) {
        throw *failure_;
    }
    writeBuffer();
}

void RunWriter::writeBuffer() {
    if (buffer_.empty() || fd_ < 0) {
        return;
    }
    if (const int error = runfiles::writeAll(fd_, buffer_.data(), buffer_.size()); error != 0) {
        fail(error);
    }
    committedBytes_ += static_cast<long long>(buffer_.size());
    buffer_.clear();  // keeps its capacity: no reallocation per flush
    lastWrite_ = std::chrono::steady_clock::now();
}

void RunWriter::fail(int error) {
    // A short write may have left part of a line; cut the file back to its last
    // whole line so that readers see a clean end (best effort: EIO may refuse).
    if (::ftruncate(fd_, static_cast<off_t>(committedBytes_)) != 0) {
        // Nothing more to do: the reader tolerates a torn last line.
    }
    buffer_.clear();
    failure_.emplace(eventsPath_ + ": write failed (" + errnoText(error) + ")", error);
    throw *failure_;
}

void RunWriter::writeSummary(const nlohmann::json& summary) {
    std::exception_ptr eventsFailure;
    if (fd_ >= 0 && !failure_) {
        try {
            writeBuffer();
            ::fdatasync(fd_);
        } catch (const RunWriteError&) {
            eventsFailure = std::current_exception();
        }
    }
    // Written even when the events failed: a summary saying so beats none.
    writeJsonAtomically(joinPath(dir_, kSummaryFileName), summary);
    if (eventsFailure) {
        std::rethrow_exception(eventsFailure);
    }
}

void RunWriter::close() {
    if (closed_) {
        return;
    }
    closed_ = true;
    if (fd_ < 0) {
        return;
    }
    std::exception_ptr failure;
    if (!failure_) {
        try {
            writeBuffer();
        } catch (const RunWriteError&) {
            failure = std::current_exception();
        }
    }
    ::fdatasync(fd_);
    ::close(fd_);
    fd_ = -1;
    if (failure) {
        std::rethrow_exception(failure);
    }
}

void RunWriter::writeJsonAtomically(const std::string& path, const nlohmann::json& document) {
    // Unique per process and call, so two writers of the same path never share a
    // temp file; O_EXCL refuses a leftover of a crashed process with our pid.
    static std::atomic<unsigned> counter{0};
    const std::string temp = path + ".tmp-" + std::to_string(::getpid()) + "-" +
                             std::to_string(counter.fetch_add(1));
    auto failWith = [&](int error, int fd) {
        if (fd >= 0) {
            ::close(fd);
        }
        ::unlink(temp.c_str());
        throw RunWriteError(path + ": write failed (" + errnoText(error) + ")", error);
    };

    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        const int error = errno;
        throw RunWriteError(path + ": write failed (" + errnoText(error) + ")", error);
    }
    std::string text =
        document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    text += '\n';
    if (const int error = runfiles::writeAll(fd, text.data(), text.size()); error != 0) {
        failWith(error, fd);
    }
    // fsync before rename: otherwise a crash can leave the new name on an empty file.
    if (::fsync(fd) != 0 && errno != EINVAL) {
        failWith(errno, fd);
    }
    if (::close(fd) != 0) {
        failWith(errno, -1);
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        failWith(errno, -1);
    }
    syncDirectoryOf(path);
}

}  // namespace ampscope
