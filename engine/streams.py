"""Line I/O for the UCI loop: the stdin reader thread, the stdout writer and the debug log.

``start_reader(stream, on_line)`` starts a thread that reads a binary stream, timestamps
each line as it arrives (a `go`'s clock starts when its line was read) and returns a
queue of ``(time, line, problem)``: ``line`` is None at end of input, ``problem`` a
message for a line that was rejected.  ``on_line(line)`` runs in the reader thread before
a line is queued (and with None at end of input), for commands that must act at once.

``Output`` writes whole lines from any thread (one lock, a flush per line, ASCII with
backslash escapes) and, once ``set_log(path)`` is called, copies input (``<<``), output
(``>>``) and tracebacks (``!!``) to that file.  Nothing here knows the UCI commands.
"""

import os
import queue
import sys
import threading
import time

MAX_LINE_BYTES = 1 << 20        # a longer input line is rejected whole
# Python runs a signal's handler in the main thread only, between two of its bytecodes, and
# a lock wait there is not cut short by a signal the kernel gave another thread (the search
# thread, say): SIGTERM or Ctrl-C could then wait for the next input line.  So the main
# thread waits in slices this long (a lost SIGTERM in 11 of 100 tries with waits that had none)
SIGNAL_SLICE_SECONDS = 0.1


def os_path(path):
    """A file name from a command (a str) as the OS takes it: as it is where the file-system
    encoding can spell it, else, on POSIX, its UTF-8 bytes.  (PyPy under the C locale spells
    file names in ASCII, so 'livres-\xe9/book.bin' could not be opened there; CPython
    switches that locale to UTF-8 itself.)"""
    try:
        path.encode(sys.getfilesystemencoding(), "surrogateescape")
        return path
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape") if os.name == "posix" else path


class _MainThreadWaits:
    """Counts the waits the main thread is in: only there may a signal handler raise
    KeyboardInterrupt (engine.uci), since everywhere else it could land halfway through
    making something (a shared memory block, a thread) that then nobody ends."""

    def __init__(self):
        self.depth = 0

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self.depth += 1

    def __exit__(self, *exc):
        if threading.current_thread() is threading.main_thread():
            self.depth -= 1


main_thread_waits = _MainThreadWaits()


def wait_in_slices(event, timeout=None):
    """``event.wait(timeout)``, made of waits of at most SIGNAL_SLICE_SECONDS so that a
    signal's handler can run in between (and interrupt it: see _MainThreadWaits); True
    once the event is set."""
    with main_thread_waits:
        if timeout is None:
            while not event.wait(SIGNAL_SLICE_SECONDS):
                pass
            return True
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return event.is_set()
            if event.wait(min(left, SIGNAL_SLICE_SECONDS)):
                return True


def raw_lines(stream):
    """(bytes line, too_long) pairs from a binary stream until end of input.

    Reads the file descriptor with os.read when there is one: a thread blocked in a
    buffered readline() holds the buffer's lock and would abort interpreter shutdown.
    """
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        fd = None

    def chunks():
        while True:
            try:
                data = os.read(fd, 65536) if fd is not None else stream.read1(65536)
            except InterruptedError:
                continue
            except (OSError, ValueError):
                return
            if not data:
                return
            yield data

    buf = b""
    skipping = False            # inside a line that is too long, up to its newline
    for data in chunks():
        buf += data
        start = 0
        while True:
            end = buf.find(b"\n", start)
            if end < 0:
                break
            if skipping:
                skipping = False
            else:
                yield buf[start:end + 1], False
            start = end + 1
        buf = buf[start:]
        if len(buf) > MAX_LINE_BYTES:
            if not skipping:
                yield b"", True
            skipping = True
            buf = b""
    if buf and not skipping:
        yield buf, False


def _read_lines(stream, lines, on_line):
    first = True
    for raw, too_long in raw_lines(stream):
        now = time.perf_counter()
        if too_long:
            lines.put((now, "", "input line too long (more than %d bytes), ignored"
                       % MAX_LINE_BYTES))
            continue
        line = raw.decode("utf-8", "replace")
        if first:
            # a byte-order mark (Windows tools write one at the start of a file) is no command
            line = line[1:] if line.startswith("\ufeff") else line
            first = False
        if on_line is not None:
            on_line(line)
        lines.put((now, line, None))
    if on_line is not None:
        on_line(None)
    lines.put((time.perf_counter(), None, None))


def start_reader(stream, on_line=None):
    """Read ``stream`` in a daemon thread; the queue of (time, line, problem) it fills."""
    lines = queue.Queue()
    threading.Thread(target=_read_lines, args=(stream, lines, on_line), name="basilisk-input",
                     daemon=True).start()
    return lines


class Output:
    """Line-at-a-time writer shared by the threads: one lock, a flush per line."""

    def __init__(self, stream=None):
        stream = stream or sys.stdout
        self.binary = getattr(stream, "buffer", None)
        self.text = stream
        self.lock = threading.Lock()
        self.log_file = None
        self.log_name = ""
        self.broken = False

    def write_lines(self, lines):
        data = "".join(line + "\n" for line in lines)
        with self.lock:
            if self.broken:
                return
            try:
                if self.binary is not None:
                    self.binary.write(data.encode("ascii", "backslashreplace"))
                    self.binary.flush()
                else:
                    self.text.write(data)
                    self.text.flush()
            except (OSError, ValueError):   # the GUI went away: nothing left to tell it
                self.broken = True
            if self.log_file is not None:
                self._log(">> ", lines)

    def _log(self, prefix, lines):
        # the caller holds self.lock
        try:
            for line in lines:
                self.log_file.write(prefix + line + "\n")
            self.log_file.flush()
        except (OSError, ValueError):
            pass

    def set_log(self, path):
        """Copy everything to the file at path from now on (appending); '' or None: stop.
        A file that cannot be opened raises OSError and leaves the current log as it was."""
        new_file = open(os_path(path), "a", encoding="utf-8") if path else None
        with self.lock:
            if self.log_file is not None:
                try:
                    self.log_file.close()
                except OSError:
                    pass
            self.log_file = new_file
            self.log_name = path if path else ""

    @property
    def log_path(self):
        """The file the log goes to ('' when there is none)."""
        return self.log_name

    def log_input(self, line):
        self.log_lines("<< ", [line.rstrip("\r\n")])

    def log_lines(self, prefix, lines):
        """Lines for the debug log only (nothing happens without one)."""
        if self.log_file is not None:
            with self.lock:
                if self.log_file is not None:
                    self._log(prefix, lines)
