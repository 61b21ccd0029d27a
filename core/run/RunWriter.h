#pragma once
// RunWriter: records one run into a run directory (EventSchema.md):
//   DIR/config.json    the resolved config, written atomically at open
//   DIR/events.jsonl   append-only, one JSON object per line, first line run_start
//   DIR/summary.json   written once at the end, atomically
//
// Contract:
// - Construction (or open()) creates DIR and its parents, claims DIR by creating
//   events.jsonl exclusively, writes config.json atomically and writes the
//   run_start record (RunLifecycleRecords.h) at once, so a
//   follower sees the run begin. Callers never append run_start themselves.
//   Every failure here is the user's path: InputError naming DIR, e.g.
//   "DIR: exists and is not a directory", "DIR: already holds a run
//   (events.jsonl); choose another --out", "DIR: cannot create (Permission denied)".
//   A failed open leaves no events.jsonl behind, so the same DIR can be retried.
// - append() buffers one whole line (dump() + '\n'), serialized straight into the
//   buffer (no string per record); the buffer's capacity is kept between writes. The
//   buffer goes to the file
//   with write(2) when it reaches kFlushBytes, when flushIfDue() finds
//   kFlushInterval passed since the last write, or on flush()/close(). Only whole
//   lines are ever handed to write(2), so a kill -9 loses at most the lines of
//   the last ~200 ms (if the owner calls flushIfDue() after every step, and
//   flush() when it pauses) and never leaves half a line behind.
// - A failed write (ENOSPC, EIO, EFBIG) throws RunWriteError "DIR/events.jsonl:
//   write failed (No space left on device)". The failure is sticky: the buffered
//   lines are dropped, a partly written line is truncated away when the file
//   allows, and every later append()/flush() throws the same error, so the run
//   never has a hole in the middle of its events. writeSummary() still tries, so
//   a run that failed this way can still end with a summary saying so.
// - writeSummary() flushes and fsyncs the events first, so summary.json present
//   means every event is on disk; then writes summary.json atomically (temp
//   file in DIR, fsync, rename, fsync DIR).
// - Non-finite numbers have no JSON spelling: nlohmann writes NaN/Inf as null.
//   Records that need them carry counts or strings instead (EventSchema.md).
// - Not thread-safe: one thread (the engine's) owns a RunWriter.
// - The destructor flushes what is buffered and closes, never throwing.
#include <chrono>
#include <cstddef>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "run/RunLifecycleRecords.h"

namespace ampscope {

// A write into the run directory failed after it was opened: the disk, not the
// user's input. The engine turns it into an error event and stops training.
class RunWriteError : public std::runtime_error {
public:
    RunWriteError(const std::string& message, int error)
        : std::runtime_error(message), error_(error) {}
    int error() const { return error_; }  // the errno behind it

private:
    int error_;
};

class RunWriter {
public:
    static constexpr std::size_t kFlushBytes = 64 * 1024;
    static constexpr std::chrono::milliseconds kFlushInterval{200};

    RunWriter(const std::string& dir, const nlohmann::json& config);
    // run_start as `start` says (the engine's device and threads), with the writer's own
    // schema_version, time and ampscope_version in place of what it holds.
    RunWriter(const std::string& dir, const nlohmann::json& config, RunStartRecord start);
    static std::unique_ptr<RunWriter> open(const std::string& dir, const nlohmann::json& config);

    ~RunWriter();
    RunWriter(const RunWriter&) = delete;
    RunWriter& operator=(const RunWriter&) = delete;

    // record must be a JSON object with a string "type" (std::invalid_argument
    // otherwise: a programming error, not a disk one).
    void append(const nlohmann::json& record);
    // The same for a record already written as compact JSON text (one object, no
    // newline; the writer adds it): the engine's per-step path, which formats its step
    // record into a reused buffer (run/StepRecordCodec.h). Copied into the buffer, so no
    // allocation once the buffer has grown. A text that is not one line starting with
    // '{' and ending with '}' is std::invalid_argument.
    void appendText(std::string_view recordText);
    // Writes the buffer if kFlushInterval passed since the last write. Cheap
    // (one clock read) when nothing is due; returns whether it wrote.
    bool flushIfDue();
    void flush();
    void writeSummary(const nlohmann::json& summary);
    // Flushes, fsyncs and closes events.jsonl; later appends are a logic_error.
    // Idempotent. writeSummary() may still be called after it.
    void close();

    std::string directory() const { return dir_; }
    std::string eventsPath() const { return eventsPath_; }
    std::size_t bufferedBytes() const { return buffer_.size(); }

    // Writes document (indented, trailing newline) to path via a temp file in
    // the same directory + fsync + rename, so readers see the old file or the
    // whole new one, never a part. Throws RunWriteError "PATH: write failed (...)".
    static void writeJsonAtomically(const std::string& path, const nlohmann::json& document);

private:
    void openDirectory(const nlohmann::json& config, RunStartRecord start);
    void writeBuffer();
    [[noreturn]] void fail(int error);

    std::string dir_;
    std::string eventsPath_;
    int fd_ = -1;
    std::string buffer_;
    long long committedBytes_ = 0;  // file size after the last whole write
    std::chrono::steady_clock::time_point lastWrite_;
    std::optional<RunWriteError> failure_;
    bool closed_ = false;
};

}  // namespace ampscope
