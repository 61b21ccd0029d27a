#pragma once
// RecordDispatcher: the one way run records reach the run set's stores and the views
// (RunObserver.h). A live run (MetricStream drains), a run directory opened or followed
// into the window's run set (the Runs list) and a report's offscreen views all go
// through it, so every store sees the same calls in the same order whatever the source.
//
// One rule per kind of record:
// - "step": gathered and handed over with appendSteps in batches, before the next other
//   record and at every flush; a step record without an integer "step" is malformed.
// - "epoch": appendEpoch, after the steps before it.
// - "run_info": takeRecord (RunModel reads it once for its stores: the layer list, the
//   run's facts).
// - "model_modules": read once (modelModulesFromJson) and handed to every view as
//   takeModelModules; one that does not read is malformed. Views get the user's module
//   tree from the record, never by loading the model file.
// - "histogram", "underflow": decoded once (histogramRecordFromJson, ...; from the line's
//   text by takeLine) and handed to every view as takeHistogram / takeUnderflow.
// - "error": its message (errorFromJson) to the error hook only; a view never sees it.
// - "run_start", "run_end": framing; the steps and the summary say what the run did.
// - the types no view reads (recordTypesNoViewReads: "op_dtypes"): delivered nowhere, so
//   a run opened with them passed over unparsed gives the views the same calls.
// - malformed (not an object, no string "type", or a record of the types above that does
//   not read): delivered nowhere, under runset/ParsedRecord.h's rule (counted, one
//   warning per type), and the views go on with the next.
// - any other type, known or not: takeRecord. Views pick the types they know, so a run
//   written by a newer AmpScope (or recorded from a PyTorch run) opens in an older one.
//
// Order: the run directory's. A live drain holds steps and records apart; each record
// says after which step it was written (StreamedRecord), which puts them back in order.
#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "runset/RunObserver.h"
#include "engine/MetricStream.h"
#include "engine/StepMetrics.h"
#include "probes/ProbeRecords.h"
#include "run/ParsedRunReader.h"
#include "run/RunReader.h"
#include "runset/ParsedRecord.h"

namespace ampscope::ui {

class RecordDispatcher {
public:
    struct Hooks {
        std::function<void(const std::string& message)> error;
    };

    // The observers are read at every call, so views registered later are fed too.
    explicit RecordDispatcher(const std::vector<RunObserver*>& observers, Hooks hooks = {});

    // beginRun on every view; the counts start again.
    void beginRun(const RunContext& context);
    // One record of a run directory, in the directory's order.
    void take(const nlohmann::json& record);
    // A step read without JSON (parseStepRecordText): the same as its step record.
    void takeStep(StepMetrics step);
    // Histogram and underflow records, decoded: every view's takeHistogram/takeUnderflow.
    void takeHistogram(const HistogramRecord& record);
    void takeUnderflow(const UnderflowRecord& record);
    // A record parsed by ParsedRunReader (or takeLine): the call its kind gets.
    void take(ParsedRecord&& record);
    // A line of events.jsonl read without JSON when it is a step, histogram or underflow
    // record the text path reads (parseCommonRecordLine: nearly all of a long run); false,
    // taking nothing, for any other line: the caller parses it as JSON and hands it to take().
    bool takeLine(std::string_view line);
    // What a live run's stream held since the last drain, in the run directory's order.
    void takeDrained(const DrainedMetrics& drained);
    // Hands the gathered steps to the views (a caller bounding its memory per read).
    void flushSteps();
    // flushSteps, then endOfBatch on every view: they redraw.
    void endBatch();

    int64_t stepsDelivered() const { return stepsDelivered_; }
    int64_t lastStep() const { return lastStep_; }
    int64_t malformedRecords() const { return malformed_.count(); }

private:
    const std::vector<RunObserver*>& observers_;
    Hooks hooks_;
    std::vector<StepMetrics> pendingSteps_;
    ParsedRecord parsedLine_;  // takeLine's
    int64_t stepsDelivered_ = 0;
    int64_t lastStep_ = 0;
    MalformedRecords malformed_{"record dispatcher"};
};

// Every record a run directory's reader has left, in order, through the dispatcher: step,
// histogram and underflow lines read without JSON (RecordDispatcher::takeLine: nearly all
// of a run), the gathered steps handed over after each read of batchRecords, so the
// views' memory is bounded, not a vector's. alsoSee, when set, sees every record that the
// reader parsed as JSON (not those lines); afterBatch runs after each read (a window
// shows its progress there). Does not call endBatch.
void dispatchRunRecords(RunRecordReader& reader, RecordDispatcher& dispatcher,
                        const std::function<void(const nlohmann::json&)>& alsoSee = {},
                        const std::function<void()>& afterBatch = {},
                        std::size_t batchRecords = 16384);

// Record types no view reads (the op dtype audit is for exports and reports' tables to
// come): a run read for the views passes them over unparsed (ParsedRunReader's
// skippedTypes). A view that starts to read one takes it off this list.
std::vector<std::string> recordTypesNoViewReads();

// The same from a reader that parses on its own thread (several runs open at once, each
// parsed beside the views taking the others): every batch through the dispatcher, steps
// flushed after each, then afterBatch; alsoSee sees the records that came as JSON. Does
// not call endBatch; rethrows the reader's errors.
void dispatchParsedRun(ParsedRunReader& reader, RecordDispatcher& dispatcher,
                       const std::function<void(const nlohmann::json&)>& alsoSee = {},
                       const std::function<void()>& afterBatch = {});

}  // namespace ampscope::ui
