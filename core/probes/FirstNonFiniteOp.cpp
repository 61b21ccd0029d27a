#include "probes/FirstNonFiniteOp.h"

#include <cstring>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/record_function.h>
#include <torch/torch.h>

#include "models/ScriptRunContext.h"
#include "precision/InsertedOps.h"

namespace ampscope {

namespace {

struct WatchState {
    bool active = false;
    bool checking = false;        // the check's own ops are not watched
    int backwardDepth = 0;
    bool backwardStarted = false;  // a gradient hook runs between the nodes, outside them
    std::string backwardNode;
    // The lab's own ops (precision/InsertedOps.h) the current op runs inside, outermost
    // first: the graph pass's, the zoo's scopes of the same names, an injected fault.
    std::vector<const char*> inserted;
    std::vector<NonFiniteOp> hits;
};

thread_local WatchState watch;

bool isInserted(const char* name) { return inserted_op::isInserted(name); }

// The op a user can act on for an op run inside the lab's own: an injected fault when
// the work is one, else the outermost (the rounding, the module's output).
std::string insertedNaming() {
    for (const char* name : watch.inserted)
        if (std::strcmp(name, inserted_op::kInjectedFault) == 0) return name;
    return watch.inserted.front();
}

// Allocations hand out memory before anything is written to it: whatever bits they
// show (NaN among them) are no result of the model.
bool allocatesOnly(const char* name) {
    return std::strstr(name, "empty") != nullptr || std::strcmp(name, "aten::resize_") == 0;
}

// A view (its schema's results alias an argument and write nothing: resolve_conj,
// transpose, detach) computes nothing: a NaN it shows was in the tensor it views, made
// by an op already seen or not yet written at all. The latter happens inside kernels:
// mm allocates its result and takes result.resolve_conj() before BLAS fills it, so the
// view shows whatever an earlier tensor left in that memory (a NaN of an earlier run).
bool viewsOnly(const at::RecordFunction& fn) {
    const auto name = fn.operator_name();
    if (!name) return false;
    const auto handle = c10::Dispatcher::singleton().findOp(*name);
    if (!handle || !handle->hasSchema()) return false;
    const auto& returns = handle->schema().returns();
    if (returns.empty()) return false;
    for (const auto& r : returns) {
        const auto* alias = r.alias_info();
        if (!alias || alias->isWrite()) return false;
    }
    return true;
}


// "autograd::engine::evaluate_function: MulBackward0" -> "MulBackward0"
std::string nodeName(const char* name) {
    const std::string text = name;
    const auto colon = text.rfind(": ");
    return colon == std::string::npos ? text : text.substr(colon + 2);
}

std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction& fn) {
    if (!watch.active || watch.checking) return nullptr;
    if (fn.scope() == at::RecordScope::BACKWARD_FUNCTION) {
        watch.backwardStarted = true;
        if (watch.backwardDepth++ == 0) watch.backwardNode = nodeName(fn.name());
    } else if (isInserted(fn.name())) {
        watch.inserted.push_back(fn.name());
    }
    return nullptr;
}

// Whether the op's floating outputs hold a NaN, an Inf.
std::pair<bool, bool> nonFinite(const std::vector<c10::IValue>& outputs) {
    bool nan = false, inf = false;
    for (const auto& value : outputs) {
        if (!value.isTensor()) continue;
        const auto& t = value.toTensor();
        if (!t.defined() || !t.is_floating_point() || t.numel() == 0) continue;
        nan = nan || t.isnan().any().item<bool>();
        inf = inf || t.isinf().any().item<bool>();
    }
    return {nan, inf};
}

void onEnd(const at::RecordFunction& fn, at::ObserverContext*) {
    if (!watch.active || watch.checking) return;
    if (fn.scope() == at::RecordScope::BACKWARD_FUNCTION) {
        --watch.backwardDepth;
        return;
    }
    // An inserted op is named by what it runs inside, itself included.
    const bool inserted = isInserted(fn.name());
    const std::string insertedName = watch.inserted.empty() ? std::string() : insertedNaming();
    if (inserted) watch.inserted.pop_back();
    if (watch.hits.size() >= FirstNonFiniteOp::kMaxHits || allocatesOnly(fn.name())) return;
    watch.checking = true;
    const auto [nan, inf] = nonFinite(fn.outputs());
    watch.checking = false;
    if (!nan && !inf) return;
    if (viewsOnly(fn)) return;  // asked only of non-finite outputs: a schema lookup
    NonFiniteOp op;
    // An op inside an inserted one (a rounding's cast) is named by the inserted op.
    op.op = insertedName.empty() ? std::string(fn.name()) : insertedName;
    const bool backward = watch.backwardDepth > 0 || watch.backwardStarted;
    op.phase = std::string(backward ? nonfinite_phase::kBackward : nonfinite_phase::kForward);
    if (backward) op.node = watch.backwardNode;
    if (!backward)
        if (auto* context = currentScriptRunContext())
            op.module = context->currentModule().empty() ? kRootLayerName : context->currentModule();
    op.nan = nan;
    op.inf = inf;
    watch.hits.push_back(std::move(op));
}

}  // namespace

FirstNonFiniteOp::FirstNonFiniteOp() {
    watch = WatchState{};
    watch.active = true;
    handle_ = at::addThreadLocalCallback(
        at::RecordFunctionCallback(&onStart, &onEnd)
            .needsOutputs(true)
            .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
}

FirstNonFiniteOp::~FirstNonFiniteOp() {
    at::removeCallback(handle_);
    watch.active = false;
}

const std::vector<NonFiniteOp>& FirstNonFiniteOp::hits() const { return watch.hits; }

std::optional<NonFiniteOp> FirstNonFiniteOp::explaining(const NonFiniteEvent& event) const {
    // A loss event is the forward's: the loss is computed before backward starts.
    const std::string phase = event.layer == kLossLayerName ? std::string(nonfinite_phase::kForward) : event.phase;
    const bool wantNan = event.nan > 0;
    for (const auto& hit : watch.hits)
        if (hit.phase == phase && (wantNan ? hit.nan : hit.inf)) return hit;
    return std::nullopt;
}

}  // namespace ampscope
