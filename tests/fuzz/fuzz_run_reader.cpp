// Fuzzes the run-directory readers (core/run/RunReader.h): readRunDirectory and
// RunFollower on the same files.
// Input: parts separated by NUL bytes: events.jsonl, then config.json, then
// summary.json. A missing part: events only -> a valid config and no summary;
// events + config -> no summary. The last input byte also picks the follower's
// maxBytes per poll, so partial lines split at every place. An optional fourth part
// lays the three files out (run directories are untrusted input): its bytes 0..2 are
// for events.jsonl, config.json and summary.json: 'l' a symbolic link to a plain file
// outside the directory holding the part, 'p' a FIFO, 'd' a directory, anything else
// the plain file itself.
// Contract checked:
// - readRunDirectory fails only with an InputError whose one-line what() names
//   the directory; it always fails when a file present is not a plain file of its
//   own (a link, FIFO or directory), and the follower then refuses it too, never
//   reading through the link or blocking on the FIFO;
// - with summary.json present, RunFollower yields exactly the records
//   readRunDirectory loaded, in order (both settle a torn last line alike);
//   without it, the follower's records are a prefix of the reader's, missing at
//   most the last line (a partial line stays pending until its newline).
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
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
#include "run/RunFollower.h"
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
            for (const char* name : {"/events.jsonl", "/config.json", "/summary.json"}) {
                ::unlink((scratchDir() + name).c_str());
                ::rmdir((scratchDir() + name).c_str());
                ::unlink((scratchDir() + ".outside" + name).c_str());
            }
            ::rmdir(scratchDir().c_str());
        });
        return path;
    }();
    return *dir;
}

void writeFile(const std::string& path, std::string_view bytes) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) std::abort();
    if (!bytes.empty() &&
        ::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()))
        std::abort();
    ::close(fd);
}

// Puts dir/name in place as `layout` says ('l', 'p', 'd' or plain; see the top).
void put(const std::string& dir, const char* name, std::string_view bytes, bool present,
         char layout) {
    const std::string path = dir + "/" + name;
    ::unlink(path.c_str());
    ::rmdir(path.c_str());
    if (!present) return;
    if (layout == 'l') {
        const std::string outside = dir + ".outside/" + name;
        ::mkdir((dir + ".outside").c_str(), 0755);
        writeFile(outside, bytes);
        if (::symlink(outside.c_str(), path.c_str()) != 0) std::abort();
    } else if (layout == 'p') {
        if (::mkfifo(path.c_str(), 0644) != 0) std::abort();
    } else if (layout == 'd') {
        if (::mkdir(path.c_str(), 0755) != 0) std::abort();
    } else {
        writeFile(path, bytes);
    }
}

bool plainLayout(char layout) { return layout != 'l' && layout != 'p' && layout != 'd'; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (parts.size() < 3) {
        const std::size_t nul = input.find('\0', start);
        if (nul == std::string_view::npos) break;
        parts.push_back(input.substr(start, nul - start));
        start = nul + 1;
    }
    parts.push_back(input.substr(start));
    const std::string_view events = parts[0];
    const std::string_view config = parts.size() > 1 ? parts[1] : "{\"schema_version\": 1}";
    const bool hasSummary = parts.size() > 2;
    const std::string_view layout = parts.size() > 3 ? parts[3] : std::string_view();
    const auto layoutOf = [&](std::size_t i) { return i < layout.size() ? layout[i] : '-'; };

    const std::string& dir = scratchDir();
    put(dir, "events.jsonl", events, true, layoutOf(0));
    put(dir, "config.json", config, true, layoutOf(1));
    put(dir, "summary.json", hasSummary ? parts[2] : "", hasSummary, layoutOf(2));
    const bool allPlain = plainLayout(layoutOf(0)) && plainLayout(layoutOf(1)) &&
                          (!hasSummary || plainLayout(layoutOf(2)));

    ampscope::RunData run;
    try {
        run = ampscope::readRunDirectory(dir);
    } catch (const InputError& error) {
        const std::string what = error.what();
        FUZZ_CHECK(isOneLine(what), what);
        FUZZ_CHECK(what.rfind(dir, 0) == 0, what);
        if (!plainLayout(layoutOf(0))) {
            // The follower meets the same events.jsonl: refused, not read, not waited on.
            try {
                ampscope::RunFollower follower(dir);
                follower.poll(64);
                FUZZ_CHECK(false, "the follower read an events.jsonl that is not a plain file");
            } catch (const InputError& followError) {
                FUZZ_CHECK(isOneLine(followError.what()), followError.what());
            }
        }
        return 0;
    }
    FUZZ_CHECK(allPlain, "a run directory whose files are not plain files of its own loaded");
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
