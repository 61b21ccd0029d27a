// Fuzzes the run-directory readers (core/run/RunReader.h): readRunDirectory and
// RunFollower on the same files.
// Input: parts separated by NUL bytes: events.jsonl, then config.json, then
// summary.json. A missing part: events only -> a valid config and no summary;
// events + config -> no summary. The last input byte also picks the follower's
// maxBytes per poll, so partial lines split at every place.
// Contract checked:
// - readRunDirectory fails only with an InputError whose one-line what() names
//   the directory;
// - with summary.json present, RunFollower yields exactly the records
//   readRunDirectory loaded, in order (both settle a torn last line alike);
//   without it, the follower's records are a prefix of the reader's, missing at
//   most the last line (a partial line stays pending until its newline).
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "FuzzSupport.h"
#include "common/InputError.h"
#include "run/RunReader.h"

using ampscope::InputError;
using ampscope::fuzz::isOneLine;

namespace {

// One directory per process, removed at exit. Leaked on purpose: the exit
// handler runs after static destructors would have freed it.
const std::string& scratchDir() {
    static const std::string* const dir = [] {
        const char* base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        auto* path = new std::string(std::string(base) + "/ampscope-fuzz-run-XXXXXX");
        if (!mkdtemp(path->data())) std::abort();
        std::atexit([] {
            for (const char* name : {"/events.jsonl", "/config.json", "/summary.json"})
                ::unlink((scratchDir() + name).c_str());
            ::rmdir(scratchDir().c_str());
        });
        return path;
    }();
    return *dir;
}

void put(const std::string& path, std::string_view bytes, bool present) {
    if (!present) {
        ::unlink(path.c_str());
        return;
    }
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) std::abort();
    if (!bytes.empty() &&
        ::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()))
        std::abort();
    ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (parts.size() < 2) {
        const std::size_t nul = input.find('\0', start);
        if (nul == std::string_view::npos) break;
        parts.push_back(input.substr(start, nul - start));
        start = nul + 1;
    }
    parts.push_back(input.substr(start));
    const std::string_view events = parts[0];
    const std::string_view config = parts.size() > 1 ? parts[1] : "{\"schema_version\": 1}";
    const bool hasSummary = parts.size() > 2;

    const std::string& dir = scratchDir();
    put(dir + "/events.jsonl", events, true);
    put(dir + "/config.json", config, true);
    put(dir + "/summary.json", hasSummary ? parts[2] : "", hasSummary);

    ampscope::RunData run;
    try {
        run = ampscope::readRunDirectory(dir);
    } catch (const InputError& error) {
        const std::string what = error.what();
        FUZZ_CHECK(isOneLine(what), what);
        FUZZ_CHECK(what.rfind(dir, 0) == 0, what);
        return 0;
    }
    for (const std::string& warning : run.warnings) FUZZ_CHECK(isOneLine(warning), warning);

    const std::size_t maxBytes = size > 0 ? 1 + data[size - 1] % 64 : 1;
    ampscope::RunFollower follower(dir);
    std::vector<nlohmann::json> followed;
    // Every poll reads at least one byte until caught up; a few more polls settle.
    const std::size_t polls = events.size() / maxBytes + 4;
    for (std::size_t i = 0; i < polls && !follower.finished(); ++i)
        for (auto& record : follower.poll(maxBytes)) followed.push_back(std::move(record));
    for (const std::string& warning : follower.warnings()) FUZZ_CHECK(isOneLine(warning), warning);

    if (hasSummary) {
        FUZZ_CHECK(follower.finished(), "the follower did not finish with summary.json present");
        FUZZ_CHECK(followed == run.events, "the follower and the reader disagree on the records");
    } else {
        FUZZ_CHECK(!follower.finished(), "the follower finished without summary.json");
        FUZZ_CHECK(followed.size() <= run.events.size() && followed.size() + 1 >= run.events.size(),
                   "the follower's record count is off");
        for (std::size_t i = 0; i < followed.size(); ++i)
            FUZZ_CHECK(followed[i] == run.events[i], "the follower's records are not the reader's");
    }
    // A bad last line without newline is torn (not skipped) for both, or pending.
    FUZZ_CHECK(follower.skippedLines() == run.skipped_lines,
               "the follower skipped other lines than the reader");
    return 0;
}
