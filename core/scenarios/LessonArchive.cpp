#include "scenarios/LessonArchive.h"

#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <vector>

#include "common/InputError.h"
#include "scenarios/LessonFolder.h"
#include "scenarios/LessonLimits.h"
#include "scenarios/ZipArchive.h"

namespace ampscope {
namespace {

namespace fs = std::filesystem;

constexpr const char* kScenarioFile = "scenario.json";

// A member's name as the parts of a relative path, or empty when it is not one: absolute,
// with "..", "." or an empty part, or a backslash (a Windows separator, which a tool on
// Windows would follow). A directory's trailing '/' is allowed.
std::vector<std::string> safeParts(const std::string& name) {
    if (name.empty() || name.front() == '/' || name.find('\\') != std::string::npos ||
        name.find('\0') != std::string::npos)
        return {};
    std::vector<std::string> parts;
    std::size_t start = 0;
    const std::size_t end = name.back() == '/' ? name.size() - 1 : name.size();
    while (start <= end) {
        const std::size_t slash = std::min(name.find('/', start), end);
        const std::string part = name.substr(start, slash - start);
        if (part.empty() || part == "." || part == "..") return {};
        parts.push_back(part);
        start = slash + 1;
    }
    return parts;
}

std::string makeTemporaryFolder() {
    std::error_code error;
    std::string pattern = (fs::temp_directory_path(error) / "ampscope-lesson-XXXXXX").string();
    if (error || mkdtemp(pattern.data()) == nullptr)
        throw InputError("cannot make a temporary folder to unpack the lesson file into");
    return pattern;
}

// The lesson folder inside the unpacked tree: its top, or the one folder at its top.
std::string lessonRoot(const std::string& lessonFile, const fs::path& top, const std::set<std::string>& tops,
                       const std::set<std::string>& files) {
    if (files.count(kScenarioFile)) return top.string();
    if (tops.size() == 1 && files.count(*tops.begin() + "/" + kScenarioFile)) return (top / *tops.begin()).string();
    throw InputError(lessonFile + ": holds no scenario.json (a lesson file is a lesson folder zipped: scenario.json "
                                  "at its top, or in its one top folder)");
}

// The top folder's name in a packed lesson: the lesson's name in characters every file
// system and unzip tool takes as one plain name (a name is any one line of text).
std::string folderNameFor(const std::string& lessonName) {
    std::string name;
    for (const char c : lessonName) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                           c == '_' || c == '.';
        name.push_back(plain ? c : '-');
    }
    if (name.empty() || name.find_first_not_of('.') == std::string::npos) return "lesson";
    return name;
}

}  // namespace

bool isLessonFile(const std::string& path) {
    std::error_code error;
    return fs::is_regular_file(path, error);
}

UnpackedLesson::UnpackedLesson(const std::string& lessonFile) {
    const zip::ReadLimits limits{lesson_limits::kMaxLessonFileBytes, lesson_limits::kMaxLessonFileMembers,
                                 lesson_limits::kMaxLessonFileContentBytes,
                                 lesson_limits::kMaxLessonFileContentBytes};
    const std::vector<zip::Member> members = zip::readArchive(lessonFile, limits);

    // Every name is checked before the first file is written.
    std::set<std::string> files;
    std::set<std::string> tops;
    for (const zip::Member& member : members) {
        const std::vector<std::string> parts = safeParts(member.name);
        if (parts.empty())
            throw InputError(lessonFile + ": member \"" + member.name +
                             "\" is not a path inside the lesson (absolute, \"..\", \".\" or \"\\\")");
        const bool directory = member.name.back() == '/';
        std::string path = parts.front();
        for (std::size_t i = 1; i < parts.size(); ++i) path += "/" + parts[i];
        if (!directory && !files.insert(path).second)
            throw InputError(lessonFile + ": member \"" + member.name + "\" appears twice");
        if (directory || parts.size() > 1) tops.insert(parts.front());
    }

    temporary_ = makeTemporaryFolder();
    try {
        const fs::path top(temporary_);
        for (const zip::Member& member : members) {
            const fs::path target = top / fs::path(member.name).relative_path();
            std::error_code error;
            if (member.name.back() == '/') {
                fs::create_directories(target, error);
            } else {
                fs::create_directories(target.parent_path(), error);
                if (!error) {
                    std::ofstream out(target, std::ios::binary | std::ios::trunc);
                    out << member.bytes;
                    out.close();
                    if (!out) error = std::make_error_code(std::errc::io_error);
                }
            }
            if (error)
                throw InputError(lessonFile + ": member \"" + member.name + "\" cannot be unpacked (" +
                                 error.message() + ")");
        }
        folder_ = lessonRoot(lessonFile, top, tops, files);
    } catch (...) {
        std::error_code ignored;
        fs::remove_all(temporary_, ignored);
        throw;
    }
}

UnpackedLesson::~UnpackedLesson() {
    std::error_code ignored;
    fs::remove_all(temporary_, ignored);
}

void packLesson(const std::string& folder, const std::string& lessonFile) {
    const Scenario lesson = loadLessonFolder(folder);
    const fs::path root(lesson.folder);
    const std::string top = folderNameFor(lesson.name);
    std::vector<zip::Member> members;
    std::uintmax_t total = 0;
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(root, error); !error && it != fs::recursive_directory_iterator();
         it.increment(error)) {
        const fs::path relative = it->path().lexically_relative(root);  // not through a link
        if (it->is_symlink(error))
            throw InputError(folder + ": " + relative.string() +
                             " is a symbolic link; a lesson file holds the lesson's own files only");
        if (it->is_directory(error)) continue;
        if (!it->is_regular_file(error))
            throw InputError(folder + ": " + relative.string() + " is not a regular file");
        total += it->file_size(error);
        if (members.size() + 1 > lesson_limits::kMaxLessonFileMembers || total > lesson_limits::kMaxLessonFileContentBytes)
            throw InputError(folder + ": too large for a lesson file (at most " +
                             std::to_string(lesson_limits::kMaxLessonFileMembers) + " files and " +
                             std::to_string(lesson_limits::kMaxLessonFileContentBytes / (1024 * 1024)) + " MiB)");
        std::ifstream in(it->path(), std::ios::binary);
        std::string bytes(std::istreambuf_iterator<char>(in), {});
        if (in.bad()) throw InputError(folder + ": " + relative.string() + " cannot be read");
        members.push_back({top + "/" + relative.generic_string(), std::move(bytes)});
    }
    if (error) throw InputError(folder + ": cannot be listed (" + error.message() + ")");
    // Sorted, so that the same folder makes the same bytes whatever order the disk lists.
    std::sort(members.begin(), members.end(),
              [](const zip::Member& a, const zip::Member& b) { return a.name < b.name; });
    zip::writeArchive(lessonFile, members);
}

}  // namespace ampscope
