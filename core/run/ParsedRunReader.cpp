#include "run/ParsedRunReader.h"

#include "run/EventSchema.h"
#include "run/FlatRecordText.h"
#include "run/StepRecordCodec.h"

namespace ampscope {

bool parseCommonRecordLine(std::string_view line, ParsedRecord& out) {
    // Most lines are the engine's step lines: their own one-pass reader first.
    if (line.substr(0, 9) == R"({"epoch":)" && parseStepRecordText(line, out.emplace<StepMetrics>())) return true;
    record_text::FlatLine flat;
    if (!flat.split(line)) return false;
    const std::string_view type = flat.type();
    if (type == event_type::kStep) {
        StepMetrics& m = out.emplace<StepMetrics>();
        return parseStepRecordText(flat, m);
    }
    if (type == probe_record_type::kHistogram) {
        HistogramRecord& h = out.emplace<HistogramRecord>();
        return histogramRecordFromText(flat, h);
    }
    if (type == probe_record_type::kUnderflow) {
        UnderflowRecord& u = out.emplace<UnderflowRecord>();
        return underflowRecordFromText(flat, u);
    }
    return false;
}

ParsedRunReader::ParsedRunReader(const std::string& dir, std::size_t batchRecords,
                                 std::vector<std::string> skippedTypes, Start when)
    : reader_(dir), start_(reader_.data()), batchRecords_(batchRecords > 0 ? batchRecords : 1),
      totalBytes_(reader_.totalBytes()) {
    for (const std::string& type : skippedTypes) skippedEndings_.push_back("\"type\":\"" + type + "\"}");
    if (when == Start::AtOnce) start();
}

void ParsedRunReader::start() {
    if (!worker_.joinable()) worker_ = std::thread([this] { work(); });
}

ParsedRunReader::~ParsedRunReader() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    room_.notify_all();
    if (worker_.joinable()) worker_.join();
}

void ParsedRunReader::work() {
    try {
        for (;;) {
            std::vector<ParsedRecord> batch;
            {
                // A batch the consumer is done with, its room kept (no fresh pages per batch).
                std::lock_guard<std::mutex> lock(mutex_);
                if (!spare_.empty()) {
                    batch = std::move(spare_.back());
                    spare_.pop_back();
                }
            }
            batch.clear();
            batch.reserve(batchRecords_);
            ParsedRecord parsed;
            const auto onRecord = [&](nlohmann::json& record) { batch.emplace_back(std::move(record)); };
            const auto takeLine = [&](std::string_view line) {
                for (const std::string& ending : skippedEndings_)
                    if (line.size() >= ending.size() && line.substr(line.size() - ending.size()) == ending) return true;
                if (!parseCommonRecordLine(line, parsed)) return false;
                batch.push_back(std::move(parsed));
                return true;
            };
            const bool more = reader_.visit(onRecord, takeLine, batchRecords_);
            bytesRead_.store(reader_.bytesRead(), std::memory_order_relaxed);
            std::unique_lock<std::mutex> lock(mutex_);
            if (!batch.empty()) {
                room_.wait(lock, [&] { return stop_ || queue_.size() < kQueuedBatches; });
                if (stop_) return;
                queue_.push_back(std::move(batch));
                ready_.notify_one();
            }
            if (!more || reader_.done()) break;
            if (stop_) return;
        }
    } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        error_ = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    workerData_ = reader_.data();
    workerDone_ = true;
    ready_.notify_one();
}

bool ParsedRunReader::ready() {
    start();
    std::lock_guard<std::mutex> lock(mutex_);
    return !queue_.empty() || workerDone_;
}

bool ParsedRunReader::next(std::vector<ParsedRecord>& batch) {
    start();
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !queue_.empty() || workerDone_; });
    if (!queue_.empty()) {
        // Handed back whole: the worker frees its records, on the thread that made them
        // (a free from another thread costs the allocator a lock each).
        if (batch.capacity() > 0 && spare_.size() < kQueuedBatches) spare_.push_back(std::move(batch));
        batch = std::move(queue_.front());
        queue_.pop_front();
        room_.notify_one();
        return true;
    }
    batch.clear();
    final_ = workerData_;
    if (error_) {
        const std::exception_ptr error = error_;
        error_ = nullptr;
        std::rethrow_exception(error);
    }
    return false;
}

}  // namespace ampscope
