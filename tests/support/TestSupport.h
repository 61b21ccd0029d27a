#pragma once
// Small helpers shared by the suites: locations handed in by CTest's environment, the
// small training run most engine tests use, and running the CLI as a user would.
#include <QtCore/QByteArray>
#include <QtCore/QProcess>
#include <QtCore/QString>
#include <QtCore/QStringList>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/RunConfig.h"

namespace ampscope::test {

using ampscope::RunConfig;

inline std::string envOr(const char* name, const char* fallback) {
    const char* value = std::getenv(name);
    return value ? std::string(value) : std::string(fallback);
}
inline std::string testDataDir() { return envOr("AMPSCOPE_TEST_DATA", "tests/data"); }
inline std::string sourceDir() { return envOr("AMPSCOPE_SOURCE_DIR", "."); }
inline std::string cliPath() { return envOr("AMPSCOPE_CLI", "ampscope-cli"); }

// Sets an environment variable while it lives (for this process and the programs it
// starts), then puts back what was there.
class ScopedEnvironment {
public:
    ScopedEnvironment(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        ::setenv(name, value.c_str(), 1);
    }
    ~ScopedEnvironment() {
        if (old_)
            ::setenv(name_, old_->c_str(), 1);
        else
            ::unsetenv(name_);
    }
    ScopedEnvironment(const ScopedEnvironment&) = delete;
    ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

// An mlp on the 2-D spirals set: a few ms per step on one thread. One epoch of
// samples * 0.75 / batchSize steps (a quarter is held out for validation); tests set
// the fields their behaviour needs on the result.
inline RunConfig spiralsMlpConfig(int64_t samples = 512, std::vector<int64_t> hidden = {16, 16},
                                  int64_t batchSize = 32) {
    RunConfig c;
    c.threads = 1;
    c.device = "cpu";
    c.data.dataset = "spirals";
    c.data.synthetic_samples = samples;
    c.data.validation = "split";
    c.data.val_fraction = 0.25;
    c.model.name = "mlp";
    c.model.hidden = std::move(hidden);
    c.train.epochs = 1;
    c.train.batch_size = batchSize;
    c.optim.lr = 0.01;
    return c;
}

// The spirals mlp at the default learning rate in `mode`, probed every `probeEvery`
// steps: what the shadow, lock-step and op-audit comparisons were measured with.
inline RunConfig probedSpiralsConfig(const std::string& mode, int64_t probeEvery) {
    RunConfig c = spiralsMlpConfig();
    c.optim.lr = OptimConfig{}.lr;
    c.precision.mode = mode;
    c.probes.every = probeEvery;
    return c;
}

struct CliResult {
    int exitCode = -1;  // -1: did not exit normally (a crash, a signal or the timeout)
    QString out, err;
};

// Runs ampscope-cli with args; inChild runs in the child before exec (resource limits).
inline CliResult runCli(const QStringList& args, int timeoutMs = 180000,
                        const std::function<void()>& inChild = {}) {
    QProcess process;
    if (inChild) process.setChildProcessModifier(inChild);
    process.start(QString::fromStdString(cliPath()), args);
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}

}  // namespace ampscope::test
