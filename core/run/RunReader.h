#pragma once
// Reading a run directory (EventSchema.md): all at once (readRunDirectory), or
// following one that is still being written (RunFollower).
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
// RunFollower contract:
// - poll() returns, in order and exactly once, the records whose line (with its
//   newline) reached events.jsonl since the previous poll. A partial last line
//   stays pending until its newline arrives. A missing events.jsonl (the writer
//   has not started) yields nothing and is retried on the next poll.
// - finished() becomes true on the poll that sees summary.json and has read
//   events.jsonl to its end (the writer flushes events before the summary, so
//   nothing can follow). A pending partial line is then settled as the reader
//   does: kept if it parses, otherwise dropped with a warning.
// - Records of unknown type are skipped as the reader skips them: one warning
//   per type in warnings(), whose count is updated in place as more arrive.
// - Cheap at 30 Hz: the file stays open between polls; an idle poll costs one
//   fstat, and a stat of summary.json until it appears.
// - maxBytes bounds the bytes read by one poll so that opening a long run does
//   not stall a UI tick; the rest comes on the next polls (caughtUp() says so).
// - Not thread-safe; one owner.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

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
    int skipped_lines = 0;                  // unreadable lines of events.jsonl
    bool torn_last_line = false;            // a torn last line was ignored
    int skipped_unknown_records = 0;        // records of a type this build does not know
};

RunData readRunDirectory(const std::string& dir);

struct UnknownTypes;

class RunFollower {
public:
    explicit RunFollower(const std::string& dir);
    ~RunFollower();
    RunFollower(const RunFollower&) = delete;
    RunFollower& operator=(const RunFollower&) = delete;

    std::vector<nlohmann::json> poll(
        std::size_t maxBytes = std::numeric_limits<std::size_t>::max());
    bool finished() const { return finished_; }
    bool caughtUp() const { return caughtUp_; }

    std::string directory() const { return dir_; }
    // Unreadable lines skipped so far, warnings in the reader's wording.
    int skippedLines() const { return skippedLines_; }
    const std::vector<std::string>& warnings() const { return warnings_; }

private:
    bool openEvents();
    void takeLines(std::vector<nlohmann::json>& out);
    void settlePending(std::vector<nlohmann::json>& out);
    bool skipUnknown(const nlohmann::json& record);  // true: unknown type, counted

    std::string dir_;
    std::string eventsPath_;
    std::string summaryPath_;
    int fd_ = -1;
    std::int64_t offset_ = 0;  // bytes of events.jsonl consumed into lines/pending
    std::int64_t lineNumber_ = 0;
    std::string pending_;      // bytes after the last newline read so far
    int skippedLines_ = 0;
    std::vector<std::string> warnings_;
    bool summarySeen_ = false;
    bool caughtUp_ = false;
    bool finished_ = false;
    std::unique_ptr<UnknownTypes> unknown_;
    std::vector<std::size_t> unknownWarning_;  // index in warnings_ of each unknown type's line
};

}  // namespace ampscope
