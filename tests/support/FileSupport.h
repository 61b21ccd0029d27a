#pragma once
// Reading and writing the small files the CLI suites check: a config a test writes, the
// JSON and text files a command leaves.
#include <QtCore/QFile>
#include <QtCore/QString>

#include <fstream>
#include <nlohmann/json.hpp>

namespace ampscope::test {

inline void writeTextFile(const QString& path, const char* text) { std::ofstream(path.toStdString()) << text; }

// The file's JSON (nlohmann's parse_error when it is not JSON: the test fails on it).
inline nlohmann::json readJsonFile(const QString& path) {
    std::ifstream file(path.toStdString());
    return nlohmann::json::parse(file);
}

// The file's text; empty when it cannot be read.
inline QString readTextFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

}  // namespace ampscope::test
