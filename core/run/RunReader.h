#pragma once
// Reading a run directory (EventSchema.md): all at once (readRunDirectory), record by
// record without keeping them (RunRecordReader, forEachRunRecord: what a long run needs,
// since 10^6 steps are hundreds of MB of JSONL and GBs as a DOM). Following one that is
// still being written: RunFollower.h.
//
// readRunDirectory contract:
// - Refuses, with InputError naming the path, what is not a run: a missing path
//   ("DIR: no such run directory"), a file ("DIR: is a file, not a run
//   directory"), no config.json ("DIR: missing config.json — not an AmpScope run
//   directory"), a config.json that is not a JSON object or has no integer
//   schema_version, and a schema_version newer than this build reads
//   ("DIR/config.json: schema_version 7 is newer than this AmpScope reads (1)",
//   the 1 being kConfigSchemaVersion).
// - Tolerates what a crash, a live writer or a user can leave, with a warning
//   in RunData::warnings for each (the run still loads):
//   * no events.jsonl: no events;
//   * a torn last line (no newline, not parseable): ignored, "events.jsonl:
//     ignored a torn last line (N bytes)"; a last line without newline that
//     parses is a whole record and is kept, silently;
//   * unreadable lines elsewhere (not JSON, or not an object with a string
//     "type"): skipped and counted, each named by its 1-based line number (the
//     first kListedBadEventLines of them; then one line with the total);
//   * run_start with a schema_version newer than this build: the records load,
//     fields and types this build does not know are the consumer's to skip;
//   * summary.json that does not parse: treated as absent (incomplete run).
// - Records whose "type" this build does not know (KnownRecordTypes.h; a newer
//   schema's) are skipped, with one warning per type: "events.jsonl: skipped 3
//   records of unknown type \"foo\" (newer schema?)". Consumers see only types
//   they can read; RunData::skipped_unknown_records counts the skipped ones.
//
// RunRecordReader / forEachRunRecord contract: the same refusals (at construction), the
// same records in the same order and the same warnings as readRunDirectory, but
// events.jsonl is read in chunks of kRunReadChunkBytes and each record is handed over
// and forgotten, so memory is bounded by a chunk plus the longest line, not by the run.
// config.json and summary.json are read at construction (a summary seen then means the
// events are complete: the writer flushes them first); data().events stays empty, and
// data()'s warnings and counts are final once done().
//
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "run/RunLifecycleRecords.h"

namespace ampscope {

// readRunDirectory and RunFollower name this many unreadable lines one by one,
// then only count: a file of garbage must not bury the other warnings.
inline constexpr int kListedBadEventLines = 10;

struct RunData {
    nlohmann::json config;                  // config.json as written (resolved)
    std::vector<nlohmann::json> events;     // events.jsonl records, file order
    std::optional<nlohmann::json> summary;  // summary.json when present and valid
    std::vector<std::string> warnings;      // one line each, naming the file
    bool complete = false;                  // summary present: the run ended
    int schema_version = 0;                 // config.json's schema_version
    int events_schema_version = 0;          // run_start's (0: no run_start)
    std::optional<RunStartRecord> start;    // the first record, when it is a run_start that reads
    int skipped_lines = 0;                  // unreadable lines of events.jsonl
    bool torn_last_line = false;            // a torn last line was ignored
    int skipped_unknown_records = 0;        // records of a type this build does not know
    bool any_record = false;                // a line of events.jsonl was a record (of any type)
};

RunData readRunDirectory(const std::string& dir);

// A run directory the reader takes that cannot be read at all: events.jsonl holds lines
// (unreadableLines of them, a torn last one included) and not one is a record (random
// bytes, another program's file), so nothing of it can be shown. The one line that says
// so, naming the file; "" when a record was read or no line was unreadable (an empty or
// missing events.jsonl is a run that has not started writing, not a broken one).
std::string noRecordText(const std::string& dir, bool anyRecord, int unreadableLines);

// Reads one more file of a run directory (a scenario's narrative.md, say) under the
// reader's rule for its own files: `name` is a plain file name (no '/', not "." or
// "..", std::invalid_argument otherwise: the caller's bug), and DIR/name must be a plain
// file inside DIR, never a symbolic link, FIFO or device (InputError naming it). Returns
// nothing when the file does not exist.
std::optional<std::string> readRunDirectoryFile(const std::string& dir, std::string_view name);

// The rank directories of a run recorded under torch.distributed (the Python recorder
// writes RUN/rank-0, RUN/rank-1, ...): the paths of dir's subdirectories named
// rank-N (N a decimal number) that hold a config.json, ordered by N. Empty when dir
// is itself a run, or holds no rank directory. Symbolic links are not followed.
std::vector<std::string> rankRunDirectories(const std::string& dir);

// The rank number of a rank directory (".../rank-12" -> 12; the name rankRunDirectories
// accepts), or -1.
long long rankOfDirectory(const std::string& directory);

struct UnknownTypes;

inline constexpr std::size_t kRunReadChunkBytes = 1u << 20;

class RunRecordReader {
public:
    explicit RunRecordReader(const std::string& dir);  // throws InputError (see above)
    ~RunRecordReader();
    RunRecordReader(const RunRecordReader&) = delete;
    RunRecordReader& operator=(const RunRecordReader&) = delete;

    // Appends up to maxRecords of the next records to out (moved in, file order).
    // Returns false, appending nothing, once events.jsonl is exhausted.
    bool read(std::vector<nlohmann::json>& out, std::size_t maxRecords = 4096);
    // The same, handing each record to onRecord as it is parsed. takeLine, when set, is
    // offered each line after the first record before it is parsed: returning true
    // means the caller read the line itself (a fast path for step lines:
    // parseStepRecordText), so it is neither parsed nor handed to onRecord; it must
    // then be a whole record of a type this build knows. Both callbacks run in file
    // order, and up to maxItems of them in all.
    using RecordVisitor = std::function<void(nlohmann::json& record)>;
    using LineTaker = std::function<bool(std::string_view line)>;
    bool visit(const RecordVisitor& onRecord, const LineTaker& takeLine,
               std::size_t maxItems = 4096);
    bool done() const { return done_; }
    // config, summary, complete, schema_version from the start; the rest once done().
    const RunData& data() const { return data_; }
    // Bytes of events.jsonl consumed so far and its size when opened (for progress).
    std::int64_t bytesRead() const { return consumed_; }
    std::int64_t totalBytes() const { return totalBytes_; }

private:
    bool refill();
    bool takeLine(std::string_view line, bool last, const RecordVisitor& onRecord,
                  const LineTaker& taker);
    void finish();

    RunData data_;
    std::string path_;
    int fd_ = -1;
    std::string buffer_;
    std::size_t position_ = 0;  // start of the first unread line in buffer_
    bool endOfFile_ = false;
    bool done_ = false;
    bool sawFirst_ = false;
    std::int64_t consumed_ = 0;
    std::int64_t totalBytes_ = 0;
    std::int64_t lineNumber_ = 0;
    std::unique_ptr<UnknownTypes> unknown_;
    std::vector<std::string> firstRecordWarnings_;  // placed after the line warnings
    std::vector<std::string> summaryWarnings_;      // placed last, as readRunDirectory does
};

// Every record of dir's events.jsonl, in order, to onRecord (which may move from it);
// returns what readRunDirectory would, minus the events.
RunData forEachRunRecord(const std::string& dir,
                         const std::function<void(nlohmann::json& record)>& onRecord,
                         const RunRecordReader::LineTaker& takeLine = {});

}  // namespace ampscope
