#include "run/RemoteFollowScript.h"

#include <algorithm>
#include <cstdio>

namespace ampscope {
namespace {

// The request arrives as the first lines; below them the program, which reads nothing
// else. Every pass costs one `wc` per open run; new bytes cost a tail | head.
constexpr std::string_view kProgram = R"SH(
nl='
'
LC_ALL=C
export LC_ALL
say() { printf '%s\n' "$1"; }

# Exactly $3 bytes of file $1 from byte $2: the framing must hold even if the file
# changed under us, so a short read is padded with zeros.
send_bytes() {
  { tail -c "+$(($2 + 1))" "$1" 2>/dev/null; cat /dev/zero; } | head -c "$3"
}

# 0 for a plain file, 1 when there is none; a link or a FIFO ends the session.
check_plain() {
  if [ -L "$3" ]; then say "ERROR link $1 $2"; exit 0; fi
  [ -e "$3" ] || return 1
  [ -f "$3" ] || { say "ERROR notplain $1 $2"; exit 0; }
}

send_file() {
  check_plain "$1" "$3" "$2$3" || return 1
  [ -r "$2$3" ] || { say "ERROR denied $1 $3"; exit 0; }
  bytes=$(wc -c < "$2$3" 2>/dev/null)
  bytes=$((${bytes:-0} + 0))
  say "FILE $1 $3 $bytes"
  send_bytes "$2$3" 0 "$bytes"
}

list_runs() {
  if [ -f config.json ] || [ -L config.json ]; then runs=.; return; fi
  runs=
  for d in *; do
    case $d in [A-Za-z0-9_]*) ;; *) continue ;; esac
    case $d in *[!A-Za-z0-9._-]*) continue ;; esac
    if [ -d "$d" ] && [ ! -L "$d" ] && [ -f "$d/config.json" ]; then runs="$runs $d"; fi
  done
}

# state: one line per run, "RUN OFFSET FLAGS": bytes of events.jsonl sent, and the files
# sent (c config.json, n narrative.md, s summary.json).
get_state() {
  case $state in
    *"$nl$1 "*)
      rest=${state#*"$nl$1 "}
      rest=${rest%%"$nl"*}
      off=${rest%% *}
      flags=${rest#* } ;;
    *) off=0; flags=- ;;
  esac
}

pass() {
  list_runs
  [ -n "$runs" ] || { say "ERROR norun"; exit 0; }
  next=$nl
  busy=0
  open=0
  for r in $runs; do
    get_state "$r"
    if [ "$r" = . ]; then p=; else p="$r/"; fi
    case $flags in
      *c*) ;;
      *) say "RUN $r"; if send_file "$r" "$p" config.json; then flags="${flags}c"; fi ;;
    esac
    case $flags in
      *n*) ;;
      *) if send_file "$r" "$p" narrative.md; then flags="${flags}n"; fi ;;
    esac
    case $flags in
      *s*) next="$next$r $off $flags$nl"; continue ;;
    esac
    # summary.json is looked for before events.jsonl is measured: the writer flushes
    # every event before it renames the summary into place.
    ended=0
    if [ -f "${p}summary.json" ]; then ended=1; fi
    size=0
    if check_plain "$r" events.jsonl "${p}events.jsonl"; then
      [ -r "${p}events.jsonl" ] || { say "ERROR denied $r events.jsonl"; exit 0; }
      size=$(wc -c < "${p}events.jsonl" 2>/dev/null)
      size=$((${size:-0} + 0))
      if [ "$size" -lt "$off" ]; then say "SHRANK $r $size"; off=$size; fi
      if [ "$size" -gt "$off" ]; then
        n=$((size - off))
        if [ "$n" -gt "$chunk" ]; then n=$chunk; busy=1; fi
        say "DATA $r $off $n"
        send_bytes "${p}events.jsonl" "$off" "$n"
        off=$((off + n))
      fi
    fi
    if [ "$ended" = 1 ] && [ "$off" -ge "$size" ] && send_file "$r" "$p" summary.json; then
      flags="${flags}s"
    else
      open=1
    fi
    next="$next$r $off $flags$nl"
  done
  state=$next
}

main() {
  say "AMPSCOPE-FOLLOW 1"
  if [ ! -e "$dir" ] && [ ! -L "$dir" ]; then say "ERROR nodir"; exit 0; fi
  [ -d "$dir" ] || { say "ERROR notdir"; exit 0; }
  cd -- "$dir" 2>/dev/null || { say "ERROR denied"; exit 0; }
  [ -r . ] || { say "ERROR denied"; exit 0; }
  synced=0
  while :; do
    pass
    if [ "$busy" = 0 ]; then
      if [ "$synced" = 0 ]; then say SYNCED; synced=1; fi
      if [ "$open" = 0 ]; then say DONE; exit 0; fi
      if [ "$follow" = 0 ]; then say END; exit 0; fi
      say TICK
      sleep "$poll" 2>/dev/null || sleep 1
    fi
  done
}

main </dev/null
)SH";

// A word sh reads back unchanged: single quotes, each ' written as '\''.
std::string shellQuoted(const std::string& text) {
    std::string out = "'";
    for (char c : text) {
        if (c == '\'') {
            out += "'\\''";
        } else {
            out += c;
        }
    }
    return out + "'";
}

}  // namespace

bool isRemoteRunName(std::string_view name) {
    if (name == ".") return true;
    if (name.empty() || name.size() > 255) return false;
    const auto wordChar = [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    };
    if (!wordChar(name.front())) return false;
    return std::all_of(name.begin(), name.end(),
                       [&](char c) { return wordChar(c) || c == '.' || c == '-'; });
}

std::string remoteFollowScript(const RemoteFollowRequest& request) {
    std::string state = "\n";
    for (const RemoteRunResume& run : request.resume) {
        if (!isRemoteRunName(run.run)) continue;
        std::string flags = "-";
        if (run.haveConfig) flags += 'c';
        if (run.haveNarrative) flags += 'n';
        if (run.haveSummary) flags += 's';
        state += run.run + " " + std::to_string(run.eventsBytes) + " " + flags + "\n";
    }
    char poll[32];
    std::snprintf(poll, sizeof poll, "%.3f", std::max(0.01, request.pollSeconds));
    std::string script = "# AmpScope: following a run directory (POSIX sh and coreutils)\n";
    script += "dir=" + shellQuoted(request.path) + "\n";
    script += std::string("follow=") + (request.follow ? "1" : "0") + "\n";
    script += std::string("poll=") + poll + "\n";
    script += "chunk=" + std::to_string(remote_follow::kChunkBytes) + "\n";
    script += "state=" + shellQuoted(state) + "\n";
    script += kProgram;
    return script;
}

}  // namespace ampscope
