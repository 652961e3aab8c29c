"""Child processes of the benchmark, each bounded in time.

Every program the benchmark starts is a Proc: it has a deadline, runs in a
session of its own (so that stopping it reaches only what it started), has
its output in a file, and is reaped with wait4 so that its CPU time (user +
system, every thread) is known exactly. Nothing outlives the run:
stop_all() ends whatever is still alive, by process id.
"""
import os
import signal
import socket
import subprocess
import time

_LIVE = []


class Proc:
    """A program started now, with its combined output in out_path; cwd:
    where it runs (the files it names without a folder land there)."""

    def __init__(self, argv, out_path, deadline_s, cwd=None):
        self.argv = [str(a) for a in argv]
        self.out_path = str(out_path)
        with open(self.out_path, "wb") as out:
            self._p = subprocess.Popen(self.argv, stdout=out, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True, cwd=cwd)
        self.pid = self._p.pid
        self.start = time.monotonic()
        self.deadline = self.start + deadline_s
        self.rc = None       # exit code, or minus the signal that ended it
        self.cpu_s = None    # user + system seconds, every thread
        self.wall_s = None
        self.killed = False  # it had to be killed
        _LIVE.append(self)

    def _reaped(self, status, usage):
        self.rc = os.waitstatus_to_exitcode(status)
        self.cpu_s = usage.ru_utime + usage.ru_stime
        self.wall_s = time.monotonic() - self.start
        # Popen must not try to reap a process that wait4 already did.
        self._p.returncode = self.rc
        if self in _LIVE:
            _LIVE.remove(self)

    def poll(self):
        """Returns the exit code, or None while it runs."""
        if self.rc is None:
            pid, status, usage = os.wait4(self.pid, os.WNOHANG)
            if pid:
                self._reaped(status, usage)
        return self.rc

    def wait(self, timeout_s=None):
        """Waits for the end, at most until the deadline (or timeout_s);
        returns the exit code or None if it still runs."""
        limit = self.deadline
        if timeout_s is not None:
            limit = min(limit, time.monotonic() + timeout_s)
        while self.poll() is None and time.monotonic() < limit:
            time.sleep(0.005)
        return self.rc

    def stop(self, sig=signal.SIGTERM, grace_s=5.0):
        """Sends sig, waits up to grace_s, then kills its whole session;
        returns the exit code."""
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass
            end = time.monotonic() + grace_s
            while self.poll() is None and time.monotonic() < end:
                time.sleep(0.005)
        if self.rc is None:
            self.killed = True
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _, status, usage = os.wait4(self.pid, 0)
            self._reaped(status, usage)
        return self.rc

    def output(self):
        """Its output so far, as text."""
        with open(self.out_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def tail(self, n=2):
        """Its last n non-empty output lines, on one line (for notes)."""
        lines = [l.strip() for l in self.output().splitlines() if l.strip()]
        return " / ".join(lines[-n:])[:200]


def stop_all():
    """Kills every Proc still alive (an interrupted or failed run)."""
    for p in list(_LIVE):
        p.stop(signal.SIGKILL, 0.5)


def wait_until(pred, timeout_s, step_s=0.01):
    """Polls pred until it is true or timeout_s passes; returns its value."""
    end = time.monotonic() + timeout_s
    while True:
        v = pred()
        if v or time.monotonic() >= end:
            return v
        time.sleep(step_s)


def _sockets(kinds):
    """(local port, state) of every socket of the given /proc/net tables."""
    out = []
    for kind in kinds:
        try:
            with open(f"/proc/net/{kind}") as f:
                next(f)
                for line in f:
                    fields = line.split()
                    out.append((int(fields[1].rsplit(":", 1)[1], 16), fields[3]))
        except FileNotFoundError:
            continue
    return out


def tcp_listening(port):
    """True if some socket listens on TCP port (state 0A in /proc/net)."""
    return any(p == port and st == "0A" for p, st in _sockets(("tcp", "tcp6")))


def udp_bound(port):
    """True if some socket is bound to UDP port."""
    return any(p == port for p, _ in _sockets(("udp", "udp6")))


def port_busy(port):
    """True if any TCP or UDP socket (any state) holds port."""
    return any(p == port for p, _ in _sockets(("tcp", "tcp6", "udp", "udp6")))


def _system_port(kind):
    """A port the system picks for a socket of kind bound to port 0 on every
    address; free at this moment, for a tool that cannot take port 0."""
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def port_pair():
    """A (signaling, data) pair of ports the system picked, neither held by
    any socket of either transport, so that runs on one machine never
    collide and a run never reuses a port the previous one may still hold
    (a TCP TIME_WAIT, a receiver that is slow to close)."""
    for _ in range(100):
        sig, data = _system_port(socket.SOCK_STREAM), _system_port(socket.SOCK_DGRAM)
        if sig != data and not port_busy(sig) and not port_busy(data):
            return sig, data
    raise RuntimeError("the system gave no free port pair in 100 tries")
