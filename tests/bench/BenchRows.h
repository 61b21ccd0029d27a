#pragma once
// A benchmark checks its own table: every row it promised printed, each with a measured
// number that is finite and positive. CTest runs each bench's --smoke on its exit code (a
// crash fails too), so a bench that stops early, drops a row or measures nothing fails.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

class BenchRows {
public:
    explicit BenchRows(const char* bench) : bench_(bench) {}

    // One printed row and the number it measured.
    void measured(const std::string& row, double value) {
        ++rows_;
        if (!(std::isfinite(value) && value > 0.0))
            problems_.push_back(row + ": measured " + std::to_string(value));
    }

    // Something else the bench checks went wrong (a run it could not open, say).
    void failed(const std::string& problem) { problems_.push_back(problem); }

    // 0 when `expected` rows came and each measured something; else 1, one line per
    // problem on stderr.
    int exitCode(std::size_t expected) const {
        for (const std::string& problem : problems_) std::fprintf(stderr, "%s: %s\n", bench_, problem.c_str());
        if (rows_ != expected)
            std::fprintf(stderr, "%s: %zu rows printed, %zu expected\n", bench_, rows_, expected);
        return problems_.empty() && rows_ == expected ? 0 : 1;
    }

private:
    const char* bench_;
    std::size_t rows_ = 0;
    std::vector<std::string> problems_;
};
