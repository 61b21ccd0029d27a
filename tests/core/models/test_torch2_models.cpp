// TorchScript files saved by a newer PyTorch (torch 2.6, tests/data/torch2-models): on a
// build whose LibTorch lacks what a file needs, the refusal is one line naming the op and
// the build's LibTorch; where the LibTorch has it, the file trains. Which is which comes
// from the fixtures' manifest, found by loading each file with each LibTorch's torch.
// Also the line of a LibTorch message that the refusals and "forward failed:" show, on the
// shapes of message LibTorch produces, and the refusal of a torch.export program (.pt2).
#include <QtCore/QFile>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtTest/QtTest>

#include <cmath>

#include <torch/torch.h>

#include "ExactCompare.h"
#include "DataLoadSupport.h"
#include "common/InputError.h"
#include "config/RunConfig.h"
#include "engine/Trainer.h"
#include "models/ScriptErrorText.h"
#include "models/TorchScriptModel.h"

using namespace ampscope;

namespace {

QString modelsDir() { return qEnvironmentVariable("AMPSCOPE_TEST_DATA") + "/torch2-models"; }

QJsonObject manifest() {
    QFile file(modelsDir() + "/manifest.json");
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

// "1.13": the key under which the manifest records what this build's LibTorch did.
QString thisLibTorch() { return QString("%1.%2").arg(TORCH_VERSION_MAJOR).arg(TORCH_VERSION_MINOR); }

// What the manifest says this build's LibTorch does with `file`; empty when untried.
QJsonObject recordFor(const QString& file) {
    return manifest()["files"].toObject()[file].toObject()["libtorch"].toObject()[thisLibTorch()].toObject();
}

RunConfig configFor(const QString& file) {
    RunConfig config;
    config.model.name = "torchscript";
    config.model.path = (modelsDir() + "/" + file).toStdString();
    config.precision.mode = "fp32";
    config.optim.name = "adam";
    config.optim.lr = 3e-3;
    return config;
}

QString refusalOf(const QString& file) {
    try {
        TorchScriptModel::load(configFor(file).model, torch::kCPU, false);
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

// The TorchScript fixtures, one row each.
void addFixtureRows() {
    QTest::addColumn<QString>("file");
    const QJsonObject files = manifest()["files"].toObject();
    for (auto it = files.begin(); it != files.end(); ++it)
        if (it.key().endsWith(".pt")) QTest::newRow(qPrintable(it.key())) << it.key();
}

}  // namespace

class Torch2ModelsTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(manifest()["files"].toObject().size() == 7,
                 qPrintable("no manifest of seven files in " + modelsDir()));
        at::set_num_threads(1);
    }

    // Messages as LibTorch words them (the first three verbatim from 1.13 loading the
    // fixtures, and running a traced model on the wrong shape).
    void meaningfulLine_data() {
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("line");
        QTest::newRow("opens with a newline, op then suggestions")
            << "\nUnknown builtin op: aten::scaled_dot_product_attention.\nHere are some suggestions: \n"
               "\taten::_scaled_dot_product_attention\n\nThe original call is:\n  File \"code/__torch__.py\", "
               "line 66\n    out = torch.scaled_dot_product_attention(q, k, v)\n"
            << "Unknown builtin op: aten::scaled_dot_product_attention";
        QTest::newRow("op, no similar ops, a lone colon, an excerpt")
            << "\nUnknown builtin op: aten::rms_norm.\nCould not find any similar ops to aten::rms_norm. This op "
               "may not exist or may not be currently supported in TorchScript.\n:\n  File "
               "\"code/__torch__/torch/nn/modules/normalization.py\", line 10\n"
            << "Unknown builtin op: aten::rms_norm";
        QTest::newRow("the interpreter's traceback, then the error")
            << "The following operation failed in the TorchScript interpreter.\nTraceback of TorchScript, "
               "serialized code (most recent call last):\n  File \"code/__torch__.py\", line 19, in forward\n"
               "    return (fc).forward(input2, )\n\nTraceback of TorchScript, original code (most recent call "
               "last):\n/usr/lib/python3/dist-packages/torch/nn/modules/linear.py(125): forward\nRuntimeError: "
               "mat1 and mat2 shapes cannot be multiplied (3x200 and 392x10)\n"
            << "mat1 and mat2 shapes cannot be multiplied (3x200 and 392x10)";
        QTest::newRow("an unknown type name") << "\nUnknown type name 'NewType':\n  File \"code/__torch__.py\"\n"
                                              << "Unknown type name 'NewType'";
        QTest::newRow("a format version, after blank lines")
            << "\n\n  Attempted to read a PyTorch file with version 12, but the maximum supported version for "
               "reading is 10.\n"
            << "Attempted to read a PyTorch file with version 12, but the maximum supported version for reading "
               "is 10.";
        QTest::newRow("a version line below another")
            << "PytorchStreamReader failed reading file\nunsupported operator version 9 of aten::div\n"
            << "unsupported operator version 9 of aten::div";
        QTest::newRow("caffe2's enforce prefix")
            << "[enforce fail at inline_container.cc:129] . file in archive is not in a subdirectory: x.json"
            << "file in archive is not in a subdirectory: x.json";
        QTest::newRow("one plain line") << "expected a tensor" << "expected a tensor";
        QTest::newRow("several plain lines: the first") << "first\nsecond\n" << "first";
        QTest::newRow("empty") << "" << "";
        QTest::newRow("blank lines only") << "\n \n\t\n" << "";
    }
    void meaningfulLine() {
        QFETCH(QString, message);
        QFETCH(QString, line);
        QCOMPARE(QString::fromStdString(meaningfulErrorLine(message.toStdString())), line);
    }

    void newerPyTorchWording_data() {
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("refusal");
        const QString on1 = "an AmpScope built against LibTorch 2.x (e.g. on Debian 13) can load it";
        QTest::newRow("an aten op on 1.13")
            << "\nUnknown builtin op: aten::rms_norm.\nCould not find any similar ops" << "1.13.0"
            << "uses aten::rms_norm: the file was saved by a newer PyTorch than this build's LibTorch 1.13.0, "
               "which lacks that op; " + on1;
        QTest::newRow("an aten op on 2.6")
            << "\nUnknown builtin op: aten::future_op.\n" << "2.6.0"
            << "uses aten::future_op: the file was saved by a newer PyTorch than this build's LibTorch 2.6.0, "
               "which lacks that op; an AmpScope built against a newer LibTorch can load it";
        QTest::newRow("an extension's op is not a newer PyTorch")
            << "\nUnknown builtin op: torchvision::nms.\n" << "1.13.0"
            << "uses torchvision::nms, an operator of an extension library that this build's LibTorch 1.13.0 "
               "does not have (the lab loads PyTorch's own operators only)";
        QTest::newRow("a type") << "\nUnknown type name 'NewType':\n" << "1.13.0"
                                << "uses the type NewType: the file was saved by a newer PyTorch than this "
                                   "build's LibTorch 1.13.0, which lacks that type; " + on1;
        QTest::newRow("the archive's version")
            << "Attempted to read a PyTorch file with version 12, but the maximum supported version for reading "
               "is 10. Your PyTorch installation may be too old." << "1.13.0"
            << "is a version 12 archive: the file was saved by a newer PyTorch than this build's LibTorch "
               "1.13.0, which reads up to version 10; " + on1;
        QTest::newRow("another version message")
            << "\nunsupported operator version 9 of aten::div\n" << "1.13.0"
            << "cannot load as TorchScript (unsupported operator version 9 of aten::div): the file was saved "
               "by a newer PyTorch than this build's LibTorch 1.13.0; " + on1;
        QTest::newRow("nothing newer named") << "\nexpected a value of type Tensor\n" << "1.13.0" << "";
        QTest::newRow("empty") << "" << "1.13.0" << "";
    }
    void newerPyTorchWording() {
        QFETCH(QString, message);
        QFETCH(QString, version);
        QFETCH(QString, refusal);
        QCOMPARE(QString::fromStdString(newerPyTorchRefusal(message.toStdString(), version.toStdString())),
                 refusal);
    }

    // Where the manifest says this LibTorch refused a file: one line, the op it lacks,
    // the newer PyTorch and this build's version, and which build loads it.
    void refusedWhereLibTorchLacksIt_data() { addFixtureRows(); }
    void refusedWhereLibTorchLacksIt() {
        QFETCH(QString, file);
        const QJsonObject record = recordFor(file);
        if (record.isEmpty()) QSKIP(qPrintable("the manifest records nothing of LibTorch " + thisLibTorch()));
        if (record["loads"].toBool()) QSKIP(qPrintable("LibTorch " + thisLibTorch() + " loads this file"));
        const QString message = refusalOf(file);
        const QString expected = "model.path: " + modelsDir() + "/" + file + ": uses " + record["lacks"].toString() +
                                 ": the file was saved by a newer PyTorch than this build's LibTorch " +
                                 TORCH_VERSION + ", which lacks that op; an AmpScope built against ";
        QVERIFY2(message.startsWith(expected), qPrintable(message));
        QVERIFY2(message.endsWith(TORCH_VERSION_MAJOR < 2 ? "LibTorch 2.x (e.g. on Debian 13) can load it"
                                                          : "a newer LibTorch can load it"),
                 qPrintable(message));
        QVERIFY2(!message.contains('\n'), qPrintable(message));
    }

    // Where the manifest says this LibTorch loads a file: the lab loads it too and trains
    // it, with finite losses that fall on a batch it sees again and again.
    void trainsWhereLibTorchLoadsIt_data() { addFixtureRows(); }
    void trainsWhereLibTorchLoadsIt() {
        QFETCH(QString, file);
        const QJsonObject record = recordFor(file);
        if (record.isEmpty()) QSKIP(qPrintable("the manifest records nothing of LibTorch " + thisLibTorch()));
        if (!record["loads"].toBool())
            QSKIP(qPrintable("LibTorch " + thisLibTorch() + " lacks " + record["lacks"].toString()));
        const DataBundle data = test::randomImageData(32, 5, 16);
        torch::manual_seed(3);
        Trainer trainer(configFor(file), data, torch::kCPU);
        QVERIFY(trainer.model().layerCount() > 0);
        const auto x = data.train.inputs.slice(0, 0, 16), y = data.train.targets.slice(0, 0, 16);
        const double first = trainer.step(x, y).loss;
        double last = first;
        for (int i = 0; i < 9; ++i) {
            last = trainer.step(x, y).loss;
            QVERIFY2(std::isfinite(last), qPrintable(QString("step %1: loss %2").arg(i + 2).arg(last)));
        }
        QVERIFY2(std::isfinite(first), qPrintable(QString::number(first)));
        QVERIFY2(last < first, qPrintable(QString("%1 -> %2").arg(first).arg(last)));
    }

    // What torch.export saves is refused by every build, by what it is.
    void exportedProgramIsRefused() {
        const QString message = refusalOf("cnn_exported.pt2");
        QVERIFY2(message.startsWith("model.path: " + modelsDir() + "/cnn_exported.pt2: a torch.export program "
                                    "(torch.export.save, .pt2), not TorchScript: LibTorch's C++ API cannot "
                                    "load it to train; export the model with torch.jit.trace"),
                 qPrintable(message));
        QVERIFY2(!message.contains('\n'), qPrintable(message));
    }

    // A forward that fails says LibTorch's error, not the interpreter's first line. The
    // traced CNN flattens 8 x 7 x 7 = 392 values for 28 x 28 images; 20 x 20 ones give
    // 8 x 5 x 5 = 200.
    void forwardFailureNamesTheError() {
        if (!recordFor("cnn_traced.pt")["loads"].toBool())
            QSKIP(qPrintable("LibTorch " + thisLibTorch() + " does not load cnn_traced.pt"));
        auto model = TorchScriptModel::load(configFor("cnn_traced.pt").model, torch::kCPU, false);
        const ComputePolicy policy = makeComputePolicy(PrecisionConfig{}, torch::kCPU);
        try {
            model->forward(torch::randn({3, 1, 20, 20}), policy, nullptr);
            QFAIL("a forward on the wrong shape passed");
        } catch (const InputError& e) {
            const QString message = e.what();
            QVERIFY2(message.startsWith("model.path: " + modelsDir() + "/cnn_traced.pt: forward failed: "),
                     e.what());
            QVERIFY2(message.contains("3x200 and 392x10"), e.what());
            QVERIFY2(!message.contains('\n'), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(Torch2ModelsTest)
#include "test_torch2_models.moc"
