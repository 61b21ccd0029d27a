#include "run/RunReader.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

#include "common/InputError.h"
#include "common/JsonNesting.h"
#include "config/RunConfig.h"
#include "run/EventSchema.h"
#include "run/EventLines.h"
#include "run/RecordCodec.h"
#include "run/RunFiles.h"
#include "run/RunLifecycleRecords.h"

namespace ampscope {

namespace {

using runfiles::errnoText;
using runfiles::joinPath;
using namespace event_lines;

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
    const int value = record_codec::saturatedInt(*version);
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
    const std::optional<RunStartRecord> start = runStartFromJson(first);
    if (!start) {
        warnings.push_back(kEvents + ": run_start has no integer schema_version");
        return;
    }
    run.start = start;
    run.events_schema_version = static_cast<int>(
        std::clamp<int64_t>(start->schemaVersion, INT_MIN, INT_MAX));
    if (start->schemaVersion > kEventsSchemaVersion) {
        warnings.push_back(kEvents + ": schema_version " + std::to_string(start->schemaVersion) +
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
    data_.any_record = sawFirst_ || unknown_->total > 0;
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

std::string noRecordText(const std::string& dir, bool anyRecord, int unreadableLines) {
    if (anyRecord || unreadableLines <= 0) return {};
    return joinPath(dir, kEventsFileName) + ": no line of it is a record (" + std::to_string(unreadableLines) +
           (unreadableLines == 1 ? " unreadable line" : " unreadable lines") +
           "): not an AmpScope run's events, nothing to show";
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
        const long long rank = rankOfDirectory(it->path().filename().string());
        if (rank < 0) continue;
        std::error_code statError;
        if (it->is_symlink(statError) || !it->is_directory(statError)) continue;
        const std::string path = it->path().string();
        struct stat info {};
        if (::lstat(joinPath(path, kConfigFileName).c_str(), &info) != 0 || !S_ISREG(info.st_mode))
            continue;
        found.emplace_back(rank, path);
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> paths;
    for (auto& entry : found) paths.push_back(std::move(entry.second));
    return paths;
}

long long rankOfDirectory(const std::string& directory) {
    std::string name = directory;
    while (name.size() > 1 && name.back() == '/') name.pop_back();
    name = name.substr(name.rfind('/') == std::string::npos ? 0 : name.rfind('/') + 1);
    constexpr std::string_view kPrefix = "rank-";
    if (name.size() <= kPrefix.size() || name.size() > kPrefix.size() + 9 ||
        name.compare(0, kPrefix.size(), kPrefix) != 0 ||
        name.find_first_not_of("0123456789", kPrefix.size()) != std::string::npos)
        return -1;
    return std::stoll(name.substr(kPrefix.size()));
}

}  // namespace ampscope
