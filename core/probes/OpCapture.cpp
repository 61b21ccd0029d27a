#include "probes/OpCapture.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include <ATen/SequenceNumber.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/record_function.h>

#include "models/LayeredModel.h"
#include "models/ScriptModuleInfo.h"
#include "models/ScriptRunContext.h"
#include "precision/Autocast.h"
#include "precision/InsertedOps.h"

namespace ampscope {

namespace {

// What a top-level op is to the map.
enum class Role {
    Entry,         // an op of the map
    RoundsInput,   // rounds what enters the op it feeds: folded into that op
    RoundsResult,  // rounds an op's result: the result as the run holds it
    Hidden,        // computes nothing worth comparing (allocations, constants, bookkeeping)
};

bool nameIn(std::string_view name, std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

bool isCast(std::string_view name) {
    return nameIn(name, {"aten::to", "aten::_to_copy", "aten::type_as", "aten::detach", "aten::alias",
                         "aten::lift_fresh", "aten::contiguous", "aten::_autocast_to_reduced_precision",
                         "aten::_autocast_to_full_precision"});
}

bool roundsInputInForward(std::string_view name) {
    return nameIn(name, {inserted_op::kOperand, inserted_op::kOperandOptional, inserted_op::kModuleInput,
                         inserted_op::kAutocastFp32, inserted_op::kAutocastLow, inserted_op::kAutocastLowOptional});
}

bool roundsResultInForward(std::string_view name) {
    return nameIn(name, {inserted_op::kOpResult, inserted_op::kLeaveModule, inserted_op::kInjectedFault});
}

// Ops whose values are no result of the run's arithmetic.
bool computesNothing(std::string_view name) {
    if (name.find("empty") != std::string_view::npos) return true;
    return nameIn(name, {inserted_op::kEnterModule, inserted_op::kLeaveModuleOther, "aten::resize_", "aten::zeros",
                         "aten::ones", "aten::full", "aten::zeros_like", "aten::ones_like", "aten::full_like",
                         "aten::scalar_tensor", "aten::arange", "aten::new_zeros", "aten::new_ones",
                         "aten::new_full", "aten::fill_", "aten::zero_", "aten::set_"});
}

// Ops that draw random numbers: run again they would draw others.
bool drawsRandom(std::string_view name) {
    for (std::string_view word : {"rand", "bernoulli", "dropout", "normal", "uniform", "multinomial",
                                  "exponential", "geometric", "cauchy", "rrelu"})
        if (name.find(word) != std::string_view::npos) return true;
    return false;
}

// Ops that change buffers they are handed though their schema does not say so (the
// running statistics of a norm in training).
bool updatesBuffers(std::string_view name) {
    return name.find("batch_norm") != std::string_view::npos || name.find("instance_norm") != std::string_view::npos;
}

// "autograd::engine::evaluate_function: MulBackward0" -> "MulBackward0"
std::string nodeName(const char* name) {
    const std::string text = name;
    const auto colon = text.rfind(": ");
    return colon == std::string::npos ? text : text.substr(colon + 2);
}

// The tensors of a list of values, in order (a list of tensors counts each).
template <class Values>
std::vector<torch::Tensor> tensorsOf(const Values& values) {
    std::vector<torch::Tensor> tensors;
    for (const auto& value : values) {
        if (value.isTensor()) {
            tensors.push_back(value.toTensor());
        } else if (value.isTensorList()) {
            for (const auto& t : value.toTensorList()) tensors.push_back(t);
        } else if (value.isList()) {
            for (const auto& element : value.toListRef())
                if (element.isTensor()) tensors.push_back(element.toTensor());
        }
    }
    return tensors;
}

bool isFloating(const torch::Tensor& t) { return t.defined() && t.is_floating_point(); }

// An op's own arguments and results. A boxed call (how the TorchScript interpreter calls
// every op, the graph pass's roundings too) shows the observers the interpreter's whole
// stack, where values already made for the next op (a conv's rounded input, below its
// weight's rounding) still lie: the op's own are the last num_inputs() before the call
// and the last num_outputs() after it.
c10::ArrayRef<const c10::IValue> argumentsOf(const at::RecordFunction& fn) {
    const auto all = fn.inputs();
    return all.slice(all.size() - std::min(fn.num_inputs(), all.size()));
}

c10::ArrayRef<c10::IValue> resultsOf(const at::RecordFunction& fn) {
    const c10::ArrayRef<c10::IValue> all = fn.outputs();
    return all.slice(all.size() - std::min(fn.num_outputs(), all.size()));
}

// The tensors an op writes into, by its schema (in place, "aten::add_"; an out= argument):
// found only for ops whose name or overload says they write.
std::vector<torch::Tensor> writtenBy(const at::RecordFunction& fn) {
    const std::string_view name = fn.name();
    const auto op = fn.operator_name();
    if (!op) return {};
    const bool mayWrite = (!name.empty() && name.back() == '_') || op->overload_name.find("out") != std::string::npos;
    if (!mayWrite) return {};
    const auto handle = c10::Dispatcher::singleton().findOp(*op);
    if (!handle || !handle->hasSchema()) return {};
    const auto& arguments = handle->schema().arguments();
    const auto inputs = argumentsOf(fn);
    std::vector<torch::Tensor> written;
    for (size_t k = 0; k < arguments.size() && k < inputs.size(); ++k) {
        const auto* alias = arguments[k].alias_info();
        if (!alias || !alias->isWrite()) continue;
        for (const auto& t : tensorsOf(std::vector<c10::IValue>{inputs[k]})) written.push_back(t);
    }
    return written;
}


struct Frame : at::ObserverContext {
    bool node = false;
    // A node: what it interrupts.
    int savedDepth = 0;
    bool savedInNode = false;
    Role savedNodeRole = Role::Entry;
    std::string savedNodeModule;
    std::string savedNodeName;
    // An op at the top level.
    bool topLevel = false;
    uint64_t seqBegin = 0;
    std::string module;
    Role role = Role::Entry;
    bool underAutocast = false;
    std::vector<c10::IValue> inputs;
};

thread_local int outsideCapture = 0;

}  // namespace

struct OpCapture::State {
    std::optional<c10::ScalarType> rerunIn;
    CaptureSink* sink = nullptr;
    bool watching = true;
    bool backward = false;
    bool busy = false;  // the capture's own work is not watched
    int depth = 0;      // open ops since the innermost autograd node (0: the next is top level)
    bool inNode = false;
    Role nodeRole = Role::Entry;
    std::string nodeModule;
    std::string node;
    std::string lastNodeModule = kOutsideModelModule;
    std::vector<CapturedOp> ops;

    // Forward top-level ops by the sequence numbers of the autograd nodes they created.
    struct Origin {
        uint64_t seqBegin, seqEnd;
        std::string module;
        Role role;
    };
    std::vector<Origin> origins;
    // A tensor some captured op made (its copy is ops[op].outputs[output]). The weak
    // reference keeps the address from being reused by a later tensor.
    struct Made {
        c10::weak_intrusive_ptr<c10::TensorImpl> impl;
        size_t op;
        size_t output;  // position in ops[op].outputs
    };
    std::unordered_map<const c10::TensorImpl*, Made> madeBy;
    // The output of a rounding that feeds an op, and the value before it.
    struct RoundedFrom {
        c10::weak_intrusive_ptr<c10::TensorImpl> impl;
        torch::Tensor source;
        // The graph pass's copy of autocast's own cast (ampscope::autocast_low): under
        // autocast a zoo op casts inside itself, and its backward is handed the cast
        // values that autocast saved, so backward looks through none of these.
        bool autocastCast = false;
    };
    std::unordered_map<const c10::TensorImpl*, RoundedFrom> rounded;

    std::string currentModule() const {
        if (backward) return inNode ? nodeModule : lastNodeModule;
        if (auto* context = currentScriptRunContext())
            return context->currentModule().empty() ? std::string(kRootLayerName) : context->currentModule();
        if (const std::string* layer = currentZooLayer()) return *layer;
        return kOutsideModelModule;
    }

    Role classify(std::string_view name) const {
        if (computesNothing(name)) return Role::Hidden;
        const bool cast = isCast(name);
        if (!backward) {
            if (cast || roundsInputInForward(name)) return Role::RoundsInput;
            if (roundsResultInForward(name)) return Role::RoundsResult;
            return Role::Entry;
        }
        if (inNode) {
            // A rounding's own node: an operand's rounding rounds that operand's gradient
            // (a result of backward), a result's rounding the gradient arriving (an input).
            if (nodeRole == Role::RoundsInput) return Role::RoundsResult;
            if (nodeRole == Role::RoundsResult) return Role::RoundsInput;
            if (nodeRole == Role::Hidden) return Role::Hidden;
        }
        if (cast || inserted_op::isInserted(name)) return Role::RoundsResult;
        return Role::Entry;
    }

    const Origin* originOf(int64_t seq) const {
        if (seq < 0) return nullptr;
        const auto s = static_cast<uint64_t>(seq);
        auto it = std::upper_bound(origins.begin(), origins.end(), s,
                                   [](uint64_t value, const Origin& o) { return value < o.seqBegin; });
        if (it == origins.begin()) return nullptr;
        --it;
        return s < it->seqEnd ? &*it : nullptr;
    }

    // The value an op's input stood for before any rounding that fed it.
    torch::Tensor beforeRounding(const torch::Tensor& t) const {
        torch::Tensor current = t;
        for (int guard = 0; guard < 64 && current.defined(); ++guard) {
            auto it = rounded.find(current.unsafeGetTensorImpl());
            if (it == rounded.end() || (backward && it->second.autocastCast)) break;
            current = it->second.source;
        }
        return current;
    }

    const Made* made(const torch::Tensor& t) const {
        if (!t.defined()) return nullptr;
        auto it = madeBy.find(t.unsafeGetTensorImpl());
        return it == madeBy.end() ? nullptr : &it->second;
    }

    // The values an op made, held without a copy (a copy of every output costs as much as
    // the ops that made them). An op that writes into a tensor (in place, or into an `out`
    // argument) first has every held value on that memory copied (copyBeforeWrite).
    struct Held {
        size_t op, output;
        bool rerun;  // the output's rerun, else its value
    };
    std::unordered_map<const c10::StorageImpl*, std::vector<Held>> heldOn;

    torch::Tensor hold(const torch::Tensor& t, size_t op, size_t output, bool asRerun = false) {
        heldOn[t.storage().unsafeGetStorageImpl()].push_back(Held{op, output, asRerun});
        return t.detach();
    }

    void copyBeforeWrite(const std::vector<torch::Tensor>& written) {
        for (const auto& t : written) {
            if (!t.defined() || !t.has_storage()) continue;
            auto it = heldOn.find(t.storage().unsafeGetStorageImpl());
            if (it == heldOn.end()) continue;
            busy = true;
            {
                torch::NoGradGuard noGrad;
                for (const auto& held : it->second) {
                    auto& out = ops[held.op].outputs[held.output];
                    auto& value = held.rerun ? out.rerun : out.value;
                    if (value.defined() && value.storage().unsafeGetStorageImpl() == it->first) value = value.clone();
                }
            }
            busy = false;
            heldOn.erase(it);
        }
    }

    void keepMade(const torch::Tensor& t, size_t op, size_t output) {
        madeBy.insert_or_assign(t.unsafeGetTensorImpl(),
                                Made{c10::weak_intrusive_ptr<c10::TensorImpl>(t.getIntrusivePtr()), op, output});
    }

    void roundedInput(const torch::Tensor& input, const torch::Tensor& output, bool autocastCast = false) {
        if (!isFloating(input) || !isFloating(output) || input.unsafeGetTensorImpl() == output.unsafeGetTensorImpl())
            return;
        rounded.insert_or_assign(
            output.unsafeGetTensorImpl(),
            RoundedFrom{c10::weak_intrusive_ptr<c10::TensorImpl>(output.getIntrusivePtr()), beforeRounding(input), autocastCast});
    }

    void roundedResult(const at::RecordFunction& fn, const Frame& frame) {
        const auto inputs = tensorsOf(frame.inputs);
        const auto outputs = tensorsOf(resultsOf(fn));
        const torch::Tensor input = inputs.empty() ? torch::Tensor() : inputs.front();
        const torch::Tensor output = outputs.empty() ? torch::Tensor() : outputs.front();
        if (!isFloating(output)) return;
        const Made* maker = made(input);
        if (!maker) {
            roundedInput(input, output);  // no copy to replace: it feeds the next op instead
            return;
        }
        const Made where = *maker;
        auto& out = ops[where.op].outputs[where.output];
        if (out.rerunIsValue) {
            // The unrounded value was what the rerun would give; the rounding is the error added.
            out.rerun = hold(out.value, where.op, where.output, true);
            out.rerunIsValue = false;
        }
        out.value = hold(output, where.op, where.output);
        keepMade(output, where.op, where.output);
        if (sink) toSink([&] { sink->valueReplaced(ops, where.op, where.output); });
    }

    // The sink's work (a comparison's torch ops) is the capture's own, not the model's.
    template <class F>
    void toSink(F&& f) {
        busy = true;
        struct NotBusy {
            bool& busy;
            ~NotBusy() { busy = false; }
        } notBusy{busy};
        f();
    }

    std::vector<torch::Tensor> rerun(const at::RecordFunction& fn, const Frame& frame);
    // The op ran as the rerun would run it: every floating input in the rerun's dtype and
    // no rounding before it, outside autocast.
    bool computesAsTheReference(const Frame& frame) const {
        if (frame.underAutocast) return false;
        for (const auto& t : tensorsOf(frame.inputs)) {
            if (!isFloating(t)) continue;
            if (t.scalar_type() != *rerunIn || rounded.count(t.unsafeGetTensorImpl())) return false;
        }
        return true;
    }
    void entry(const at::RecordFunction& fn, Frame& frame);
};

namespace {

thread_local OpCapture::State* active = nullptr;

std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction& fn) {
    OpCapture::State* s = active;
    if (!s || s->busy) return nullptr;
    // Held values are copied before anything writes over them, watched or not: the
    // scaler's unscale and clipping change gradients in place before the map compares.
    if (const auto written = writtenBy(fn); !written.empty()) s->copyBeforeWrite(written);
    if (!s->watching || outsideCapture > 0) return nullptr;
    auto frame = std::make_unique<Frame>();
    if (fn.scope() == at::RecordScope::BACKWARD_FUNCTION) {
        frame->node = true;
        frame->savedDepth = std::exchange(s->depth, 0);
        frame->savedInNode = std::exchange(s->inNode, true);
        frame->savedNodeRole = s->nodeRole;
        frame->savedNodeModule = s->nodeModule;
        frame->savedNodeName = s->node;
        s->node = nodeName(fn.name());
        const auto* origin = s->originOf(fn.seqNr());
        s->nodeModule = origin ? origin->module : s->lastNodeModule;
        s->nodeRole = origin ? origin->role : (s->node.find("AccumulateGrad") != std::string::npos ? Role::Hidden : Role::Entry);
        if (s->nodeRole != Role::Hidden) s->lastNodeModule = s->nodeModule;
        return frame;
    }
    frame->topLevel = s->depth == 0;
    ++s->depth;
    if (!frame->topLevel) return frame;
    frame->seqBegin = at::sequence_number::peek();
    frame->module = s->currentModule();
    frame->role = s->classify(fn.name());
    frame->underAutocast = autocastEnabled(c10::DeviceType::CPU) || autocastEnabled(c10::DeviceType::CUDA);
    if (frame->role != Role::Hidden) {
        const auto arguments = argumentsOf(fn);
        frame->inputs.assign(arguments.begin(), arguments.end());
    }
    return frame;
}

void onEnd(const at::RecordFunction& fn, at::ObserverContext* context) {
    OpCapture::State* s = active;
    if (!s || !context) return;
    auto& frame = *static_cast<Frame*>(context);
    if (frame.node) {
        s->depth = frame.savedDepth;
        s->inNode = frame.savedInNode;
        s->nodeRole = frame.savedNodeRole;
        s->nodeModule = frame.savedNodeModule;
        s->node = frame.savedNodeName;
        return;
    }
    --s->depth;
    if (!frame.topLevel) return;
    if (!s->inNode) {
        const uint64_t seqEnd = at::sequence_number::peek();
        if (seqEnd > frame.seqBegin) s->origins.push_back({frame.seqBegin, seqEnd, frame.module, frame.role});
    }
    switch (frame.role) {
        case Role::Hidden: return;
        case Role::RoundsInput: {
            const auto inputs = tensorsOf(frame.inputs);
            const auto outputs = tensorsOf(resultsOf(fn));
            const std::string_view name = fn.name();
            const bool autocastCast = name == inserted_op::kAutocastLow || name == inserted_op::kAutocastLowOptional;
            if (!inputs.empty() && !outputs.empty()) s->roundedInput(inputs.front(), outputs.front(), autocastCast);
            return;
        }
        case Role::RoundsResult: s->roundedResult(fn, frame); return;
        case Role::Entry: s->entry(fn, frame); return;
    }
}

}  // namespace

void OpCapture::State::entry(const at::RecordFunction& fn, Frame& frame) {
    const auto outputs = tensorsOf(resultsOf(fn));
    if (std::none_of(outputs.begin(), outputs.end(), isFloating)) return;
    CapturedOp op;
    op.op = fn.name();
    op.module = frame.module;
    op.backward = backward;
    if (backward && inNode) op.node = node;
    for (const auto& input : tensorsOf(frame.inputs)) {
        if (!isFloating(input)) continue;
        const Made* maker = made(beforeRounding(input));
        if (!maker) continue;
        const std::pair<size_t, int> from{maker->op, ops[maker->op].outputs[maker->output].index};
        if (std::find(op.inputsFrom.begin(), op.inputsFrom.end(), from) == op.inputsFrom.end())
            op.inputsFrom.push_back(from);
    }
    const bool asTheReference = rerunIn && computesAsTheReference(frame);
    const auto again = rerunIn && !asTheReference ? rerun(fn, frame) : std::vector<torch::Tensor>();
    // Held only now: the rerun's own writes (its converted inputs) are none of the op's.
    const size_t index = ops.size();
    for (size_t k = 0; k < outputs.size(); ++k) {
        if (!isFloating(outputs[k])) continue;
        CapturedOutput out{static_cast<int>(k), hold(outputs[k], index, op.outputs.size()), torch::Tensor(), asTheReference};
        if (k < again.size()) out.rerun = again[k];
        keepMade(outputs[k], index, op.outputs.size());
        op.outputs.push_back(std::move(out));
    }
    ops.push_back(std::move(op));
    if (sink) toSink([&] { sink->opKept(ops, index); });
}

std::vector<torch::Tensor> OpCapture::State::rerun(const at::RecordFunction& fn, const Frame& frame) {
    const std::string_view name = fn.name();
    if (drawsRandom(name)) return {};
    const auto operatorName = fn.operator_name();
    if (!operatorName) return {};
    const auto handle = c10::Dispatcher::singleton().findOp(*operatorName);
    if (!handle || !handle->hasSchema() || handle->schema().is_mutable()) return {};
    const bool copyAll = updatesBuffers(name);
    const c10::ScalarType dtype = *rerunIn;
    busy = true;  // the conversions below are the capture's own work
    struct NotBusy {
        bool& busy;
        ~NotBusy() { busy = false; }
    } notBusy{busy};
    std::vector<torch::Tensor> inputs;  // as handed to the op again
    auto again = [&](const torch::Tensor& t) {
        torch::Tensor v = beforeRounding(t);
        if (isFloating(v) && (copyAll || v.scalar_type() != dtype)) v = v.to(dtype, false, true);
        inputs.push_back(v);
        return v;
    };
    torch::jit::Stack stack;
    c10::optional<c10::DeviceType> device;
    for (const auto& value : frame.inputs) {
        if (value.isTensor()) {
            const auto& t = value.toTensor();
            if (t.defined() && !device) device = t.device().type();
            stack.emplace_back(again(t));
        } else if (value.isTensorList()) {
            c10::List<at::Tensor> list;
            for (const auto& t : value.toTensorList()) list.push_back(again(t));
            stack.emplace_back(std::move(list));
        } else {
            stack.push_back(value);
        }
    }
    try {
        torch::NoGradGuard noGrad;
        // Autocast would cast the operands back down: the reference runs without it.
        AutocastScope noAutocast(device.value_or(c10::DeviceType::CPU), c10::ScalarType::BFloat16, false);
        handle->callBoxed(stack);
    } catch (const std::exception&) {
        return {};
    }
    auto results = tensorsOf(stack);
    for (auto& r : results) {
        if (!r.defined()) continue;
        // A view of an input would change with it: keep values of its own.
        const bool aliases = std::any_of(inputs.begin(), inputs.end(),
                                         [&](const torch::Tensor& in) { return in.defined() && r.is_alias_of(in); });
        if (aliases) r = r.clone();
    }
    return results;
}

OpCapture::OpCapture(std::optional<c10::ScalarType> rerunIn, bool watching, CaptureSink* sink)
    : state_(std::make_unique<State>()) {
    state_->rerunIn = rerunIn;
    state_->sink = sink;
    state_->watching = watching;
    active = state_.get();
    handle_ = at::addThreadLocalCallback(
        at::RecordFunctionCallback(&onStart, &onEnd)
            .needsInputs(true)
            .needsOutputs(true)
            .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
}

OpCapture::~OpCapture() {
    at::removeCallback(handle_);
    active = nullptr;
}

void OpCapture::watch(bool on) { state_->watching = on; }

OutsideCapture::OutsideCapture() { ++outsideCapture; }

OutsideCapture::~OutsideCapture() { --outsideCapture; }

void OpCapture::startBackward() { state_->backward = true; }

const std::vector<CapturedOp>& OpCapture::ops() const { return state_->ops; }

std::vector<CapturedOp> OpCapture::takeOps() { return std::move(state_->ops); }

}  // namespace ampscope
