// The precision map's numbers on real maps, against values the test knows independently:
// the errors entering and leaving each module of a real MLP, computed here from the
// model's own weights, and every module of it and of simple_cnn by the definition; the
// exact counts of elements that flush, overflow and saturate; the first op past tolerance
// where only its new NaN/Inf flags it; and the torch-ops way of measuring an output (the
// one off the CPU) held to the CPU's single pass.
#include <QtTest/QtTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
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
#include "precision/formats/TensorQuantizers.h"

using namespace ampscope;
using namespace ampscope::test;

namespace {

// The chunk the CPU pass sums on its own (PrecisionMapCompare.cpp): the tensors below
// span three of them, so the chunks' sums and their saturation counts are merged.
constexpr int64_t kChunk = int64_t{1} << 16;
constexpr int64_t kElements = 3 * kChunk + 17;

MapFormat e4m3Format() { return MapFormat{"e4m3", 4, std::nullopt}; }

// ||p - q|| / ||q|| in double: the map's relative error, by its documented definition.
double relative(const torch::Tensor& p, const torch::Tensor& q) {
    const auto a = p.to(torch::kDouble), b = q.to(torch::kDouble);
    return ((a - b).norm() / b.norm()).item<double>();
}

bool near(double actual, double expected, double tolerance = 1e-9) {
    return std::abs(actual - expected) <= tolerance * std::abs(expected);
}

// Values in [0.5, 1.5): normal in every format here, none flushed, none saturated.
torch::Tensor plainValues(uint64_t seed) {
    torch::manual_seed(seed);
    return torch::rand({kElements}) + 0.5;
}

const PrecisionMapModule* findModule(const PrecisionMapRecord& map, const std::string& module,
                                     const std::string& phase) {
    for (const auto& m : map.modules)
        if (m.module == module && m.phase == phase) return &m;
    return nullptr;
}

bool sameBits(double a, double b) { return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b); }

// The documented definition of the modules, read off the ops: groups of (phase, module)
// in the order their first op ran; entering, the first op's input error; leaving, the
// last op's error. Empty when the record's modules are that; else what differs.
QString modulesAgainstTheirDefinition(const PrecisionMapRecord& map) {
    std::vector<std::pair<std::string, std::string>> order;
    std::map<std::pair<std::string, std::string>, std::vector<size_t>> opsOf;
    for (size_t k = 0; k < map.ops.size(); ++k) {
        const auto key = std::make_pair(map.ops[k].phase, map.ops[k].module);
        if (!opsOf.count(key)) order.push_back(key);
        opsOf[key].push_back(k);
    }
    if (map.modules.size() != order.size()) return QString("%1 modules, %2 groups").arg(map.modules.size()).arg(order.size());
    for (size_t k = 0; k < order.size(); ++k) {
        const auto& m = map.modules[k];
        const auto& indices = opsOf[order[k]];
        const bool same = m.phase == order[k].first && m.module == order[k].second &&
                          m.firstOp == static_cast<int64_t>(indices.front()) &&
                          m.ops == static_cast<int64_t>(indices.size()) &&
                          sameBits(m.inputError, map.ops[indices.front()].inputError) &&
                          sameBits(m.outputError, map.ops[indices.back()].relError);
        if (!same)
            return QString("%1 (%2): entering %3, leaving %4")
                .arg(QString::fromStdString(m.module), QString::fromStdString(m.phase))
                .arg(m.inputError, 0, 'g', 17)
                .arg(m.outputError, 0, 'g', 17);
    }
    return {};
}

// A module whose last op's error is not its largest: where "leaving" and "largest" differ.
bool lastIsNotLargest(const PrecisionMapRecord& map) {
    for (const auto& m : map.modules) {
        double largest = 0.0;
        for (int64_t k = m.firstOp; k < static_cast<int64_t>(map.ops.size()); ++k)
            if (map.ops[static_cast<size_t>(k)].module == m.module && map.ops[static_cast<size_t>(k)].phase == m.phase)
                largest = std::max(largest, map.ops[static_cast<size_t>(k)].relError);
        if (m.outputError < largest) return true;
    }
    return false;
}

bool sameHistogram(const ExponentHistogram& a, const ExponentHistogram& b) {
    return a.counts == b.counts && a.below == b.below && a.above == b.above && a.zero == b.zero && a.nan == b.nan &&
           a.posInf == b.posInf && a.negInf == b.negInf;
}

// One output's numbers by their definitions (PrecisionMapRecord.h), with the sums taken as
// the record takes them: each chunk of kChunk elements summed in element order from 0,
// the chunks' sums added in order. Spacing by std::ilogb/std::ldexp, not by bits.
struct DefinedNumbers {
    double relError, snrDb, ulpsMax, ulpsRms, addedError;
};
DefinedNumbers byDefinition(const torch::Tensor& run, const torch::Tensor& reference, const torch::Tensor& rerun,
                            const MapFormat& format) {
    const auto m = run.to(torch::kDouble).contiguous(), r = reference.to(torch::kDouble).contiguous();
    const auto a = rerun.defined() ? rerun.to(torch::kDouble).contiguous() : torch::Tensor();
    const double* mp = m.data_ptr<double>();
    const double* rp = r.data_ptr<double>();
    const double* ap = a.defined() ? a.data_ptr<double>() : nullptr;
    const int64_t n = m.numel();
    double errSq = 0, refSq = 0, ulpsSq = 0, addSq = 0, rerunSq = 0, ulpsMax = 0, finite = 0;
    for (int64_t first = 0; first < n; first += kChunk) {
        double e = 0, q = 0, u = 0, ad = 0, re = 0;
        for (int64_t i = first; i < std::min(n, first + kChunk); ++i) {
            if (ap && std::isfinite(mp[i]) && std::isfinite(ap[i])) {
                ad += (mp[i] - ap[i]) * (mp[i] - ap[i]);
                re += ap[i] * ap[i];
            }
            if (!std::isfinite(mp[i]) || !std::isfinite(rp[i])) continue;
            finite += 1;
            const double d = mp[i] - rp[i];
            e += d * d;
            q += rp[i] * rp[i];
            const double magnitude = rp[i] != 0.0 ? std::abs(rp[i]) : std::abs(mp[i]);
            int exponent = magnitude > 0.0 ? std::ilogb(magnitude) : 0;
            if (format.minExponent) exponent = std::max(exponent, *format.minExponent);
            const double ulps = std::ldexp(std::abs(d), -(exponent - (format.bits - 1)));
            ulpsMax = std::max(ulpsMax, ulps);
            u += ulps * ulps;
        }
        errSq += e;
        refSq += q;
        ulpsSq += u;
        addSq += ad;
        rerunSq += re;
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {std::sqrt(errSq / refSq), 10.0 * std::log10(refSq / errSq), ulpsMax, std::sqrt(ulpsSq / finite),
            ap ? std::sqrt(addSq / rerunSq) : nan};
}
}  // namespace

class PrecisionMapCountsTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { at::set_num_threads(1); }

    // The zoo MLP fc1 -> act1 (ReLU) -> out in bf16 (CPU autocast), one real mapped step.
    // Its forward is computed here from the weights the step starts from: the run's is
    // linear in bf16 (autocast casts x, W and b to bf16), the reference's in fp32. The data
    // is exact on both sides, so the error entering fc1 is 0 (gain undefined); each later
    // module's entering error is what left the one before; the leaving error is that of
    // the module's last op. Every module of both phases: its first op, its op count, and
    // its entering and leaving errors as the documented definition reads them off the ops.
    void moduleErrorsOfARealMlp() {
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
        const auto x = data.train.inputs.slice(0, 0, 32);
        PrecisionMapRecord map;
        {
            MapStep step(trainer);
            map = step.step(x, data.train.targets.slice(0, 0, 32));
        }
        const auto bf16 = [](const torch::Tensor& t) { return t.to(torch::kBFloat16); };
        const auto& [w1, b1] = layers["fc1"];
        const auto& [w2, b2] = layers["out"];
        const auto h = torch::linear(bf16(x), bf16(w1), bf16(b1)), hRef = torch::linear(x, w1, b1);
        const auto a = torch::relu(h), aRef = torch::relu(hRef);
        const auto o = torch::linear(a, bf16(w2), bf16(b2)), oRef = torch::linear(aRef, w2, b2);
        const double leavesFc1 = relative(h, hRef), leavesAct1 = relative(a, aRef), leavesOut = relative(o, oRef);
        QVERIFY2(leavesFc1 > 0.0 && leavesOut > 0.0, qPrintable(QString::number(leavesFc1)));

        const auto* fc1 = findModule(map, "fc1", "forward");
        const auto* act1 = findModule(map, "act1", "forward");
        const auto* out = findModule(map, "out", "forward");
        QVERIFY(fc1 && act1 && out);
        QVERIFY(fc1->firstOp < act1->firstOp && act1->firstOp < out->firstOp);
        QCOMPARE_BITS(fc1->inputError, 0.0);
        QVERIFY(std::isnan(fc1->gain()));
        const auto show = [](const PrecisionMapModule& m, double in, double outError) {
            return QString("%1: entering %2 (expected %3), leaving %4 (expected %5)")
                .arg(QString::fromStdString(m.module))
                .arg(m.inputError, 0, 'g', 17)
                .arg(in, 0, 'g', 17)
                .arg(m.outputError, 0, 'g', 17)
                .arg(outError, 0, 'g', 17);
        };
        QVERIFY2(near(fc1->outputError, leavesFc1), qPrintable(show(*fc1, 0.0, leavesFc1)));
        QVERIFY2(near(act1->inputError, leavesFc1) && near(act1->outputError, leavesAct1),
                 qPrintable(show(*act1, leavesFc1, leavesAct1)));
        QVERIFY2(near(out->inputError, leavesAct1) && near(out->outputError, leavesOut),
                 qPrintable(show(*out, leavesAct1, leavesOut)));
        QVERIFY(near(out->gain(), leavesOut / leavesAct1));

        // The definition, module by module, in both phases; and in simple_cnn's, whose
        // backward modules hold several outputs (convolution_backward's gradients of input,
        // weight and bias), the last of them not the largest error.
        const QString mlpModules = modulesAgainstTheirDefinition(map);
        QVERIFY2(mlpModules.isEmpty(), qPrintable(mlpModules));
        int backward = 0;
        for (const auto& m : map.modules) backward += m.phase == "backward" ? 1 : 0;
        QVERIFY(backward >= 3);  // out, act1 and fc1's gradients at least
        RunConfig cnnConfig;
        cnnConfig.model.name = "simple_cnn";
        cnnConfig.precision.mode = "bf16";
        const DataBundle images = randomImageData(32, 4, 8);
        torch::manual_seed(5);
        Trainer cnnTrainer(cnnConfig, images, torch::kCPU);
        MapStep cnnStep(cnnTrainer);
        const auto cnn = cnnStep.step(images.train.inputs.slice(0, 0, 16), images.train.targets.slice(0, 0, 16));
        const QString cnnModules = modulesAgainstTheirDefinition(cnn);
        QVERIFY2(cnnModules.isEmpty(), qPrintable(cnnModules));
        QVERIFY(lastIsNotLargest(cnn));
    }

    // fp16 (the cast autocast makes, folded into the op it feeds): below 2^-25 a value
    // flushes to zero, 2^-25 itself too (the tie goes to the even 0), a little above it
    // rounds up to the smallest subnormal 2^-24; 65519 rounds down to the largest finite
    // 65504, 65520 (the tie) and beyond overflow to Inf. fp16 does not saturate: nothing
    // is counted saturated.
    void fp16FlushAndOverflowCountedExactly() {
        auto a = plainValues(6);
        auto* p = a.data_ptr<float>();
        int64_t flushed = 0, overflowed = 0;
        for (int64_t i = 0; i < kElements; ++i) {
            switch (i % 1000) {
                case 0: p[i] = (i % 2000) ? -1e-9f : 1e-9f; ++flushed; break;
                case 1: p[i] = 0x1p-25f; ++flushed; break;
                case 2: p[i] = 0x1.004p-25f; break;
                case 3: p[i] = 65519.0f; break;
                case 4: p[i] = 0.0f; break;  // zero on both sides: not flushed
                case 5: p[i] = (i % 2000 == 5) ? 65520.0f : -1e5f; ++overflowed; break;
                default: break;
            }
        }
        const auto map = mapOf([&] { torch::abs(a.to(torch::kHalf)); }, [&] { torch::abs(a); },
                               MapFormats{fp16Format(), fp16Format()});
        const auto* abs = findOp(map, "aten::abs");
        QVERIFY(abs);
        QCOMPARE(abs->elements, kElements);
        QVERIFY(flushed > 2 * 190 && overflowed > 190);
        QCOMPARE_BITS(abs->flushed, static_cast<double>(flushed) / static_cast<double>(kElements));
        QCOMPARE(abs->newInf, overflowed);
        QCOMPARE(abs->newNan, int64_t{0});
        QCOMPARE_BITS(abs->saturated, 0.0);
    }

    // e4m3 with saturation (the largest finite 448): +-1000 become +-448, the run's
    // largest magnitude, where the reference is far beyond it: saturated. An element that
    // is 448 on both sides is at that magnitude too but not beyond: not saturated. The
    // saturating elements sit in the first and third chunks only. Below 2^-10 (half the
    // smallest subnormal 2^-9) a value flushes, 2^-10 itself too (the tie goes to 0),
    // 1.5 2^-10 rounds up to 2^-9.
    void e4m3SaturationAndFlushCountedExactly() {
        auto a = plainValues(7);
        auto* p = a.data_ptr<float>();
        int64_t flushed = 0, saturated = 0;
        for (int64_t i = 0; i < kElements; ++i) {
            const bool middleChunk = i >= kChunk && i < 2 * kChunk;
            switch (i % 1000) {
                case 0:
                    if (!middleChunk) {
                        p[i] = (i % 2000) ? -1000.0f : 1000.0f;
                        ++saturated;
                    }
                    break;
                case 1: p[i] = (i % 2000 == 1) ? 448.0f : -448.0f; break;
                case 2: p[i] = 0x1p-11f; ++flushed; break;
                case 3: p[i] = -0x1p-10f; ++flushed; break;
                case 4: p[i] = 0x1.8p-10f; break;
                case 5: p[i] = 0.0f; break;
                default: break;
            }
        }
        const auto graph = [&](bool quantized) {
            auto x = a * 1.0;
            NamedOpScope result(inserted_op::kOpResult, x);
            result.output(quantized ? roundElements(x, NumberFormat::E4M3, OverflowPolicy::Saturate) : x);
        };
        const auto map = mapOf([&] { graph(true); }, [&] { graph(false); }, MapFormats{e4m3Format(), e4m3Format()});
        const auto* mul = findOp(map, "aten::mul");
        QVERIFY(mul);
        QCOMPARE(mul->elements, kElements);
        QVERIFY(saturated > 2 * 60 && flushed > 2 * 190);
        QCOMPARE_BITS(mul->saturated, static_cast<double>(saturated) / static_cast<double>(kElements));
        QCOMPARE_BITS(mul->flushed, static_cast<double>(flushed) / static_cast<double>(kElements));
        QCOMPARE(mul->newInf, int64_t{0});
        QCOMPARE(mul->newNan, int64_t{0});
    }

    // The first op past tolerance where only its new NaN/Inf puts it past: the fp16 op
    // with new Inf (its finite elements off by at most fp16's unit roundoff), or with new
    // NaN (Inf - Inf; every finite element exact, relative error 0). A later op is past by
    // its relative error alone (a sum of flushed values: 0 against non-zero), so a rule
    // that read only the relative error would name that one.
    void firstPastToleranceByNewNanOrInf_data() {
        QTest::addColumn<QString>("op");
        QTest::newRow("new Inf") << "aten::abs";
        QTest::newRow("new NaN") << "aten::sub";
    }
    void firstPastToleranceByNewNanOrInf() {
        QFETCH(QString, op);
        torch::manual_seed(8);
        auto a = torch::rand({4096}) + 0.5;
        a[100] = 1e5;
        a[200] = -3e5;
        const auto tiny = (torch::rand({4096}) + 0.5) * 1e-9;
        const auto graph = [&](bool half) {
            const auto y = a * 2.0;  // fp32 on both sides: exact
            const auto h = half ? y.to(torch::kHalf) : y;
            if (op == "aten::abs")
                torch::abs(h);
            else
                torch::sub(h, h);
            (half ? tiny.to(torch::kHalf) : tiny).sum();
        };
        const auto map = mapOf([&] { graph(true); }, [&] { graph(false); }, MapFormats{fp16Format(), fp16Format()});
        const auto* flagged = findOp(map, op.toStdString());
        const auto* sum = findOp(map, "aten::sum");
        QVERIFY(flagged && sum);
        QVERIFY2(flagged->relError <= map.tolerance("forward"), qPrintable(describe(*flagged)));
        QCOMPARE(flagged->newNan + flagged->newInf, int64_t{2});
        QVERIFY2(sum->relError > map.tolerance("forward"), qPrintable(describe(*sum)));
        const auto first = map.firstPastTolerance();
        QVERIFY(first.has_value());
        QCOMPARE(map.ops[*first].op, op.toStdString());
        QVERIFY(&map.ops[*first] == flagged);
    }

    // The CPU pass's sums are the record's numbers bit for bit: each sum taken in element
    // order within its chunk (the order the record has always had), here against the
    // definitions computed by a plain loop, on tensors of three chunks and a tail that is
    // no whole vector, for bf16, fp16, fp32 and fp64 values with and without a rerun; the
    // AVX-512 loop (where the CPU has it) and the scalar loop alike. The rare values whose
    // spacing the fast path cannot build (fp64 magnitudes near 2^-1022 in a scaled format)
    // give both loops the same bits.
    void sumsInElementOrderBitForBit_data() {
        QTest::addColumn<QString>("dtype");
        QTest::newRow("bf16 run, fp32 reference and rerun") << "bf16";
        QTest::newRow("fp16 run, fp32 reference, no rerun") << "fp16";
        QTest::newRow("fp32 run, fp32 reference and rerun") << "fp32";
        QTest::newRow("fp32 run, fp64 reference and rerun") << "fp64";
    }
    void sumsInElementOrderBitForBit() {
        QFETCH(QString, dtype);
        auto reference = plainValues(11) * 6.0 - 3.0;
        reference[3] = 0.0f;
        reference[kChunk + 1] = std::nanf("");
        auto rerun = reference * (1.0 + 0x1p-18);
        torch::Tensor run = dtype == "bf16"   ? reference.to(torch::kBFloat16)
                            : dtype == "fp16" ? reference.to(torch::kHalf)
                                              : (reference * (1.0 + 0x1p-20)).to(torch::kFloat);
        if (dtype == "fp64") {
            reference = reference.to(torch::kDouble) * (1.0 + 0x1p-40);
            rerun = rerun.to(torch::kDouble);
        }
        run[kElements - 2] = std::numeric_limits<float>::infinity();
        if (dtype == "fp16") rerun = torch::Tensor();
        const MapFormat format = dtype == "bf16" ? bf16Format() : dtype == "fp16" ? fp16Format() : MapFormat{};
        const auto truth = byDefinition(run, reference, rerun, format);
        const auto show = [](const char* name, double got, double want) {
            return QString("%1: %2, by definition %3").arg(name).arg(got, 0, 'g', 17).arg(want, 0, 'g', 17);
        };
        for (const bool vector : {true, false}) {
            const bool used = probe_detail::useVectorMapPass(vector);
            if (vector && !used) qInfo("no AVX-512 on this CPU: the scalar loop twice");
            PrecisionMapOp op;
            measureOutput(run, reference, rerun, format, op);
            QVERIFY2(sameBits(op.relError, truth.relError), qPrintable(show("rel_error", op.relError, truth.relError)));
            QVERIFY2(sameBits(op.snrDb, truth.snrDb), qPrintable(show("snr_db", op.snrDb, truth.snrDb)));
            QVERIFY2(sameBits(op.ulpsMax, truth.ulpsMax), qPrintable(show("ulps_max", op.ulpsMax, truth.ulpsMax)));
            QVERIFY2(sameBits(op.ulpsRms, truth.ulpsRms), qPrintable(show("ulps_rms", op.ulpsRms, truth.ulpsRms)));
            QVERIFY2(sameBits(op.addedError, truth.addedError) || (std::isnan(op.addedError) && std::isnan(truth.addedError)),
                     qPrintable(show("added_error", op.addedError, truth.addedError)));
        }
        probe_detail::useVectorMapPass(true);

        // Magnitudes whose spacing is past the normal doubles, in a scaled format: both loops.
        auto tiny = torch::full({37}, 0x1p-1021, torch::kDouble);
        tiny[4] = 1e-310;  // subnormal
        tiny[9] = 1.0;
        const auto tinyRun = tiny * 1.5;
        PrecisionMapOp vectorOp, scalarOp;
        probe_detail::useVectorMapPass(true);
        measureOutput(tinyRun, tiny, torch::Tensor(), e4m3Format(), vectorOp);
        probe_detail::useVectorMapPass(false);
        measureOutput(tinyRun, tiny, torch::Tensor(), e4m3Format(), scalarOp);
        probe_detail::useVectorMapPass(true);
        QVERIFY(sameBits(vectorOp.ulpsMax, scalarOp.ulpsMax) && sameBits(vectorOp.ulpsRms, scalarOp.ulpsRms));
        QVERIFY(sameBits(vectorOp.relError, scalarOp.relError));
    }

    // The torch-ops way (what a GPU's outputs take) against the CPU's single pass, both on
    // CPU tensors with zeros, fp32 subnormals, values that flush, overflow or saturate,
    // NaN on both sides and in the run only, and Inf: the counts, the fractions, the
    // largest ulps (each element's the same double arithmetic, scaled by powers of two)
    // and the histograms to the bit; the sums over elements (relative errors, SNR, RMS
    // ulps) taken in another order, within 1e-12.
    void torchOpsAgreeWithTheCpuPass_data() {
        QTest::addColumn<QString>("format");
        QTest::newRow("fp16 (half values)") << "fp16";
        QTest::newRow("bf16 (bfloat16 values)") << "bf16";
        QTest::newRow("e4m3 saturating (float values)") << "e4m3";
    }
    void torchOpsAgreeWithTheCpuPass() {
        QFETCH(QString, format);
        auto reference = plainValues(9) * 3.0 - 1.5;
        auto* p = reference.data_ptr<float>();
        for (int64_t i = 0; i < kElements; i += 97) {
            constexpr float kValues[] = {0.0f, -0.0f, 1e-40f, -3e-39f, 1e-9f, 0x1p-11f, 448.0f, 1000.0f,
                                         -7e4f, 1e5f, 3e38f, 0x1p-25f, 65519.0f, 1.4e-45f};
            p[i] = kValues[(i / 97) % std::size(kValues)];
        }
        reference[5] = std::nanf("");  // NaN on both sides
        torch::Tensor run;
        MapFormat mapFormat;
        if (format == "fp16") {
            run = reference.to(torch::kHalf);
            mapFormat = fp16Format();
        } else if (format == "bf16") {
            run = reference.to(torch::kBFloat16);
            mapFormat = bf16Format();
        } else {
            run = roundElements(reference, NumberFormat::E4M3, OverflowPolicy::Saturate);
            mapFormat = e4m3Format();
        }
        run[7] = std::nanf("");  // new NaN
        run[kChunk + 9] = -std::numeric_limits<float>::infinity();  // new Inf
        auto rerun = reference * (1.0 + 0x1p-20);
        rerun[kChunk + 11] = std::nanf("");
        for (const bool withRerun : {true, false}) {
            PrecisionMapOp cpu, ops;
            measureOutput(run, reference, withRerun ? rerun : torch::Tensor(), mapFormat, cpu);
            probe_detail::measureOutputWithTorchOps(run, reference, withRerun ? rerun : torch::Tensor(), mapFormat, ops);
            QVERIFY(cpu.newNan >= 1 && cpu.newInf >= 1 && cpu.flushed > 0.0);
            QVERIFY(format == "bf16" || cpu.saturated > 0.0 || cpu.newInf > 1);
            QCOMPARE(ops.elements, cpu.elements);
            QCOMPARE(ops.newNan, cpu.newNan);
            QCOMPARE(ops.newInf, cpu.newInf);
            QCOMPARE_BITS(ops.flushed, cpu.flushed);
            QCOMPARE_BITS(ops.saturated, cpu.saturated);
            QCOMPARE_BITS(ops.ulpsMax, cpu.ulpsMax);
            QVERIFY(sameHistogram(ops.run, cpu.run) && sameHistogram(ops.reference, cpu.reference));
            const auto show = [](const char* name, double o, double c) {
                return QString("%1: torch ops %2, CPU %3").arg(name).arg(o, 0, 'g', 17).arg(c, 0, 'g', 17);
            };
            QVERIFY2(cpu.relError > 0.0 && near(ops.relError, cpu.relError, 1e-12),
                     qPrintable(show("rel_error", ops.relError, cpu.relError)));
            QVERIFY2(near(ops.snrDb, cpu.snrDb, 1e-12), qPrintable(show("snr_db", ops.snrDb, cpu.snrDb)));
            QVERIFY2(near(ops.ulpsRms, cpu.ulpsRms, 1e-12), qPrintable(show("ulps_rms", ops.ulpsRms, cpu.ulpsRms)));
            if (withRerun)
                QVERIFY2(cpu.addedError > 0.0 && near(ops.addedError, cpu.addedError, 1e-12),
                         qPrintable(show("added_error", ops.addedError, cpu.addedError)));
            else
                QVERIFY(std::isnan(ops.addedError) && std::isnan(cpu.addedError));
        }
    }
};

QTEST_GUILESS_MAIN(PrecisionMapCountsTest)
#include "test_precision_map_counts.moc"
