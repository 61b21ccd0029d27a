#pragma once
// Plain (no torch, no Qt). Reading a run directory on a thread of its own, a batch or two
// ahead of whoever takes its records: the window opens several long runs at once and
// hands their records to views on its own thread, so the parsing (most of the work) runs
// beside that, on the other core.
//
// A record comes parsed (ParsedRecord): the step, histogram and underflow records typed,
// read from their text where FlatRecordText.h can (parseCommonRecordLine: the one rule
// for which lines go that way), every other record as JSON, as RunRecordReader gives it.
//
// ParsedRunReader contract:
// - The constructor opens the run as RunRecordReader does and refuses what it refuses
//   (InputError, on the caller's thread); startData() is its data() at that point
//   (config, summary, complete). Then (at once, or with Start::Later at start() or the
//   first next(): a caller opening many runs starts a few at a time, since each worker
//   holds batches in flight) a worker thread reads events.jsonl in batches of
//   up to batchRecords records, keeping at most kQueuedBatches of them waiting, so memory
//   is bounded by a few batches whatever the run's length.
// - next(batch) replaces batch's contents with the next records in file order (what the
//   batch held goes back to the worker, which frees it: records may be taken from, moved
//   out of or left as they are), waiting
//   for the worker when it has none ready; false once every record was handed over. A
//   read error after the start (EIO) is rethrown by the next() that reaches it, after
//   the records read before it. data() is final (warnings, counts) once next() has
//   returned false.
// - The destructor stops the worker (between batches) and joins it.
// - One consumer; next(), ready(), data() and the destructor from the same thread.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

#include "engine/StepMetrics.h"
#include "probes/ProbeRecords.h"
#include "run/RunReader.h"

namespace ampscope {

using ParsedRecord = std::variant<StepMetrics, HistogramRecord, UnderflowRecord, nlohmann::json>;

// A step, histogram or underflow line the text path reads, into `out` (typed); false,
// leaving `out` unspecified, for any other line (the caller parses it as JSON).
bool parseCommonRecordLine(std::string_view line, ParsedRecord& out);

class ParsedRunReader {
public:
    static constexpr std::size_t kQueuedBatches = 2;
    enum class Start { AtOnce, Later };

    // skippedTypes: record types the consumer reads none of; their lines are passed over
    // unparsed where the line's end names the type (`"type":"NAME"}`, as this program's
    // writers end every line of a type that sorts last), and handed over as JSON otherwise.
    explicit ParsedRunReader(const std::string& dir, std::size_t batchRecords = 16384,
                             std::vector<std::string> skippedTypes = {}, Start when = Start::AtOnce);
    ~ParsedRunReader();
    ParsedRunReader(const ParsedRunReader&) = delete;
    ParsedRunReader& operator=(const ParsedRunReader&) = delete;

    const RunData& startData() const { return start_; }
    // Starts the worker (once; next() calls it).
    void start();
    bool next(std::vector<ParsedRecord>& batch);
    // Whether next() would return without waiting: a batch is queued, or the worker is done
    // (starts the worker, as next() does).
    bool ready();
    const RunData& data() const { return final_; }

    // Bytes of events.jsonl the worker has read, and its size when opened (progress).
    std::int64_t bytesRead() const { return bytesRead_.load(std::memory_order_relaxed); }
    std::int64_t totalBytes() const { return totalBytes_; }

private:
    void work();

    RunRecordReader reader_;  // the worker's once started
    RunData start_;
    RunData final_;
    std::size_t batchRecords_;
    std::vector<std::string> skippedEndings_;  // `"type":"NAME"}` per skipped type
    std::int64_t totalBytes_ = 0;
    std::atomic<std::int64_t> bytesRead_{0};

    std::mutex mutex_;
    std::condition_variable ready_;  // a batch queued, or the worker done
    std::condition_variable room_;   // the queue has room, or stop
    std::deque<std::vector<ParsedRecord>> queue_;
    std::vector<std::vector<ParsedRecord>> spare_;  // batches handed back, for the worker to empty and fill
    bool workerDone_ = false;
    bool stop_ = false;
    std::exception_ptr error_;
    RunData workerData_;  // the reader's data() when it finished, handed over under mutex_
    std::thread worker_;
};

}  // namespace ampscope
