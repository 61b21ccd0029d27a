#pragma once
// What a finished (or stopped, or failed) run amounts to: summary.json's content.
#include <cstdint>
#include <string>

namespace ampscope {

inline constexpr int kSummarySchemaVersion = 1;

struct RunSummary {
    std::string status = "finished";  // finished | stopped | error
    std::string error;                // one line when status == error
    std::string device = "cpu";       // cpu | cuda
    std::string deviceName;           // CPU model or GPU name
    int threads = 1;
    std::string torchVersion;
    std::string mode = "fp32";
    bool emulated = false;
    std::string execution;            // how the mode ran, one line
    std::string model;
    std::string dataset;
    int64_t parameters = 0;
    int64_t steps = 0;
    int64_t epochs = 0;  // completed epochs
    double wallSeconds = 0.0;
    double trainSeconds = 0.0;  // time inside training steps
    double samplesPerSecond = 0.0;
    int64_t peakMemoryBytes = 0;  // process peak RSS on CPU, allocator peak on CUDA
    double finalTrainLoss = 0.0;  // mean of the last epoch's (or last 50 steps') finite losses
    double valLoss = 0.0;
    double valAccuracy = 0.0;
    int64_t skippedSteps = 0;
    double finalScale = 1.0;
    int64_t scaleBackoffs = 0;
    int64_t scaleGrowths = 0;
    int64_t nonFiniteLosses = 0;
};

}  // namespace ampscope
