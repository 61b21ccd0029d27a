// Following a run over SSH against following it on the local disk, side by side:
//   - throughput: a finished run of N step records followed from its start until the
//     follower has every record (records/s, MB/s), rounds interleaved local / SSH;
//   - delay from write to view: a writer appends one record every 1/rate s (each line
//     written and flushed at once, carrying the time it was written) while a follower
//     polls every 33 ms as the window does; the delay of each record from its write to
//     the poll that returned it.
// The SSH side goes through a real sshd on 127.0.0.1 (tests/support/SshServer.h) with the
// mirror's default settings (the remote side looks for new bytes every 0.25 s).
//
//   ./build/tests/bench/remote_follow_bench [--records N] [--rounds R] [--seconds S] [--json]
//   --smoke: tiny sizes (CTest: every row prints; the numbers mean nothing)
#include <QtCore/QCoreApplication>
#include <QtCore/QDir>
#include <QtCore/QFileInfo>
#include <QtCore/QTemporaryDir>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "BenchRows.h"
#include "SshServer.h"
#include "run/RemoteRunAddress.h"
#include "run/RemoteRunMirror.h"
#include "run/RunFollower.h"

using namespace ampscope;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kPollMilliseconds = 33;  // the window's follow timer (ui/RunFeed.cpp)

std::int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// A step record as the engine writes one, about 270 bytes, with the time it was written.
std::string stepLine(long long step, std::int64_t writtenNs) {
    char line[512];
    std::snprintf(line, sizeof line,
                  "{\"epoch\":1,\"found_inf\":false,\"grad_norm\":0.2046442969930131,\"growth_tracker\":0,"
                  "\"loss\":0.6912463903427124,\"lr\":0.003,\"peak_memory_bytes\":257560576,"
                  "\"samples_per_second\":8807.6111522283,\"scale\":1.0,\"scale_after\":1.0,\"step\":%lld,"
                  "\"step_seconds\":0.014532884999994167,\"step_skipped\":false,\"type\":\"step\","
                  "\"written_ns\":%lld}\n",
                  step, static_cast<long long>(writtenNs));
    return line;
}

void writeFile(const std::string& path, const std::string& text) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
}

const char* kConfig = "{\"schema_version\": 1}\n";

std::string makeFinishedRun(const QTemporaryDir& tmp, long long records) {
    const std::string dir = tmp.filePath(QStringLiteral("finished")).toStdString();
    QDir().mkpath(QString::fromStdString(dir));
    writeFile(dir + "/config.json", kConfig);
    std::string events = "{\"type\":\"run_start\",\"schema_version\":1}\n";
    for (long long step = 1; step <= records; ++step) events += stepLine(step, 0);
    writeFile(dir + "/events.jsonl", events);
    writeFile(dir + "/summary.json", "{\"status\": \"finished\"}\n");
    return dir;
}

// Seconds until a follower of `directory` has every record of the finished run.
double followToTheEnd(const std::string& directory, std::size_t expected) {
    RunFollower follower(directory);
    std::size_t got = 0;
    const Clock::time_point start = Clock::now();
    while (!follower.finished() && std::chrono::duration<double>(Clock::now() - start).count() < 600) {
        got += follower.poll(4u << 20).size();
        if (!follower.finished()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (got != expected) std::fprintf(stderr, "remote_follow_bench: followed %zu of %zu records\n", got, expected);
    return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? 0 : values[values.size() / 2];
}

double percentile(std::vector<double> values, double p) {
    std::sort(values.begin(), values.end());
    if (values.empty()) return 0;
    return values[std::min(values.size() - 1, static_cast<std::size_t>(p * values.size()))];
}

// Delays (ms) of records written live at `rate` per second for `seconds`, seen by a
// follower of `followed()` (the directory itself, or the copy an SSH mirror keeps).
std::vector<double> liveDelays(const std::string& directory, const RemoteRunAddress* remote,
                               const std::string& sshConfig, double rate, double seconds) {
    writeFile(directory + "/config.json", kConfig);
    writeFile(directory + "/events.jsonl", "");
    std::unique_ptr<RemoteRunMirror> mirror;
    std::string followed = directory;
    if (remote) {
        RemoteMirrorOptions options;
        options.ssh.configFile = sshConfig;
        mirror = std::make_unique<RemoteRunMirror>(*remote, options);
        mirror->waitUntilSynced();
        followed = mirror->localDirectory();
    }
    std::atomic<bool> writing{true};
    const long long total = static_cast<long long>(rate * seconds);
    std::thread writer([&] {
        const int fd = ::open((directory + "/events.jsonl").c_str(), O_WRONLY | O_APPEND);
        const Clock::time_point start = Clock::now();
        for (long long step = 1; step <= total; ++step) {
            std::this_thread::sleep_until(start + std::chrono::microseconds(static_cast<long long>(step * 1e6 / rate)));
            const std::string line = stepLine(step, nowNs());
            [[maybe_unused]] const ssize_t n = ::write(fd, line.data(), line.size());
        }
        ::close(fd);
        writeFile(directory + "/summary.json", "{\"status\": \"finished\"}\n");
        writing = false;
    });
    RunFollower follower(followed);
    std::vector<double> delays;
    const Clock::time_point start = Clock::now();
    while (!follower.finished() && std::chrono::duration<double>(Clock::now() - start).count() < seconds + 60) {
        for (const nlohmann::json& record : follower.poll()) {
            const auto written = record.find("written_ns");
            if (written != record.end() && written->get<std::int64_t>() > 0)
                delays.push_back(static_cast<double>(nowNs() - written->get<std::int64_t>()) / 1e6);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(kPollMilliseconds));
    }
    writer.join();
    if (static_cast<long long>(delays.size()) != total)
        std::fprintf(stderr, "remote_follow_bench: saw %zu of %lld live records\n", delays.size(), total);
    return delays;
}

struct Row {
    std::string measurement, value, ratio, target, met;
};

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    long long records = 200000;
    int rounds = 3;
    double seconds = 20, rate = 50;
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--smoke") {
            records = 2000;
            rounds = 1;
            seconds = 2;
        } else if (a == "--json") {
            json = true;
        } else if (a == "--records" && i + 1 < argc) {
            records = std::atoll(argv[++i]);
        } else if (a == "--rounds" && i + 1 < argc) {
            rounds = std::atoi(argv[++i]);
        } else if (a == "--seconds" && i + 1 < argc) {
            seconds = std::atof(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: remote_follow_bench [--records N] [--rounds R] [--seconds S] [--json] [--smoke]\n");
            return 2;
        }
    }
    test::SshServer server;
    if (!server.whyNot().isEmpty()) {
        std::fprintf(stderr, "remote_follow_bench: %s\n", qPrintable(server.whyNot()));
        return 1;
    }
    const std::string config = server.sshConfig().toStdString();
    QTemporaryDir tmp;
    const std::string finished = makeFinishedRun(tmp, records);
    const double megabytes = static_cast<double>(QFileInfo(QString::fromStdString(finished + "/events.jsonl")).size()) / 1e6;
    const RemoteRunAddress finishedAddress = parseRemoteRunAddress(test::SshServer::address(QString::fromStdString(finished)).toStdString());

    std::vector<double> local, remote;
    for (int round = 0; round < rounds; ++round) {  // interleaved: local, SSH, local, SSH, ...
        local.push_back(followToTheEnd(finished, static_cast<std::size_t>(records + 1)));
        RemoteMirrorOptions options;
        options.ssh.configFile = config;
        const Clock::time_point start = Clock::now();
        RemoteRunMirror mirror(finishedAddress, options);
        followToTheEnd(mirror.localDirectory(), static_cast<std::size_t>(records + 1));
        remote.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    const double localSeconds = median(local), remoteSeconds = median(remote);

    const std::string liveLocal = tmp.filePath(QStringLiteral("live-local")).toStdString();
    const std::string liveRemote = tmp.filePath(QStringLiteral("live-ssh")).toStdString();
    QDir().mkpath(QString::fromStdString(liveLocal));
    QDir().mkpath(QString::fromStdString(liveRemote));
    const RemoteRunAddress liveAddress = parseRemoteRunAddress(test::SshServer::address(QString::fromStdString(liveRemote)).toStdString());
    const std::vector<double> localDelays = liveDelays(liveLocal, nullptr, config, rate, seconds);
    const std::vector<double> sshDelays = liveDelays(liveRemote, &liveAddress, config, rate, seconds);

    char text[256];
    std::vector<Row> rows;
    const auto add = [&](std::string measurement, std::string value, std::string ratio = "", std::string target = "",
                         std::string met = "") { rows.push_back({measurement, value, ratio, target, met}); };
    std::snprintf(text, sizeof text, "%.0f / %.0f (%.1f / %.1f MB/s)", records / localSeconds, records / remoteSeconds,
                  megabytes / localSeconds, megabytes / remoteSeconds);
    char ratio[64];
    std::snprintf(ratio, sizeof ratio, "%.2f", localSeconds / remoteSeconds);
    add("finished run of " + std::to_string(records) + " step records (" + std::to_string(static_cast<int>(megabytes)) +
            " MB), followed to its end: local / SSH, records/s",
        text, ratio);
    const auto delayText = [&](const std::vector<double>& d) {
        std::snprintf(text, sizeof text, "median %.0f / p95 %.0f / worst %.0f ms", median(d), percentile(d, 0.95),
                      percentile(d, 1.0));
        return std::string(text);
    };
    std::snprintf(text, sizeof text, "%.0f records/s for %.0f s, polled every %d ms", rate, seconds, kPollMilliseconds);
    const std::string live = text;
    add("delay from write to view, local (" + live + ")", delayText(localDelays));
    const bool met = !sshDelays.empty() && percentile(sshDelays, 0.95) < 2000;
    add("delay from write to view, SSH (" + live + ")", delayText(sshDelays), "", "p95 < 2000 ms",
        sshDelays.empty() ? "NO" : (met ? "yes" : "NO"));

    if (json) {
        nlohmann::json out = nlohmann::json::array();
        for (const Row& r : rows)
            out.push_back({{"benchmark", "remote follow"}, {"measurement", r.measurement}, {"value", r.value},
                           {"ratio", r.ratio}, {"target", r.target}, {"met", r.met}});
        std::printf("%s\n", out.dump().c_str());
    } else {
        std::printf("| benchmark | measurement | value | ratio | target | met |\n|---|---|---|---|---|---|\n");
        for (const Row& r : rows)
            std::printf("| remote follow | %s | %s | %s | %s | %s |\n", r.measurement.c_str(), r.value.c_str(),
                        r.ratio.c_str(), r.target.c_str(), r.met.c_str());
    }
    BenchRows checked("remote_follow_bench");
    checked.measured(rows[0].measurement, records / localSeconds);
    checked.measured(rows[0].measurement + " over SSH", records / remoteSeconds);
    checked.measured(rows[1].measurement, localDelays.empty() ? 0.0 : percentile(localDelays, 1.0) + 1e-9);
    checked.measured(rows[2].measurement, sshDelays.empty() ? 0.0 : percentile(sshDelays, 1.0) + 1e-9);
    return checked.exitCode(4);
}
