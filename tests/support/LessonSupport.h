#pragma once
// A lesson a teacher writes by hand, as docs/guide/lessons.md shows it, for the suites that
// check, run, pack and unpack lessons: scenario.json with three runs and two views, a run
// config per run training on the lesson's own safetensors file, and a narrative with view
// links. The line numbers the comments give are where the suites write bad values.
#include <QtCore/QByteArray>
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QString>
#include <QtTest/QtTest>

#include <cstdint>

namespace ampscope::test {

// scenario.json: the views on lines 7 and 8 (a bad run name goes on line 8).
inline QByteArray scenarioJson(const QByteArray& secondViewRun = "bf16") {
    return "{\n"
           "  \"name\": \"tiny-lesson\",\n"
           "  \"summary\": \"three tiny runs side by side\",\n"
           "  \"runs\": [\"fp32\", \"bf16\", \"fp16\"],\n"
           "  \"docks\": [\"loss\"],\n"
           "  \"views\": [\n"
           "    {\"id\": \"loss\", \"run\": \"fp32\", \"dock\": \"loss\", \"axis\": \"log\"},\n"
           "    {\"id\": \"grads\", \"run\": \"" + secondViewRun +
           "\", \"dock\": \"histograms\", \"layer\": \"out\", \"kind\": \"param_grad\"}\n"
           "  ]\n"
           "}\n";
}

// A run config: data.path on line 3, model on line 5, optim.lr on line 7. 30 training
// samples of 40 in batches of 8: 4 steps.
inline QByteArray runConfig(const QByteArray& mode, const QByteArray& dataPath = "data/tiny.safetensors",
                     const QByteArray& model = "{\"name\": \"mlp\", \"hidden\": [8]}", const QByteArray& lr = "0.01") {
    return "{\n"
           "  \"threads\": 1,\n"
           "  \"data\": {\"dataset\": \"tensors\", \"path\": \"" + dataPath + "\", \"inputs\": \"x\", \"targets\": \"y\",\n"
           "           \"validation\": \"split\", \"val_fraction\": 0.25},\n"
           "  \"model\": " + model + ",\n"
           "  \"precision\": {\"mode\": \"" + mode + "\"},\n"
           "  \"optim\": {\"lr\": " + lr + "},\n"
           "  \"train\": {\"epochs\": 1, \"batch_size\": 8}\n"
           "}\n";
}

// narrative.md: view links on lines 3 and 4 (the second spans no line break), an https
// page on line 5.
inline const char* kNarrative =
    "# A tiny lesson\n"
    "\n"
    "Look at [the loss](view:loss) of the fp32 run, then at\n"
    "[the gradients](view:grads) of the bf16 run.\n"
    "More about bf16: [a page](https://example.org/bf16).\n";

inline void writeBytes(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    QVERIFY2(file.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
    file.write(bytes);
}

// The lesson's data: x F32 [40, 4] (two classes apart), y I64 [40]; safetensors is an
// 8-byte little-endian header length, the JSON header, then the bytes.
inline QByteArray tinySafetensors() {
    const QByteArray header =
        "{\"x\":{\"dtype\":\"F32\",\"shape\":[40,4],\"data_offsets\":[0,640]},"
        "\"y\":{\"dtype\":\"I64\",\"shape\":[40],\"data_offsets\":[640,960]}}";
    QByteArray bytes;
    for (int i = 0; i < 8; ++i) bytes.append(static_cast<char>((static_cast<uint64_t>(header.size()) >> (8 * i)) & 0xff));
    bytes += header;
    for (int sample = 0; sample < 40; ++sample)
        for (int feature = 0; feature < 4; ++feature) {
            const float value = (sample % 2 ? 1.0f : -1.0f) + 0.01f * static_cast<float>(feature + sample % 7);
            bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
        }
    for (int64_t sample = 0; sample < 40; ++sample) {
        const int64_t label = sample % 2;
        bytes.append(reinterpret_cast<const char*>(&label), sizeof label);
    }
    return bytes;
}

// The good lesson in `folder`.
inline void writeLesson(const QString& folder) {
    writeBytes(folder + "/scenario.json", scenarioJson());
    writeBytes(folder + "/fp32.json", runConfig("fp32"));
    writeBytes(folder + "/bf16.json", runConfig("bf16"));
    writeBytes(folder + "/fp16.json", runConfig("fp16"));
    writeBytes(folder + "/narrative.md", kNarrative);
    writeBytes(folder + "/data/tiny.safetensors", tinySafetensors());
}

}  // namespace ampscope::test
