#pragma once
// Following a run directory that is still being written (EventSchema.md): the records
// of events.jsonl as their lines arrive, read with the reader's rules (RunReader.h).
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
#include <string>
#include <vector>

namespace ampscope {

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
    // A line so far was a record (of any type, handed over or skipped as unknown).
    bool sawRecord() const { return sawRecord_; }
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
    bool sawRecord_ = false;
    bool summarySeen_ = false;
    bool caughtUp_ = false;
    bool finished_ = false;
    std::unique_ptr<UnknownTypes> unknown_;
    std::vector<std::size_t> unknownWarning_;  // index in warnings_ of each unknown type's line
};

}  // namespace ampscope
