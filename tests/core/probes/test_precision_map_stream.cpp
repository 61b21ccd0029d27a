// The precision map compared while the reference runs (PrecisionMapStream, the sink of
// the reference's capture), against values this test computes itself with torch: a real
// mapped step's per-op errors, added errors and exponent histograms; the alignment where
// the two sides' op names disagree (the longest common subsequence, worked out by hand);
// a reference value that a later rounding replaces after it was compared; and no compared
// reference output held once compared.
#include <QtTest/QtTest>

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "DataLoadSupport.h"
#include "ExactCompare.h"
#include "PrecisionMapSupport.h"
#include "RunSupport.h"
#include "precision/InsertedOps.h"
#include "precision/NamedOpScope.h"
#include "probes/ExponentHistogram.h"
#include "probes/PrecisionMapStream.h"

using namespace ampscope;
using namespace ampscope::test;

namespace {

// ||p - q|| / ||q|| in double: the map's relative error by its documented definition.
double relative(const torch::Tensor& p, const torch::Tensor& q) {
    const auto a = p.to(torch::kDouble), b = q.to(torch::kDouble);
    return ((a - b).norm() / b.norm()).item<double>();
}

// The map sums the squares element by element in chunks, torch's norm in another order:
// the two agree to a few ulps of a double, far inside 1e-12 relative.
bool near(double actual, double expected) { return std::abs(actual - expected) <= 1e-12 * std::abs(expected); }

// The exponent histogram by its definition: floor(log2|x|) of each non-zero value (frexp's
// exponent less one), counted per exponent from kMinExponent; zeros apart.
ExponentHistogram histogramByDefinition(const torch::Tensor& values) {
    const auto x = values.to(torch::kFloat).reshape({-1});
    const auto nonZero = x.ne(0);
    const auto exponent = (std::get<1>(torch::frexp(x)).to(torch::kLong) - 1).masked_select(nonZero);
    ExponentHistogram h;
    h.zero = (~nonZero).sum().item<int64_t>();
    const auto e = exponent.accessor<int64_t, 1>();
    for (int64_t k = 0; k < e.size(0); ++k) h.counts.at(static_cast<size_t>(e[k] - kMinExponent)) += 1;
    return h;
}

bool sameHistogram(const ExponentHistogram& a, const ExponentHistogram& b) {
    return a.counts == b.counts && a.zero == b.zero && a.below == b.below && a.above == b.above && a.nan == b.nan &&
           a.posInf == b.posInf && a.negInf == b.negInf;
}

// The run's capture (every op run again in fp32), then the reference's with the stream
// as its sink, as PrecisionMapRun maps a step. `kept`: the reference's ops as its capture
// kept them.
template <class Run, class Reference>
PrecisionMapRecord streamed(Run&& run, Reference&& reference, std::vector<CapturedOp>& kept) {
    std::vector<CapturedOp> runOps;
    {
        OpCapture capture(torch::kFloat);
        run();
        runOps = capture.takeOps();
    }
    PrecisionMapStream stream(std::move(runOps), MapFormats{bf16Format(), bf16Format()});
    {
        OpCapture capture(std::nullopt, true, &stream);
        reference();
        kept = capture.takeOps();
    }
    return stream.finish(kept);
}

const PrecisionMapOp* rowOf(const PrecisionMapRecord& map, const std::string& op) { return findOp(map, op); }

}  // namespace

class PrecisionMapStreamTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { at::set_num_threads(1); }

    // A real mapped step of the zoo MLP fc1 -> act1 (ReLU) -> out in bf16 (CPU autocast),
    // compared while the reference runs. Its forward computed here from the weights the
    // step starts from: the run's linear in bf16 (autocast casts x, W and b), the
    // reference's in fp32. Each forward op's error, the error it adds itself (the op again
    // in fp32 on the run's own inputs: fc1's is all of its error, act1's is 0, out's is
    // its bf16 against fp32 on the run's bf16 activations) and both exponent histograms,
    // count for count.
    void aMappedStepAgainstTorch() {
        RunConfig config = spiralsMlp("bf16");
        config.model.hidden = {16};
        config.model.activation = "relu";
        const DataBundle data = loadData(config.data, 0);
        torch::manual_seed(5);
        Trainer trainer(config, data, torch::kCPU);
        std::map<std::string, std::pair<torch::Tensor, torch::Tensor>> layers;  // weight, bias
        for (size_t k = 0; k < trainer.parameters().size(); ++k) {
            const auto& p = trainer.parameters()[k];
            auto& slot = layers[trainer.model().layerName(trainer.parameterLayers()[k])];
            (p.dim() == 2 ? slot.first : slot.second) = p.detach().clone();
        }
        QVERIFY(layers.count("fc1") && layers.count("out"));
        const auto x = data.train.inputs.slice(0, 0, 64);
        PrecisionMapRecord map;
        {
            MapStep step(trainer);
            map = step.step(x, data.train.targets.slice(0, 0, 64));
        }
        const auto bf16 = [](const torch::Tensor& t) { return t.to(torch::kBFloat16); };
        const auto& [w1, b1] = layers["fc1"];
        const auto& [w2, b2] = layers["out"];
        const auto h = torch::linear(bf16(x), bf16(w1), bf16(b1)), hRef = torch::linear(x, w1, b1);
        const auto a = torch::relu(h), aRef = torch::relu(hRef);
        const auto o = torch::linear(a, bf16(w2), bf16(b2)), oRef = torch::linear(aRef, w2, b2);
        const auto oAgain = torch::linear(a.to(torch::kFloat), w2, b2);  // out in fp32 on the run's input

        struct Expected {
            const char* module;
            const char* op;
            torch::Tensor run, reference;
            double added;
        };
        const std::vector<Expected> expected = {
            {"fc1", "aten::linear", h, hRef, relative(h, hRef)},
            {"act1", "aten::relu", a, aRef, 0.0},
            {"out", "aten::linear", o, oRef, relative(o, oAgain)},
        };
        for (const auto& e : expected) {
            const PrecisionMapOp* row = nullptr;
            for (const auto& r : map.ops)
                if (r.module == e.module && r.op == e.op && r.phase == "forward") row = &r;
            QVERIFY2(row, e.module);
            QCOMPARE(row->elements, e.run.numel());
            const double rel = relative(e.run, e.reference);
            QVERIFY2(rel > 0.0 && near(row->relError, rel),
                     qPrintable(describe(*row) + QString(", expected %1").arg(rel, 0, 'g', 17)));
            if (e.added == 0.0)
                QCOMPARE_BITS(row->addedError, 0.0);
            else
                QVERIFY2(near(row->addedError, e.added),
                         qPrintable(describe(*row) + QString(", expected added %1").arg(e.added, 0, 'g', 17)));
            QVERIFY2(sameHistogram(row->run, histogramByDefinition(e.run)), e.module);
            QVERIFY2(sameHistogram(row->reference, histogramByDefinition(e.reference)), e.module);
        }
        QVERIFY(map.unmatched.empty());
    }

    // Within a group the ops pair by their longest common subsequence of names. The run
    // computes mul, relu, add, exp; the reference mul, add, exp, sigmoid: the only common
    // subsequence of three is mul, add, exp, so relu is the run's alone and sigmoid the
    // reference's. The run's mul result is rounded to bf16 (an op_result rounding), which
    // is each later op's error too: computed here in fp32 with torch, as the two sides do.
    void namesThatDisagreeAlignByTheirCommonSubsequence() {
        torch::manual_seed(7);
        const auto x = torch::randn({4096});
        const auto rounded = [](const torch::Tensor& t) { return t.to(torch::kBFloat16).to(torch::kFloat); };
        std::vector<CapturedOp> kept;
        const auto map = streamed(
            [&] {
                auto y = x * 3.0;
                {
                    NamedOpScope result(inserted_op::kOpResult, y);
                    y = result.output(rounded(y));
                }
                torch::relu(y);
                const auto z = y + 1.0;
                torch::exp(z);
            },
            [&] {
                const auto y = x * 3.0;
                const auto z = y + 1.0;
                torch::sigmoid(torch::exp(z));
            },
            kept);
        const auto y = x * 3.0, z = y + 1.0;
        const auto yRun = rounded(y), zRun = yRun + 1.0;
        const auto* mul = rowOf(map, "aten::mul");
        const auto* add = rowOf(map, "aten::add");
        const auto* exp = rowOf(map, "aten::exp");
        QVERIFY(mul && add && exp);
        QVERIFY(!rowOf(map, "aten::relu") && !rowOf(map, "aten::sigmoid"));
        QVERIFY2(near(mul->relError, relative(yRun, y)), qPrintable(describe(*mul)));
        QVERIFY2(near(add->relError, relative(zRun, z)), qPrintable(describe(*add)));
        QVERIFY2(near(exp->relError, relative(torch::exp(zRun), torch::exp(z))), qPrintable(describe(*exp)));
        QCOMPARE(map.ops.size(), size_t{3});
        QCOMPARE(map.unmatched.size(), size_t{2});
        QCOMPARE(map.unmatched[0].side + " " + map.unmatched[0].op, std::string("run aten::relu"));
        QCOMPARE(map.unmatched[1].side + " " + map.unmatched[1].op, std::string("reference aten::sigmoid"));
    }

    // A reference value that a later rounding of the result replaces, after the op was
    // compared, is what the map compares against: here the reference's mul result is
    // replaced by twice itself, so the run's x*3 is off by ||3x - 6x|| / ||6x|| = 1/2.
    // And the reference's compared outputs are not held: each is dropped once compared.
    void aReferenceValueReplacedLaterIsComparedAgain() {
        torch::manual_seed(8);
        const auto x = torch::randn({2048});
        std::vector<CapturedOp> kept;
        const auto map = streamed(
            [&] {
                const auto y = x * 3.0;
                torch::tanh(y);
            },
            [&] {
                auto y = x * 3.0;
                {
                    NamedOpScope result(inserted_op::kOpResult, y);
                    y = result.output(y * 2.0);
                }
                torch::tanh(y);
            },
            kept);
        const auto* mul = rowOf(map, "aten::mul");
        QVERIFY(mul);
        const auto y = x * 3.0;
        QVERIFY2(near(mul->relError, relative(y, y * 2.0)), qPrintable(describe(*mul)));
        QVERIFY2(std::abs(mul->relError - 0.5) <= 1e-12, qPrintable(describe(*mul)));
        const auto* tanh = rowOf(map, "aten::tanh");
        QVERIFY2(tanh && near(tanh->relError, relative(torch::tanh(y), torch::tanh(y * 2.0))),
                 qPrintable(tanh ? describe(*tanh) : QString("no tanh")));
        QCOMPARE(kept.size(), size_t{2});
        for (const auto& op : kept)
            for (const auto& out : op.outputs) QVERIFY2(!out.value.defined(), op.op.c_str());
    }
};

QTEST_GUILESS_MAIN(PrecisionMapStreamTest)
#include "test_precision_map_stream.moc"
