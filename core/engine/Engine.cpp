#include "engine/Engine.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <set>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

#include "common/InputError.h"
#include "config/ConfigJson.h"
#include "config/ConfigValidation.h"
#include "data/BatchIterator.h"
#include "data/Dataset.h"
#include "engine/CpuBlockCache.h"
#include "engine/DeviceMemory.h"
#include "engine/FaultInjector.h"
#include "engine/LockstepRun.h"
#include "engine/ProbeSession.h"
#include "engine/RunAccounting.h"
#include "engine/RunRecords.h"
#include "engine/SensitivityPass.h"
#include "engine/StepTrace.h"
#include "engine/SystemInfo.h"
#include "engine/Trainer.h"
#include "engine/Watchpoints.h"
#include "models/ModelFileIdentity.h"
#include "run/EventSchema.h"
#include "run/ModelModulesRecord.h"
#include "run/RecordCodec.h"
#include "probes/PrecisionMapRecord.h"
#include "run/RunWriter.h"

namespace ampscope {

const char* engineStateName(EngineState state) {
    switch (state) {
        case EngineState::Idle: return "idle";
        case EngineState::Running: return "running";
        case EngineState::Paused: return "paused";
        case EngineState::Finished: return "finished";
        case EngineState::Stopped: return "stopped";
        case EngineState::Failed: return "failed";
    }
    return "unknown";
}

namespace {

using Clock = std::chrono::steady_clock;

EngineEvent makeEvent(EngineEvent::Kind kind, int64_t step, std::string message = {}) {
    EngineEvent event;
    event.kind = kind;
    event.step = step;
    event.message = std::move(message);
    return event;
}

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

struct Engine::Impl {
    RunConfig config;
    std::string runDirectory;
    MetricStream stream;
    std::thread thread;

    mutable std::mutex mutex;
    std::condition_variable wake;
    bool pauseRequested = false;
    bool stopRequested = false;
    int64_t stepsAllowed = 0;  // single steps granted while paused
    bool mapRequested = false; // the window asked for the next step's precision map
    std::string pauseReason;   // a watchpoint's message, shown with the Paused event
    EngineState state = EngineState::Idle;
    RunSummary summary;
    bool ended = false;
    std::condition_variable endedSignal;

    std::unique_ptr<RunWriter> writer;
    std::set<int64_t> tracedSteps;
    ModelConfig modelFile;  // the model as config.json names it (a user's file: path, SHA-256)

    void setState(EngineState s) {
        std::lock_guard<std::mutex> lock(mutex);
        state = s;
    }

    // Blocks while paused; returns false when the run must stop.
    bool awaitPermissionForStep(int64_t step) {
        std::unique_lock<std::mutex> lock(mutex);
        if (stopRequested) return false;
        if (!pauseRequested) return true;
        if (state != EngineState::Paused) {
            state = EngineState::Paused;
            stream.pushEvent(makeEvent(EngineEvent::Kind::Paused, step, pauseReason));
            pauseReason.clear();
        }
        wake.wait(lock, [&] { return stopRequested || !pauseRequested || stepsAllowed > 0; });
        if (stopRequested) return false;
        if (!pauseRequested) {
            state = EngineState::Running;
            stream.pushEvent(makeEvent(EngineEvent::Kind::Resumed, step));
        } else {
            --stepsAllowed;
        }
        return true;
    }

    bool stopping() {
        std::lock_guard<std::mutex> lock(mutex);
        return stopRequested;
    }

    bool takeMapRequest() {
        std::lock_guard<std::mutex> lock(mutex);
        return std::exchange(mapRequested, false);
    }

    // A watchpoint fired: pause before the next step and say why.
    void pauseForWatchpoint(const std::string& reason) {
        std::lock_guard<std::mutex> lock(mutex);
        pauseRequested = true;
        pauseReason = "watchpoint: " + reason;
    }

    // Ends the run as an error: one line in the summary, an Error event, and
    // (when the run directory still takes writes) an error record.
    void fail(RunSummary& s, std::string message, bool inputError) {
        // torch errors carry a C++ backtrace after the first line; keep one line.
        if (auto nl = message.find('\n'); nl != std::string::npos) message.resize(nl);
        s.status = run_status::kError;
        s.error = message;
        EngineEvent ev = makeEvent(EngineEvent::Kind::Error, s.steps, message);
        ev.inputError = inputError;
        stream.pushEvent(ev);
        try {
            record(toJson(ErrorRecord{s.steps, message, inputError}));
        } catch (...) {
            // The run directory itself failed; the event and the summary still say why.
        }
    }

    // Writes a record to the run directory and hands it to live views, in the same order;
    // steps reach them as StepMetrics instead (pushStep).
    void record(const nlohmann::json& r) {
        if (writer) writer->append(r);
        if (record_codec::typeOf(r) != event_type::kStep) stream.pushRecord(r);
    }

    void run();
    struct Training;
    void train(RunSummary& s);
    void runEpochs(Training& run, RunSummary& s);
    void runStep(Training& run, RunSummary& s, int64_t epoch, int64_t step, const torch::Tensor& x,
                 const torch::Tensor& y);
    bool endEpoch(Training& run, RunSummary& s, int64_t epoch, int64_t step,
                  std::chrono::steady_clock::time_point epochStart);
    c10::Device prepareRun(RunSummary& s);
    void announceRun(const RunSummary& s, Trainer& trainer, const DataBundle& data, int64_t totalSteps);
    void recordProbeResults(ProbeSession& probes, const std::shared_ptr<const ProbeSnapshot>& snapshot,
                            RunAccounting& accounting, RunSummary& s);
};

void Engine::Impl::run() {
    const auto wallStart = Clock::now();
    RunSummary s;
    s.torchVersion = TORCH_VERSION;
    s.mode = config.precision.mode;
    s.model = config.model.name;
    s.dataset = config.data.dataset;
    EngineState endState = EngineState::Finished;
    try {
        train(s);
        if (stopping()) s.status = run_status::kStopped;
        endState = s.status == run_status::kStopped ? EngineState::Stopped : EngineState::Finished;
    } catch (const InputError& e) {
        fail(s, e.what(), true);
        endState = EngineState::Failed;
    } catch (const std::bad_alloc&) {
        // what() says only "std::bad_alloc"; say what it means and where.
        fail(s,
             "out of memory: an allocation failed after " + std::to_string(s.steps) +
                 " completed steps (try a smaller batch_size or model)",
             false);
        endState = EngineState::Failed;
    } catch (const std::exception& e) {
        fail(s, e.what(), false);
        endState = EngineState::Failed;
    } catch (...) {
        fail(s, "unknown exception in the engine", false);
        endState = EngineState::Failed;
    }
    // The model, batches and graphs of this run are gone: give their blocks back,
    // so that a window which ran a model does not keep its peak.
    cpu_block_cache::releaseIdle();
    s.wallSeconds = secondsSince(wallStart);
    if (s.peakMemoryBytes == 0) s.peakMemoryBytes = peakResidentBytes();
    if (writer) {
        // The disk, not the user's input: a failed write ends the run as an error.
        const auto writeFailed = [&](const std::exception& e) {
            if (s.status != run_status::kError) {
                fail(s, e.what(), false);
                endState = EngineState::Failed;
            }
        };
        try {
            writer->append(toJson(RunEndRecord{s.status, s.steps, utcTimeNow()}));
            writer->flush();
        } catch (const std::exception& e) {
            writeFailed(e);
        }
        // Tried even when events.jsonl could not take run_end: summary.json is a new
        // small file (temp + rename), and it says how the run ended.
        try {
            writer->writeSummary(summaryToJson(s));
        } catch (const std::exception& e) {
            writeFailed(e);
        }
        writer.reset();
    }
    if (endState != EngineState::Failed) {
        EngineEvent ev = makeEvent(endState == EngineState::Stopped ? EngineEvent::Kind::Stopped
                                                                    : EngineEvent::Kind::Finished,
                                   s.steps);
        stream.pushEvent(ev);
    }
    {
        std::lock_guard<std::mutex> lock(mutex);
        summary = s;
        state = endState;
        ended = true;
    }
    endedSignal.notify_all();
}

// Threads, seed, device and the run directory: what a run sets before it loads anything.
c10::Device Engine::Impl::prepareRun(RunSummary& s) {
    throwIfInvalid(config);
    // config.json names the user's model file by absolute path, size and SHA-256 (the
    // engine's own config stays as given: the window may be reading it).
    RunConfig resolved = config;
    identifyModelFile(resolved.model);
    modelFile = resolved.model;
    const int threads = config.threads > 0 ? config.threads : hardwareThreads();
    // Debian's LibTorch starts with one intra-op thread; the run says how many it uses.
    at::set_num_threads(threads);
    s.threads = threads;
    cpu_block_cache::install();  // reuse of large blocks: no page faults per step
    torch::manual_seed(config.seed);
    const c10::Device device = pickDevice(config.device);
    s.device = device.is_cuda() ? "cuda" : "cpu";
    s.deviceName = device.is_cuda() ? "CUDA device 0" : cpuModelName();
    if (!runDirectory.empty()) {
        RunStartRecord start;
        start.device = s.device;
        start.threads = threads;
        writer = std::make_unique<RunWriter>(runDirectory, configToJson(resolved), start);
    }
    return device;
}

// What the run is, before its first step: the run_info record and the Started event.
void Engine::Impl::announceRun(const RunSummary& s, Trainer& trainer, const DataBundle& data,
                               int64_t totalSteps) {
    const std::string description =
        config.model.name + " (" + std::to_string(s.parameters) + " parameters) on " + data.description +
        "; mode " + config.precision.mode + ": " + trainer.policy().execution.how + "; " + s.device + " (" +
        s.deviceName + "), " + std::to_string(s.threads) + " threads";
    record(runInfoRecord(description, s, trainer.model().layerNames(), totalSteps));
    if (const auto* modules = trainer.model().moduleTree())
        record(toJson(ModelModulesRecord{modelFile.path, modelFile.sha256, *modules}));
    EngineEvent ev = makeEvent(EngineEvent::Kind::Started, 0);
    ev.totalSteps = totalSteps;
    ev.message = description;
    stream.pushEvent(ev);
}

// After a step's own record: the fp32 shadow, the first non-finite value and the probe
// records, each written and counted for the summary.
void Engine::Impl::recordProbeResults(ProbeSession& probes, const std::shared_ptr<const ProbeSnapshot>& snapshot,
                                      RunAccounting& accounting, RunSummary& s) {
    if (auto shadow = probes.takeShadow()) {
        accounting.countShadow(shadow->layers);
        record(toJson(*shadow));
    }
    if (auto map = probes.takePrecisionMap()) record(toJson(*map));
    if (const auto& first = probes.newFirstNonFinite()) {
        s.firstNonFinite = *first;
        record(nonFiniteRecord(*first, probes.locator().framesAtFirstEvent()));
    }
    if (snapshot) {
        for (const auto& r : probeRecords(*snapshot)) record(r);
        accounting.countProbeStep(*snapshot);
    }
}

namespace {

// A fault aimed at a layer the model does not have would never fire: refused by name.
void checkFaultLayers(const std::vector<FaultConfig>& faults, const TrainableModel& model) {
    for (size_t i = 0; i < faults.size(); ++i) {
        const std::string& layer = faults[i].layer;
        if (layer.empty() || model.hasLayer(layer)) continue;
        std::string names;
        for (const auto& name : model.layerNames()) names += (names.empty() ? "" : ", ") + name;
        throw InputError("faults[" + std::to_string(i) + "].layer: no layer named \"" + layer +
                         "\" (layers: " + names + ")");
    }
}

}  // namespace

// What a run holds from its first step to its last: built by train, used by each step
// and each epoch's end.
struct Engine::Impl::Training {
    const DataBundle& data;
    Trainer& trainer;
    BatchIterator& batches;
    FaultInjector& faults;
    std::optional<ProbeSession>& probes;
    std::optional<LockstepRun>& lockstep;
    std::optional<SensitivityPass>& sensitivity;  // on probes.sensitivity_every's steps
    RunAccounting& accounting;
    int64_t totalSteps;
    std::string stepText;  // the per-step record, formatted into a reused buffer
};

void Engine::Impl::train(RunSummary& s) {
    const c10::Device device = prepareRun(s);
    const DataBundle data = loadData(config.data, config.seed);
    // The seeded state the model is drawn from: lock-step B draws its weights from it too.
    const torch::Tensor initialRng = captureCpuRng();
    Trainer trainer(config, data, device);
    checkFaultLayers(config.faults, trainer.model());
    s.emulated = trainer.policy().execution.emulated;
    s.execution = trainer.policy().execution.how;
    s.parameters = trainer.model().parameterCount();

    BatchIterator batches(data.train, config.train.batch_size, true, config.seed);
    int64_t total = batches.batchesPerEpoch() * config.train.epochs;
    if (config.train.max_steps > 0) total = std::min(total, config.train.max_steps);
    announceRun(s, trainer, data, total);

    FaultInjector faults(config.faults, [&](const FaultConfig& f) { record(faultRecord(f)); });
    // Probes off entirely (no cadence, no locator) only when asked, to measure their cost.
    std::optional<ProbeSession> probes;
    if (config.probes.every > 0 || config.probes.locate_nonfinite != "off" || !config.probes.precision_map_steps.empty())
        probes.emplace(trainer, config.probes, faults.hasFaults() ? &faults : nullptr);
    if (probes) probes->setTotalSteps(total);
    else if (faults.hasFaults())
        trainer.setObserver(&faults);
    std::optional<LockstepRun> lockstep;
    if (!config.lockstep.mode.empty()) lockstep.emplace(trainer, initialRng);

    std::optional<SensitivityPass> sensitivity;
    if (config.probes.sensitivity_every > 0) sensitivity.emplace(config.probes.sensitivity_formats);

    RunAccounting accounting;
    Training run{data, trainer, batches, faults, probes, lockstep, sensitivity, accounting, total, {}};
    runEpochs(run, s);

    accounting.finish(trainer.model().layerNames(), s);
    s.probeOverhead =
        probes && accounting.trainSeconds() > 0 ? probes->probeSeconds() / accounting.trainSeconds() : 0.0;
    if (lockstep) s.lockstep = lockstep->summary();
    // On CUDA the memory that matters is the GPU's: the caching allocator's peak (what
    // torch.cuda.max_memory_allocated reports); on the CPU the process's peak RSS.
    s.peakMemoryBytes = cudaPeakAllocatedBytes(device).value_or(peakResidentBytes());
}

// The epochs and their steps, until the last step, the last epoch or a stop.
void Engine::Impl::runEpochs(Training& run, RunSummary& s) {
    int64_t step = 0;
    for (int64_t epoch = 1; epoch <= config.train.epochs && step < run.totalSteps; ++epoch) {
        const auto epochStart = Clock::now();
        run.batches.startEpoch(epoch);
        if (run.lockstep) run.lockstep->startEpoch();
        run.accounting.startEpoch();
        torch::Tensor x, y;
        while (step < run.totalSteps && run.batches.next(x, y)) {
            if (!awaitPermissionForStep(step)) return;
            ++step;
            runStep(run, s, epoch, step, x, y);
        }
        if (!endEpoch(run, s, epoch, step, epochStart)) return;
    }
}

// One step: train on the batch, time it, then record and show what it measured.
void Engine::Impl::runStep(Training& run, RunSummary& s, int64_t epoch, int64_t step, const torch::Tensor& x,
                           const torch::Tensor& y) {
    Trainer& trainer = run.trainer;
    auto& probes = run.probes;
    auto& lockstep = run.lockstep;
    const double lossFactor = run.faults.beginStep(step);
    if (lossFactor != 1.0) trainer.scaleNextLoss(lossFactor);
    std::optional<StepTrace> trace;
    if (writer && tracedSteps.count(step)) trace.emplace();
    const auto t0 = Clock::now();
    StepMetrics m;
    std::shared_ptr<ProbeSnapshot> snapshot;
    {
        at::RecordFunction stepSpan(at::RecordScope::USER_SCOPE);
        if (stepSpan.isActive()) stepSpan.before("ampscope::step " + std::to_string(step));
        if (takeMapRequest()) {
            // A run with its probes off has no session; the map asked for from the window
            // brings one (no cadence, no locator: it only maps), built as train() builds it.
            if (!probes) {
                probes.emplace(trainer, config.probes, run.faults.hasFaults() ? &run.faults : nullptr);
                probes->setTotalSteps(run.totalSteps);
            }
            probes->requestMap();
        }
        if (probes) probes->beginStep(step);
        if (lockstep) lockstep->prepare(trainer, probes && probes->probeStep());
        m = trainer.step(x, y);
        snapshot = probes ? probes->endStep() : nullptr;
    }
    m.stepSeconds = secondsSince(t0);
    if (trace) trace->writeTo(runDirectory + "/" + stepTraceFileName(step), step);
    // B's step is not A's time: it runs after A's step is timed.
    const auto lockstepRecord =
        lockstep ? std::optional<LockstepRecord>(lockstep->step(step, trainer, m.loss, x, y)) : std::nullopt;
    m.step = step;
    m.epoch = epoch;
    m.samplesPerSecond = m.stepSeconds > 0 ? static_cast<double>(x.size(0)) / m.stepSeconds : 0.0;
    run.accounting.countStep(m, x.size(0), trainer.scaler().enabled() ? trainer.scaler().scale() : 1.0, s);
    stream.pushStep(m);
    if (writer) {
        // The per-step record, formatted into a reused buffer (no JSON object).
        run.stepText.clear();
        appendStepRecordText(m, run.stepText);
        writer->appendText(run.stepText);
    }
    if (lockstepRecord) record(toJson(*lockstepRecord));
    // After the step is timed and trained: the pass only reads the trainer (its weights
    // after this step, the step's batch) and puts the CPU generator back, so the run
    // trains as it would without it.
    if (run.sensitivity && step % config.probes.sensitivity_every == 0)
        record(toJson(run.sensitivity->measure(trainer, step)));
    const NonFiniteEvent* newFirst = nullptr;
    if (probes) {
        if (probes->newFirstNonFinite()) newFirst = &*probes->newFirstNonFinite();
        recordProbeResults(*probes, snapshot, run.accounting, s);
    }
    for (const std::string& reason :
         watchpointsFired(config.probes, m, trainer.scaler().enabled(), newFirst, snapshot.get()))
        pauseForWatchpoint(reason);
    if (writer) writer->flushIfDue();
}

// The epoch's end: evaluate, record the epoch and tell the views. False when the run was
// stopped during evaluation (the epoch is then not recorded).
bool Engine::Impl::endEpoch(Training& run, RunSummary& s, int64_t epoch, int64_t step,
                            std::chrono::steady_clock::time_point epochStart) {
    // An epoch that ended early (max_steps) is still evaluated, so a short run
    // has a validation number.
    const Evaluation eval =
        run.trainer.evaluate(run.data.val, config.train.eval_batch_size, [this] { return stopping(); });
    if (stopping()) return false;
    EpochMetrics em;
    em.epoch = epoch;
    em.step = step;
    em.trainLoss = run.accounting.epochTrainLoss();
    em.valLoss = eval.loss;
    em.valAccuracy = eval.accuracy;
    em.seconds = secondsSince(epochStart);
    run.accounting.endEpoch(em, s);
    record(epochRecord(em));
    if (writer) writer->flush();
    EngineEvent ev = makeEvent(EngineEvent::Kind::EpochEnded, step);
    ev.epoch = em;
    stream.pushEvent(ev);
    return true;
}

Engine::Engine(RunConfig config, std::string runDirectory) : impl_(std::make_unique<Impl>()) {
    impl_->config = std::move(config);
    impl_->runDirectory = std::move(runDirectory);
}

Engine::~Engine() {
    stop();
    wait();
}

void Engine::traceSteps(std::vector<int64_t> steps) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->tracedSteps.insert(steps.begin(), steps.end());
}

void Engine::start() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (impl_->thread.joinable() || impl_->state != EngineState::Idle) return;
    impl_->state = EngineState::Running;
    impl_->thread = std::thread([impl = impl_.get()] { impl->run(); });
}

void Engine::pause() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->pauseRequested = true;
}

void Engine::resume() {
    {
        std::lock_guard<std::mutex> lock(impl_->mutex);
        impl_->pauseRequested = false;
        impl_->stepsAllowed = 0;
    }
    impl_->wake.notify_all();
}

void Engine::stepOnce() {
    {
        std::lock_guard<std::mutex> lock(impl_->mutex);
        impl_->pauseRequested = true;
        ++impl_->stepsAllowed;
    }
    impl_->wake.notify_all();
}

void Engine::mapNextStep() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->mapRequested = true;
}

void Engine::stop() {
    {
        std::lock_guard<std::mutex> lock(impl_->mutex);
        impl_->stopRequested = true;
    }
    impl_->wake.notify_all();
}

void Engine::wait() {
    if (impl_->thread.joinable()) impl_->thread.join();
}

bool Engine::waitFor(double seconds) {
    std::unique_lock<std::mutex> lock(impl_->mutex);
    if (!impl_->thread.joinable() && !impl_->ended) return true;
    return impl_->endedSignal.wait_for(lock, std::chrono::duration<double>(seconds),
                                       [&] { return impl_->ended; });
}

EngineState Engine::state() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->state;
}

MetricStream& Engine::stream() { return impl_->stream; }

RunSummary Engine::summary() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->summary;
}

const RunConfig& Engine::config() const { return impl_->config; }
const std::string& Engine::runDirectory() const { return impl_->runDirectory; }

}  // namespace ampscope
