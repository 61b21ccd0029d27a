#pragma once
// The run directories a command was given, with those named as ssh:// addresses copied
// to this machine first (RemoteRunMirror, one pass: what the remote run holds now), so
// that report, export-csv and export-tfevents read local folders with the readers' own
// checks. The copies are removed when this object goes.
//
// - A remote address that cannot be copied is an InputError with the mirror's one line
//   (unknown host, refused, authentication, no such run directory, ...).
// - Unless quiet, a copy that takes longer than two seconds says how far it got every two
//   seconds (on `progress`: the CLI's stdout, so that stderr keeps its one line for a
//   failure), so a slow link does not look like a hang.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace ampscope {
class RemoteRunMirror;
}

namespace ampscope::app {

class RemoteRunCopies {
public:
    RemoteRunCopies(const std::vector<std::string>& directories, bool quiet, std::FILE* progress);
    ~RemoteRunCopies();

    // The folder to read for each argument, in order: the argument itself, or its copy.
    const std::vector<std::string>& local() const { return local_; }
    // A message about a copy's files, naming the run as the user did (its ssh:// address).
    std::string shown(std::string message) const;

private:
    std::vector<std::unique_ptr<RemoteRunMirror>> mirrors_;
    std::vector<std::string> local_;
    std::vector<std::string> given_;
};

}  // namespace ampscope::app
