"""The non-finite checks a module hook makes while torch.compile traces it.

Dynamo runs a traced hook's Python once, when it compiles the graph; every later step
runs only the tensor ops the hook left in the graph. A hook that reads a value to the
host (.item()), branches on one, or calls what Dynamo cannot trace (time.perf_counter,
a weakref) splits the user's graph there, and one that reads per-step Python state makes
Dynamo guard on it and compile again each step. So a traced hook here is tensor ops on
tensors that live as long as the recorder, and nothing else:

- a module's forward hook adds the NaN/+Inf/-Inf counts of its output to that module's
  row of one preallocated float64 tensor, with the output's size, its leading dimension
  (the samples, for the step record) and a device clock: the clock at the module's first
  non-finite output of the step (the order the checks ran in) and at its last output;
- it hands the output on through an identity (_GradientWatch) whose backward returns,
  as the gradient of a small leaf tensor of the module's own, the counts of the gradient
  arriving at that output: autograd sums them into the leaf's .grad as it does for any
  leaf, inside the compiled backward graph, with no hook on an intermediate tensor
  (which Dynamo cannot compile without compiled autograd).

rec.step() reads the rows and the leaves' gradients with the step's one copy per device
(device_reads.py), turns each non-finite count into a hit ordered as the eager checks
order theirs, and zeroes them for the next step (TracedChecks.reads, hits, reset).

What the traced hooks do not do: the probe-step statistics of activations and of the
gradients arriving at them (a histogram or stats every step would cost every step, and
only on probe steps would need a second graph). The parameter-gradient probes, the update
ratios, the loss and the fused check of every parameter gradient are taken outside the
model, as without torch.compile.
"""
import torch

_compiler = getattr(torch, "compiler", None)
# torch.compiler.is_compiling (2.3+) is a constant to Dynamo: True while it traces, so
# the branch on it is decided at compile time and never reaches the graph. torch 1.13
# has no compiler: always eager.
compiling = getattr(_compiler, "is_compiling", None) or (lambda: False)

# Columns of a module's row.
NAN, POS_INF, NEG_INF, NUMEL, FIRST_HIT, LAST_SEEN, LEADING = range(7)
COLUMNS = 7


def _counts(tensor):
    t = tensor.detach()
    return torch.stack([torch.isnan(t).sum(), torch.isposinf(t).sum(),
                        torch.isneginf(t).sum()]).to(torch.float64)


class _GradientWatch(torch.autograd.Function):
    """Identity forward; backward passes the gradient on unchanged and gives the leaf the
    counts of its non-finite elements."""

    @staticmethod
    def forward(ctx, output, leaf):
        ctx.leaf_device = leaf.device
        # A copy, not the tensor or a view of it: autograd refuses an in-place op (a
        # ReLU(inplace=True) after the module) on a view a custom Function returned.
        # Inductor fuses the copy into the op that reads it.
        return output.clone()

    @staticmethod
    def backward(ctx, grad):
        return grad, _counts(grad).to(ctx.leaf_device)


def _replace_first(value, old, new):
    if value is old:
        return new
    if isinstance(value, (list, tuple)):
        items = [_replace_first(item, old, new) for item in value]
        return type(value)(items) if isinstance(value, list) else tuple(items)
    return value


class TracedChecks:
    """The tensors the traced hooks write into: held by the hooks' closures (not the
    capture, so a forgotten recorder is not kept alive by a compiled graph)."""

    def __init__(self, count, device):
        self.rows = torch.zeros(count, COLUMNS, dtype=torch.float64, device=device)
        self.clock = torch.zeros((), dtype=torch.float64, device=device)
        self.leaves = [torch.zeros(3, dtype=torch.float64, device=device, requires_grad=True)
                       for _ in range(count)]
        # Set by every traced forward (Dynamo replays the store after the graph): the
        # one Python fact rec.step() needs to know there is something to read.
        self.ran = False

    def after_layer(self, index, module, output, first_floating_tensor):
        # Decided while tracing: an evaluation pass compiles to a graph without checks.
        if not (torch.is_grad_enabled() and module.training):
            return None
        tensor = first_floating_tensor(output)
        if tensor is None:
            return None
        row = self.rows[index]
        counts = _counts(tensor).to(row.device)
        clock = self.clock.add_(1)
        fresh = (counts.sum() > 0) & (row[FIRST_HIT] == 0)
        row[FIRST_HIT].copy_(torch.where(fresh, clock, row[FIRST_HIT]))
        row[LAST_SEEN].copy_(clock)
        row[NAN:NEG_INF + 1].add_(counts)
        row[NUMEL].fill_(tensor.numel())
        row[LEADING].add_(tensor.shape[0] if tensor.dim() > 0 else 1)
        self.ran = True
        if not tensor.requires_grad:
            return None
        return _replace_first(output, tensor, _GradientWatch.apply(tensor, self.leaves[index]))

    # ---- read by rec.step() ------------------------------------------------------------

    def reads(self, reads):
        """Adds what the step's records need to the step's reads (still on the device)."""
        if not self.ran:
            return
        reads[("traced", "rows")] = self.rows
        for index, leaf in enumerate(self.leaves):
            if leaf.grad is not None:
                reads[("traced", index)] = leaf.grad

    def hits(self, host):
        """The step's non-finite outputs and arriving gradients, as capture's hits:
        (order, layer index, phase, tensor kind, numel, [nan, +inf, -inf])."""
        if ("traced", "rows") not in host:
            return []
        rows = host[("traced", "rows")]
        found = []
        for index in range(len(self.leaves)):
            row = rows[index * COLUMNS:(index + 1) * COLUMNS]
            numel = int(row[NUMEL])
            if sum(row[NAN:NEG_INF + 1]) > 0:
                found.append(((0, row[FIRST_HIT]), index, "forward", "activation", numel,
                              row[NAN:NEG_INF + 1]))
            grad = host.get(("traced", index))
            if grad is not None and sum(grad) > 0:
                # Gradients arrive in the reverse of the forward's order: the module that
                # ran last gets its gradient first.
                found.append(((2, -row[LAST_SEEN]), index, "backward", "gradient", numel,
                              list(grad)))
        return found

    def samples(self, host):
        """The leading dimension of the first checked module's output, summed over the
        step's forwards: its batch size, as the eager hooks count the model's input's."""
        if ("traced", "rows") not in host:
            return 0
        rows = host[("traced", "rows")]
        seen = [(rows[i * COLUMNS + LAST_SEEN], rows[i * COLUMNS + LEADING])
                for i in range(len(self.leaves)) if rows[i * COLUMNS + LAST_SEEN] > 0]
        return int(min(seen)[1]) if seen else 0

    def reset(self):
        if not self.ran:
            return
        with torch.no_grad():
            self.rows.zero_()
            self.clock.zero_()
        for leaf in self.leaves:
            leaf.grad = None
        self.ran = False
