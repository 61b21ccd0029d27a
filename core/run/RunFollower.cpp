#include "run/RunFollower.h"

#include <algorithm>
#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

#include "common/InputError.h"
#include "run/EventLines.h"
#include "run/RunFiles.h"

namespace ampscope {

using event_lines::isBlank;
using event_lines::kEvents;
using event_lines::noteBadLine;
using event_lines::parseRecord;
using event_lines::tornWarning;
using event_lines::unknownTypeWarning;
using runfiles::joinPath;

RunFollower::RunFollower(const std::string& dir)
    : dir_(dir),
      eventsPath_(joinPath(dir, kEventsFileName)),
      summaryPath_(joinPath(dir, kSummaryFileName)),
      unknown_(std::make_unique<UnknownTypes>()) {}

RunFollower::~RunFollower() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
}

bool RunFollower::openEvents() {
    if (fd_ >= 0) {
        return true;
    }
    int error = 0;
    fd_ = runfiles::openRunFile(eventsPath_, error);
    if (fd_ < 0 && error != ENOENT) {
        // Not a writer that has yet to start: a link or a FIFO put there by someone.
        throw InputError(eventsPath_ + ": " + runfiles::runFileErrorText(error));
    }
    return fd_ >= 0;
}

std::vector<nlohmann::json> RunFollower::poll(std::size_t maxBytes) {
    std::vector<nlohmann::json> out;
    if (finished_) {
        return out;
    }
    // summary.json is looked at before events.jsonl is measured: the writer
    // flushes every event before it renames the summary into place, so once the
    // summary is seen, the size measured after it covers the whole run.
    struct stat info {};
    const bool summaryNow = summarySeen_ || ::stat(summaryPath_.c_str(), &info) == 0;

    if (!openEvents()) {
        caughtUp_ = true;
        if (summaryNow) {
            warnings_.push_back(kEvents + ": missing (no events recorded)");
            finished_ = true;
        }
        return out;
    }
    if (::fstat(fd_, &info) != 0) {
        return out;
    }
    const std::int64_t size = info.st_size;
    if (size < offset_) {
        // Only a person can do this (the writer only appends); resuming at the new
        // end is the one choice that neither repeats nor invents records.
        warnings_.push_back(kEvents + ": shrank from " + std::to_string(offset_) + " to " +
                            std::to_string(size) + " bytes; following from its new end");
        offset_ = size;
        pending_.clear();
    }

    const auto available = static_cast<std::size_t>(size - offset_);
    std::size_t wanted = std::min(available, maxBytes);
    const std::size_t keep = pending_.size();
    pending_.resize(keep + wanted);
    std::size_t got = 0;
    while (got < wanted) {
        const ssize_t n = ::pread(fd_, pending_.data() + keep + got, wanted - got,
                                  static_cast<off_t>(offset_ + static_cast<std::int64_t>(got)));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;  // an error or a truncation between fstat and pread: next poll
        }
        got += static_cast<std::size_t>(n);
    }
    pending_.resize(keep + got);
    offset_ += static_cast<std::int64_t>(got);
    caughtUp_ = offset_ >= size;

    takeLines(out);
    if (summaryNow && caughtUp_) {
        settlePending(out);
        finished_ = true;
    }
    summarySeen_ = summaryNow;
    return out;
}

void RunFollower::takeLines(std::vector<nlohmann::json>& out) {
    std::size_t start = 0;
    nlohmann::json record;
    for (;;) {
        const std::size_t newline = pending_.find('\n', start);
        if (newline == std::string::npos) {
            break;
        }
        const std::string_view line(pending_.data() + start, newline - start);
        start = newline + 1;
        ++lineNumber_;
        if (isBlank(line)) {
            continue;
        }
        const std::string why = parseRecord(line, record);
        if (why.empty()) {
            sawRecord_ = true;
            if (!skipUnknown(record)) out.push_back(std::move(record));
        } else {
            noteBadLine(lineNumber_, why, skippedLines_, warnings_);
        }
    }
    pending_.erase(0, start);  // one move of the partial tail, not one per line
}

bool RunFollower::skipUnknown(const nlohmann::json& record) {
    const std::size_t typesBefore = unknown_->counts.size();
    if (!unknown_->skip(record)) return false;
    // One warning per type, its count kept current in place.
    if (unknown_->counts.size() > typesBefore) {
        unknownWarning_.push_back(warnings_.size());
        warnings_.emplace_back();
    }
    for (std::size_t i = 0; i < unknown_->counts.size(); ++i) {
        const auto& [type, count] = unknown_->counts[i];
        warnings_[unknownWarning_[i]] = unknownTypeWarning(type, count);
    }
    return true;
}

void RunFollower::settlePending(std::vector<nlohmann::json>& out) {
    if (pending_.empty() || isBlank(pending_)) {
        pending_.clear();
        return;
    }
    ++lineNumber_;
    nlohmann::json record;
    if (parseRecord(pending_, record).empty()) {
        sawRecord_ = true;
        if (!skipUnknown(record)) out.push_back(std::move(record));
    } else {
        warnings_.push_back(tornWarning(pending_.size()));
    }
    pending_.clear();
}

}  // namespace ampscope
