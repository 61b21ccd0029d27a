#include "run/RunReader.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <fcntl.h>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

#include "common/InputError.h"
#include "common/JsonNesting.h"
#include "config/RunConfig.h"
#include "run/EventSchema.h"
#include "run/FlatRecordText.h"
#include "run/KnownRecordTypes.h"
#include "run/RunFiles.h"

namespace ampscope {

namespace {

using runfiles::errnoText;
using runfiles::joinPath;

const std::string kEvents(kEventsFileName);

// A value as the user would see it in the file (strings quoted).
std::string jsonText(const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool isBlank(std::string_view line) {
    return std::all_of(line.begin(), line.end(),
                       [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

// Parses one line of events.jsonl into a record. Returns an empty string on
// success, else why the line is not a record. Uses the non-throwing parse:
// garbage is expected input here, not an exceptional one.
std::string parseRecord(std::string_view line, nlohmann::json& record) {
    // Most lines are flat objects: built straight from their text (the same value the
    // parser makes), the rest parsed.
    record_text::FlatLine flat;
    if (!flat.split(line) || !record_text::toJson(flat, record))
        record = nlohmann::json::parse(line.begin(), line.end(), nullptr, false);
    if (record.is_discarded()) {
        return "not JSON";
    }
    // Consumers copy and dump records, which recurse per level (JsonNesting.h).
    if (findExcessJsonNesting(line) != std::string_view::npos) {
        record = nullptr;
        return "nested deeper than " + std::to_string(kMaxJsonNesting) + " levels";
    }
    const auto type = record.is_object() ? record.find("type") : record.end();
    if (!record.is_object() || type == record.end() || !type->is_string()) {
        return "not an object with a string \"type\"";
    }
    return {};
}

}  // namespace

// Records of a type this build does not know, by type in order of first sight.
struct UnknownTypes {
    std::vector<std::pair<std::string, int>> counts;
    int total = 0;
    // True (and counted) when the record's type is unknown: skip it.
    bool skip(const nlohmann::json& record) {
        const auto& type = record["type"].get_ref<const std::string&>();
        if (isKnownRecordType(type)) return false;
        ++total;
        for (auto& [name, count] : counts) {
            if (name == type) {
                ++count;
                return true;
            }
        }
        counts.emplace_back(type, 1);
        return true;
    }
};

namespace {

// Counts unreadable lines and names the first few, in the same words for the
// reader and the follower.
void noteBadLine(std::int64_t lineNumber, const std::string& why, int& count,
                 std::vector<std::string>& warnings) {
    ++count;
    if (count <= kListedBadEventLines) {
        warnings.push_back(kEvents + " line " + std::to_string(lineNumber) +
                           ": skipped an unreadable line (" + why + ")");
    } else if (count == kListedBadEventLines + 1) {
        warnings.push_back(kEvents + ": more unreadable lines; only the first " +
                           std::to_string(kListedBadEventLines) + " are listed");
    }
}

std::string unknownTypeWarning(const std::string& type, int count) {
    return kEvents + ": skipped " + std::to_string(count) + (count == 1 ? " record" : " records") +
           " of unknown type " + jsonText(nlohmann::json(type)) + " (newer schema?)";
}

std::string tornWarning(std::size_t bytes) {
    return kEvents + ": ignored a torn last line (" + std::to_string(bytes) + " bytes)";
}

// An integer schema_version, saturated to int's range: get<int>() would wrap
// 4294967298 to 2, and get<long long>() turns 2^64-1 into -1.
int schemaVersionOf(const nlohmann::json& version) {
    if (version.is_number_unsigned()) {
        const auto value = version.get<unsigned long long>();
        return value > static_cast<unsigned long long>(INT_MAX) ? INT_MAX : static_cast<int>(value);
    }
    const auto value = version.get<long long>();
    return static_cast<int>(std::clamp<long long>(value, INT_MIN, INT_MAX));
}


void readConfig(const std::string& dir, RunData& run) {
    const std::string path = joinPath(dir, kConfigFileName);
    std::string text;
    if (const int error = runfiles::readRunFile(path, text); error != 0) {
        if (error == ENOENT) {
            throw InputError(dir + ": missing config.json — not an AmpScope run directory");
        }
        throw InputError(path + ": " + runfiles::runFileErrorText(error));
    }
    try {
        run.config = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& error) {
        // parse_error, and out_of_range for a number beyond double ("1e400").
        throw InputError(path + ": not valid JSON (" + runfiles::jsonErrorText(error.what()) +
                         ")");
    }
    if (!run.config.is_object()) {
        throw InputError(path + ": not a JSON object — not an AmpScope config");
    }
    if (findExcessJsonNesting(text) != std::string::npos) {
        throw InputError(path + ": nested deeper than " + std::to_string(kMaxJsonNesting) +
                         " levels — not an AmpScope config");
    }
    const auto version = run.config.find("schema_version");
    if (version == run.config.end()) {
        throw InputError(path + ": missing schema_version — not an AmpScope config");
    }
    if (!version->is_number_integer()) {
        throw InputError(path + ": schema_version must be an integer (got " +
                         jsonText(*version) + ")");
    }
    const int value = schemaVersionOf(*version);
    if (value > kConfigSchemaVersion) {
        throw InputError(path + ": schema_version " + jsonText(*version) +
                         " is newer than this AmpScope reads (" +
                         std::to_string(kConfigSchemaVersion) + ")");
    }
    if (value < 1) {
        throw InputError(path + ": schema_version " + jsonText(*version) +
                         " is not valid (AmpScope writes 1 and up)");
    }
    run.schema_version = static_cast<int>(value);
}

void readSummary(const std::string& dir, RunData& run, std::vector<std::string>& warnings) {
    const std::string name(kSummaryFileName);
    std::string text;
    if (const int error = runfiles::readRunFile(joinPath(dir, kSummaryFileName), text);
        error != 0) {
        if (error == ELOOP || error == runfiles::kNotPlainFile) {
            // Not the writer's: it renames a plain file into place. Refused as the
            // other files are, so a run can never read outside its own folder.
            throw InputError(joinPath(dir, kSummaryFileName) + ": " +
                             runfiles::runFileErrorText(error));
        }
        if (error != ENOENT) {
            warnings.push_back(name + ": cannot read (" + errnoText(error) +
                               "); the run counts as incomplete");
        }
        return;
    }
    nlohmann::json summary = nlohmann::json::parse(text, nullptr, false);
    if (summary.is_discarded() || !summary.is_object() ||
        findExcessJsonNesting(text) != std::string::npos) {
        // rename() makes a torn summary impossible; this is a hand-edited one.
        warnings.push_back(name + ": not a valid JSON object; the run counts as incomplete");
        return;
    }
    run.summary = std::move(summary);
    run.complete = true;
}

// What the first record says about the file: warnings when it is not a run_start with
// an integer schema_version this build reads.
void checkFirstRecord(const nlohmann::json& first, RunData& run,
                      std::vector<std::string>& warnings) {
    if (first["type"] != event_type::kRunStart) {
        warnings.push_back(kEvents + ": the first record is not run_start (type " +
                           jsonText(first["type"]) + ")");
        return;
    }
    const auto version = first.find("schema_version");
    if (version == first.end() || !version->is_number_integer()) {
        warnings.push_back(kEvents + ": run_start has no integer schema_version");
        return;
    }
    run.events_schema_version = schemaVersionOf(*version);
    if (run.events_schema_version > kEventsSchemaVersion) {
        warnings.push_back(kEvents + ": schema_version " + jsonText(*version) +
                           " is newer than this AmpScope reads (" +
                           std::to_string(kEventsSchemaVersion) +
                           "); fields and record types it does not know are skipped");
    }
}

void refuseWhatIsNotADirectory(const std::string& dir) {
    struct stat info {};
    if (::stat(dir.c_str(), &info) != 0) {
        const int error = errno;
        if (error == ENOENT || error == ENOTDIR) {
            throw InputError(dir + ": no such run directory");
        }
        throw InputError(dir + ": cannot open (" + errnoText(error) + ")");
    }
    if (!S_ISDIR(info.st_mode)) {
        throw InputError(dir + ": is a file, not a run directory");
    }
}

}  // namespace

RunRecordReader::RunRecordReader(const std::string& dir)
    : path_(joinPath(dir, kEventsFileName)), unknown_(std::make_unique<UnknownTypes>()) {
    refuseWhatIsNotADirectory(dir);
    readConfig(dir, data_);
    readSummary(dir, data_, summaryWarnings_);
    int error = 0;
    fd_ = runfiles::openRunFile(path_, error);
    if (fd_ < 0) {
        if (error != ENOENT) {
            throw InputError(path_ + ": " + runfiles::runFileErrorText(error));
        }
        data_.warnings.push_back(kEvents + ": missing (no events recorded)");
        endOfFile_ = true;
        return;
    }
    struct stat info {};
    if (::fstat(fd_, &info) == 0) totalBytes_ = info.st_size;
}

RunRecordReader::~RunRecordReader() {
    if (fd_ >= 0) ::close(fd_);
}

bool RunRecordReader::refill() {
    if (endOfFile_) return false;
    // Drop what was consumed (one move of the partial tail per chunk, not per line).
    buffer_.erase(0, position_);
    position_ = 0;
    const std::size_t keep = buffer_.size();
    buffer_.resize(keep + kRunReadChunkBytes);
    for (;;) {
        const ssize_t got = ::read(fd_, buffer_.data() + keep, kRunReadChunkBytes);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            const int error = errno;
            buffer_.resize(keep);
            throw InputError(path_ + ": cannot read (" + errnoText(error) + ")");
        }
        buffer_.resize(keep + static_cast<std::size_t>(got));
        if (got == 0) {
            endOfFile_ = true;
            ::close(fd_);
            fd_ = -1;
            return false;
        }
        return true;
    }
}

bool RunRecordReader::takeLine(std::string_view line, bool last, const RecordVisitor& onRecord,
                               const LineTaker& taker) {
    ++lineNumber_;
    if (isBlank(line)) return false;
    if (taker && sawFirst_ && taker(line)) return true;
    nlohmann::json record;
    const std::string why = parseRecord(line, record);
    if (why.empty()) {
        if (unknown_->skip(record)) return false;
        if (!sawFirst_) {
            sawFirst_ = true;
            checkFirstRecord(record, data_, firstRecordWarnings_);
        }
        onRecord(record);
        return true;
    }
    if (last) {
        // No newline and no record: the writer died mid-line (or is writing).
        data_.torn_last_line = true;
        data_.warnings.push_back(tornWarning(line.size()));
    } else {
        noteBadLine(lineNumber_, why, data_.skipped_lines, data_.warnings);
    }
    return false;
}

bool RunRecordReader::read(std::vector<nlohmann::json>& out, std::size_t maxRecords) {
    return visit([&out](nlohmann::json& record) { out.push_back(std::move(record)); }, {},
                 maxRecords);
}

bool RunRecordReader::visit(const RecordVisitor& onRecord, const LineTaker& taker,
                            std::size_t maxRecords) {
    std::size_t added = 0;
    while (!done_ && added < maxRecords) {
        const std::size_t newline = buffer_.find('\n', position_);
        if (newline == std::string::npos) {
            if (refill()) continue;
            if (position_ < buffer_.size()) {
                const std::string_view line(buffer_.data() + position_, buffer_.size() - position_);
                consumed_ += static_cast<std::int64_t>(line.size());
                position_ = buffer_.size();
                if (takeLine(line, true, onRecord, taker)) ++added;
            }
            finish();
            break;
        }
        const std::string_view line(buffer_.data() + position_, newline - position_);
        consumed_ += static_cast<std::int64_t>(line.size() + 1);
        position_ = newline + 1;
        if (takeLine(line, false, onRecord, taker)) ++added;
    }
    return added > 0;
}

void RunRecordReader::finish() {
    done_ = true;
    buffer_.clear();
    buffer_.shrink_to_fit();
    position_ = 0;
    if (data_.skipped_lines > kListedBadEventLines) {
        data_.warnings.push_back(kEvents + ": skipped " + std::to_string(data_.skipped_lines) +
                                 " unreadable lines in all");
    }
    for (const auto& [type, count] : unknown_->counts)
        data_.warnings.push_back(unknownTypeWarning(type, count));
    data_.skipped_unknown_records = unknown_->total;
    for (auto& w : firstRecordWarnings_) data_.warnings.push_back(std::move(w));
    for (auto& w : summaryWarnings_) data_.warnings.push_back(std::move(w));
    firstRecordWarnings_.clear();
    summaryWarnings_.clear();
}

RunData forEachRunRecord(const std::string& dir,
                         const std::function<void(nlohmann::json& record)>& onRecord,
                         const RunRecordReader::LineTaker& takeLine) {
    RunRecordReader reader(dir);
    while (reader.visit(onRecord, takeLine, std::numeric_limits<std::size_t>::max())) {
    }
    return reader.data();
}

RunData readRunDirectory(const std::string& dir) {
    RunRecordReader reader(dir);
    std::vector<nlohmann::json> events;
    while (reader.read(events, std::numeric_limits<std::size_t>::max())) {
    }
    RunData run = reader.data();
    run.events = std::move(events);
    return run;
}

// ---------------------------------------------------------------------------

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
        if (!skipUnknown(record)) out.push_back(std::move(record));
    } else {
        warnings_.push_back(tornWarning(pending_.size()));
    }
    pending_.clear();
}

std::optional<std::string> readRunDirectoryFile(const std::string& dir, std::string_view name) {
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string_view::npos ||
        name.find('\0') != std::string_view::npos) {
        throw std::invalid_argument("readRunDirectoryFile: not a plain file name: " +
                                    std::string(name));
    }
    const std::string path = joinPath(dir, name);
    std::string text;
    if (const int error = runfiles::readRunFile(path, text); error != 0) {
        if (error == ENOENT) return std::nullopt;
        throw InputError(path + ": " + runfiles::runFileErrorText(error));
    }
    return text;
}

std::vector<std::string> rankRunDirectories(const std::string& dir) {
    std::vector<std::pair<long long, std::string>> found;
    std::error_code error;
    for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end;
         it.increment(error)) {
        const std::string name = it->path().filename().string();
        constexpr std::string_view kPrefix = "rank-";
        if (name.size() <= kPrefix.size() || name.compare(0, kPrefix.size(), kPrefix) != 0 ||
            name.size() > kPrefix.size() + 9)
            continue;
        const std::string digits = name.substr(kPrefix.size());
        if (digits.find_first_not_of("0123456789") != std::string::npos) continue;
        std::error_code statError;
        if (it->is_symlink(statError) || !it->is_directory(statError)) continue;
        const std::string path = it->path().string();
        struct stat info {};
        if (::lstat(joinPath(path, kConfigFileName).c_str(), &info) != 0 || !S_ISREG(info.st_mode))
            continue;
        found.emplace_back(std::stoll(digits), path);
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> paths;
    for (auto& entry : found) paths.push_back(std::move(entry.second));
    return paths;
}

}  // namespace ampscope
