"""Writes one run directory the way core/run/RunWriter.cpp does (EventSchema.md).

- The directory is claimed by creating events.jsonl exclusively (O_EXCL): a second
  writer, or a new run into a directory that holds one, is refused; an old run is
  never appended to.
- config.json and summary.json are written atomically (temp file in the directory,
  fsync, rename, fsync of the directory).
- run_start is written at once; later records are buffered as whole lines and handed
  to write(2) when the buffer reaches FLUSH_BYTES, when flush_if_due() finds
  FLUSH_INTERVAL_SECONDS passed since the last write, and on flush()/close(). A killed
  process therefore loses at most the last 200 ms of records and never leaves half a
  line (short of a crash inside write(2), which readers tolerate as a torn last line).
- A failed write (disk full, I/O error) raises RunWriteError naming the file and the
  reason, once; the buffered lines are dropped and a partly written line is cut away,
  so what was written stays readable. Later appends are ignored, not raised again.
"""
import errno
import itertools
import json
import math
import os
import time

from . import schema

_temp_counter = itertools.count()


class RunWriteError(OSError):
    """Writing the run directory failed after it was opened (the disk, not the input)."""


def dump_record(record):
    """One record as compact JSON text, keys sorted, as nlohmann's writer spells it."""
    return json.dumps(record, separators=(",", ":"), sort_keys=True, ensure_ascii=False,
                      allow_nan=False, default=_json_default)


def _json_default(value):
    # Numbers that reach here are torch/numpy scalars: plain numbers in JSON.
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def utc_now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _sync_directory(path):
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on a directory
    finally:
        os.close(fd)


def write_json_atomically(path, document):
    """document (indented, trailing newline) to path: the old file or the whole new one."""
    temp = f"{path}.tmp-{os.getpid()}-{next(_temp_counter)}"
    text = (json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False,
                       allow_nan=False, default=_json_default) + "\n").encode("utf-8")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    except OSError as error:
        raise RunWriteError(error.errno, f"{path}: write failed ({os.strerror(error.errno)})")
    try:
        _write_all(fd, text)
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.rename(temp, path)
    except OSError as error:
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise RunWriteError(error.errno, f"{path}: write failed ({os.strerror(error.errno)})")
    _sync_directory(os.path.dirname(path) or ".")


class RunWriter:
    def __init__(self, directory, config, run_start_fields=None):
        self.directory = directory
        self.events_path = os.path.join(directory, schema.EVENTS_FILE)
        self._buffer = []
        self._buffered_bytes = 0
        self._committed = 0
        self._fd = -1
        self.failure = None
        self._closed = False
        self._open(config, run_start_fields or {})

    def _open(self, config, run_start_fields):
        if os.path.exists(self.directory) and not os.path.isdir(self.directory):
            raise ValueError(f"{self.directory}: exists and is not a directory")
        try:
            os.makedirs(self.directory, exist_ok=True)
        except OSError as error:
            raise ValueError(f"{self.directory}: cannot create ({os.strerror(error.errno)})")
        if os.path.lexists(self.events_path):
            raise ValueError(f"{self.directory}: already holds a run (events.jsonl); "
                             "choose another directory")
        try:
            self._fd = os.open(self.events_path,
                               os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC,
                               0o644)
        except OSError as error:
            if error.errno == errno.EEXIST:
                raise ValueError(f"{self.directory}: already holds a run (events.jsonl); "
                                 "choose another directory")
            raise ValueError(f"{self.directory}: cannot write ({os.strerror(error.errno)})")
        try:
            write_json_atomically(os.path.join(self.directory, schema.CONFIG_FILE), config)
            run_start = dict(run_start_fields)
            run_start.update({"type": schema.RUN_START,
                              "schema_version": schema.EVENTS_SCHEMA_VERSION,
                              "time": utc_now()})
            run_start.setdefault("ampscope_version", "")
            line = (dump_record(run_start) + "\n").encode("utf-8")
            # Written at once, so a follower sees the run begin.
            _write_all(self._fd, line)
            self._committed = len(line)
        except OSError as error:
            # Undo the claim, so the same directory can be retried.
            os.close(self._fd)
            self._fd = -1
            try:
                os.unlink(self.events_path)
            except OSError:
                pass
            raise ValueError(str(error) if isinstance(error, RunWriteError)
                             else f"{self.events_path}: write failed ({os.strerror(error.errno)})")
        self._last_write = time.monotonic()

    def append(self, record):
        """Buffers one record (a dict with a string "type"); raises RunWriteError once."""
        if self._closed or self.failure is not None:
            return
        line = dump_record(record) + "\n"
        self._buffer.append(line)
        self._buffered_bytes += len(line)
        if self._buffered_bytes >= schema.FLUSH_BYTES:
            self._write_buffer()

    def flush_if_due(self):
        if not self._buffer or self.failure is not None or self._closed:
            return False
        if time.monotonic() - self._last_write < schema.FLUSH_INTERVAL_SECONDS:
            return False
        self._write_buffer()
        return True

    def flush(self):
        if self.failure is None and not self._closed:
            self._write_buffer()

    def _write_buffer(self):
        if not self._buffer or self._fd < 0:
            return
        data = "".join(self._buffer).encode("utf-8")
        self._buffer.clear()
        self._buffered_bytes = 0
        try:
            _write_all(self._fd, data)
        except OSError as error:
            self._fail(error)
        self._committed += len(data)
        self._last_write = time.monotonic()

    def _fail(self, error):
        # A short write may have left part of a line: cut the file back to its last
        # whole line (best effort) so readers see a clean end.
        try:
            os.ftruncate(self._fd, self._committed)
        except OSError:
            pass
        code = error.errno if error.errno is not None else errno.EIO
        self.failure = RunWriteError(code, f"{self.events_path}: write failed "
                                           f"({os.strerror(code)})")
        raise self.failure

    def write_summary(self, summary):
        """Flushes and fsyncs the events, then summary.json atomically."""
        if self._fd >= 0 and self.failure is None and not self._closed:
            try:
                self._write_buffer()
                os.fsync(self._fd)
            except RunWriteError:
                pass  # already recorded in self.failure; the summary still says so
        write_json_atomically(os.path.join(self.directory, schema.SUMMARY_FILE), summary)

    def close(self):
        if self._closed:
            return
        try:
            if self.failure is None:
                self._write_buffer()
        finally:
            self._closed = True
            if self._fd >= 0:
                try:
                    os.fsync(self._fd)
                except OSError:
                    pass
                os.close(self._fd)
                self._fd = -1


def finite_or_none(value):
    value = float(value)
    return value if math.isfinite(value) else None
