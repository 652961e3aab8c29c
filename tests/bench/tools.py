"""The senders compared by the benchmark, each behind the same interface.

A Load says what to send; each tool turns it into its own command lines,
says when its receiver is ready, and counts what its receiver logged. The
counting never trusts the sender: packets on the wire come from wiretap,
packets received from the receiver's own log (ITGDec for D-ITG, itg-dec
--json for libitg), wherever it was written (locally or by the log server),
or the receiver's own count when it logs nothing (itg-recv, bare loop,
blaster).
"""
import json
import os
import re
import shutil
import signal
import subprocess
from dataclasses import dataclass

from procs import tcp_listening, udp_bound

# What "as fast as possible" asks of a paced sender: far above what any
# machine the benchmark runs on can send, so the sender never waits.
MAX_REQUEST_PPS = 1000000

# How a run logs: not at all, to local files, or shipped over TCP or UDP
# to a log server (itg-log for libitg, ITGLog for D-ITG).
LOG_MODES = ("none", "local", "tcp", "udp")
REMOTE_LOGS = ("tcp", "udp")
# The names the two logs get on the log server: every remote-logging run
# has a server and a folder of its own, so fixed names cannot collide.
REMOTE_SEND_LOG, REMOTE_RECV_LOG = "send.log", "recv.log"


@dataclass
class Load:
    """What one run sends."""
    idt: list            # IDT option words in D-ITG's syntax, e.g. ["-C", "1000"]
    rate: float          # requested pkt/s (mean); None: as fast as possible
    seconds: float
    size: int = 64
    log_batch: int = None  # D (-q): records per log write, None: the default
    flows: int = 1       # > 1: a script of that many identical flows
    log: str = "local"   # one of LOG_MODES
    log_port: int = None  # the log server's port, for remote logging

    def ms(self):
        return str(int(round(self.seconds * 1000)))


def _flow_words(load, sig, data):
    """One flow's options, the same words for D-ITG and libitg."""
    return ["-a", "127.0.0.1", "-Sdp", str(sig), "-rp", str(data)] + \
        [str(w) for w in load.idt] + ["-c", str(load.size), "-t", load.ms()]


def _batch_words(load):
    """-q D when the load sets D and logs: without a log there is nothing
    to batch."""
    return ["-q", load.log_batch] if load.log_batch and load.log != "none" else []


def _write_script(path, load, sig, data):
    with open(path, "w") as f:
        for _ in range(load.flows):
            f.write(" ".join(_flow_words(load, sig, data)) + "\n")


def _last_int(pattern, text):
    found = re.findall(pattern, text)
    return int(found[-1]) if found else None


class Tool:
    """The interface; the defaults fit a receiver with a TCP signaling port."""
    key = ""
    name = ""
    stop_signal = signal.SIGTERM
    tap_margin_s = 1.0   # set-up before the first packet and after the last
    sender_grace_s = 4.0  # beyond load.seconds before the sender is stopped

    def unsupported(self, load):
        """Why this tool cannot send load (a note), or None."""
        return None

    def receiver_argv(self, sig, data, log, load, life_s):
        raise NotImplementedError

    def receiver_ready(self, proc, sig, data):
        return tcp_listening(sig)

    def sender_argv(self, sig, data, log, load, script):
        raise NotImplementedError

    def stop_receiver(self, proc):
        return proc.stop(self.stop_signal, 10.0)

    def logged(self, log, recv_proc):
        """Packets in the log at path log (a receiver's or a sender's), or,
        with log None (a receiver that logs nothing), the receiver's own
        count; None if it cannot tell."""
        raise NotImplementedError


class LoggingTool(Tool):
    """A tool that can also ship its logs to a log server of its own kind."""
    log_server_port = None  # the one port its server takes; None: any

    def log_server_argv(self, port, folder):
        """The log server's command line; it runs in folder and writes its
        files there."""
        raise NotImplementedError

    def log_server_idle(self, output):
        """True when every log session the server's output shows opened
        has ended (its files are whole)."""
        raise NotImplementedError

    def unsupported(self, load):
        if load.log in REMOTE_LOGS and load.flows > 1:
            return "remote logging is measured with one flow"
        return None


class Ditg(LoggingTool):
    key = "ditg"
    name = "D-ITG"
    stop_signal = signal.SIGINT  # ITGRecv and ITGLog flush their logs on Ctrl-C
    tap_margin_s = 1.5
    # ITGLog has no option for its port, and ITGSend's -L/-X take none.
    log_server_port = 9001  # fixed port: ITGLog's only one

    def __init__(self):
        self.send, self.recv, self.dec, self.log = (shutil.which(n) for n in
                                                    ("ITGSend", "ITGRecv", "ITGDec", "ITGLog"))

    def available(self):
        return all((self.send, self.recv, self.dec))

    def version(self):
        out = subprocess.run([self.send, "-h"], capture_output=True, text=True, timeout=10)
        m = re.search(r"ITGSend version (\S+)", out.stdout + out.stderr)
        return "D-ITG " + (m.group(1) if m else "?")

    def receiver_argv(self, sig, data, log, load, life_s):
        argv = [self.recv, "-Sp", sig] + (["-l", log] if load.log == "local" else [])
        return argv + _batch_words(load)

    def sender_argv(self, sig, data, log, load, script):
        if load.flows > 1:
            _write_script(script, load, sig, data)
            argv = [self.send, script]
        else:
            argv = [self.send] + _flow_words(load, sig, data)
        if load.log == "local":
            argv += ["-l", log]
        elif load.log in REMOTE_LOGS:
            proto = load.log.upper()
            argv += ["-L", "127.0.0.1", proto, "-l", REMOTE_SEND_LOG,
                     "-X", "127.0.0.1", proto, "-x", REMOTE_RECV_LOG]
        return argv + _batch_words(load)

    def log_server_argv(self, port, folder):
        return [self.log]

    def log_server_idle(self, output):
        return output.count("Name Log File") == output.count("Data transmission ended")

    def logged(self, log, recv_proc):
        # ITGRecv without a log counts nothing it tells.
        if log is None or not os.path.exists(log):
            return None
        out = subprocess.run([self.dec, log], capture_output=True, timeout=120)
        text = (out.stdout + out.stderr).decode("utf-8", "replace")
        return _last_int(r"Total packets\s*=\s*(\d+)", text)


class Libitg(LoggingTool):
    key = "libitg"
    tap_margin_s = 1.0

    def __init__(self, bindir, wait="hybrid", catchup=None, start=None):
        """wait: itg-send's --wait; catchup: its --catchup and start its
        --start, None for the default."""
        self.send, self.recv, self.dec, self.log = (os.path.join(bindir, n) for n in
                                                    ("itg-send", "itg-recv", "itg-dec", "itg-log"))
        self.wait = wait
        self.catchup = catchup
        self.start = start
        self.key = "-".join(["libitg"] + ([wait] if wait != "hybrid" else []) +
                            [w for w in (catchup, start) if w])
        self.name = self.key
        self._help = {}

    def available(self):
        return all(os.access(p, os.X_OK) for p in (self.send, self.recv, self.dec))

    def version(self):
        out = subprocess.run([self.send, "--version"], capture_output=True, text=True, timeout=10)
        line = (out.stdout or out.stderr).strip().splitlines()
        return line[0] if line else "libitg ?"

    def _has_option(self, program, word):
        """True if program's --help mentions the option word."""
        if program not in self._help:
            out = subprocess.run([program, "--help"], capture_output=True, text=True, timeout=10)
            self._help[program] = out.stdout + out.stderr
        return re.search(r"(^|[\s,\[])" + re.escape(word) + r"\b", self._help[program]) is not None

    def unsupported(self, load):
        if load.log_batch and not (self._has_option(self.send, "-q") and self._has_option(self.recv, "-q")):
            return "itg-send/itg-recv --help shows no -q (log batch)"
        return super().unsupported(load)

    def receiver_argv(self, sig, data, log, load, life_s):
        argv = [self.recv, "-Sp", sig] + (["-l", log] if load.log == "local" else [])
        return argv + _batch_words(load)

    def sender_argv(self, sig, data, log, load, script):
        argv = [self.send, "--wait", self.wait] + _batch_words(load)
        if self.catchup:
            argv += ["--catchup", self.catchup]
        if self.start:
            argv += ["--start", self.start]
        flow_tail = []
        if load.log == "local":
            argv += ["-l", log]
        elif load.log in REMOTE_LOGS:
            server, proto = f"127.0.0.1:{load.log_port}", load.log.upper()
            argv += ["-L", server, proto, "-l", REMOTE_SEND_LOG]
            flow_tail = ["-X", server, proto, "-x", REMOTE_RECV_LOG]
        if load.flows > 1:
            _write_script(script, load, sig, data)
            return argv + ["-F", script]
        return argv + _flow_words(load, sig, data) + flow_tail

    def log_server_argv(self, port, folder):
        return [self.log, "-p", port, "-d", folder]

    def log_server_idle(self, output):
        opened = len(re.findall(r"session \d+ from", output))
        return opened == len(re.findall(r"session \d+ (?:closed|ended incomplete)", output))

    def logged(self, log, recv_proc):
        if log is None:
            return _last_int(r"(\d+) packets, \d+ bytes, \d+ malformed", recv_proc.output())
        if not os.path.exists(log):
            return None
        out = subprocess.run([self.dec, "--json", log], capture_output=True, text=True, timeout=120)
        try:
            return int(json.loads(out.stdout)["end"]["total"]["packets"])
        except (ValueError, KeyError, TypeError):
            return None


class Bare(Tool):
    """tests/bench/bare_loop.c: constant rate or no pacing, no log."""
    key = "bare"
    name = "bare loop"
    tap_margin_s = 0.7

    def __init__(self, path):
        self.path = path

    def available(self):
        return os.access(self.path, os.X_OK)

    def version(self):
        return "bare_loop (tests/bench/bare_loop.c)"

    def unsupported(self, load):
        if load.log_batch or (load.rate is not None and load.idt[0] != "-C"):
            return "the bare loop sends constant-rate flows and logs nothing"
        return None

    def receiver_argv(self, sig, data, log, load, life_s):
        return [self.path, "sink", data, life_s]

    def receiver_ready(self, proc, sig, data):
        return "ready" in proc.output()

    def sender_argv(self, sig, data, log, load, script):
        return [self.path, "send", data, load.rate or 0, load.seconds, load.size, load.flows]

    def logged(self, log, recv_proc):
        return _last_int(r"received (\d+)", recv_proc.output())


class Spin(Bare):
    """tests/bench/bare_loop.c spin: many flows spread over their period,
    each departure spun for, no log; what the machine lets a sender with
    no library do."""
    key = "spin"
    name = "spin loop"

    def version(self):
        return "bare_loop spin (tests/bench/bare_loop.c)"

    def unsupported(self, load):
        if load.rate is None:
            return "the spin loop sends at a rate"
        return super().unsupported(load)

    def sender_argv(self, sig, data, log, load, script):
        return [self.path, "spin", data, load.rate, load.seconds, load.size, load.flows]


class Blaster(Tool):
    """tests/tools/blaster.c: the machine's ceiling, send() or sendmmsg."""
    tap_margin_s = 0.7

    def __init__(self, path, batch):
        self.path = path
        self.batch = batch
        self.key = f"blaster{batch}"
        self.name = "blaster sendmmsg x%d" % batch if batch > 1 else "blaster send()"

    def available(self):
        return os.access(self.path, os.X_OK)

    def version(self):
        return "blaster (tests/tools/blaster.c)"

    def unsupported(self, load):
        if load.rate is not None or load.flows > 1 or load.log_batch:
            return "blaster only sends as fast as it can"
        return None

    def receiver_argv(self, sig, data, log, load, life_s):
        # The sink cannot be stopped cleanly: it must end on its own just
        # after the capture, which the caller's life_s allows for.
        return [self.path, "sink", data, load.seconds + self.tap_margin_s + 0.3]

    def receiver_ready(self, proc, sig, data):
        return udp_bound(data)

    def sender_argv(self, sig, data, log, load, script):
        return [self.path, "send", data, load.seconds, load.size, self.batch]

    def stop_receiver(self, proc):
        proc.wait(5.0)
        return proc.stop(signal.SIGTERM, 1.0)

    def logged(self, log, recv_proc):
        return _last_int(r"sink received (\d+)", recv_proc.output())
