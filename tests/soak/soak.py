#!/usr/bin/env python3
"""The hostile soak: itg-recv and itg-log under a hostile mix while a
legitimate UDP flow and a TCP flow run.

    soak.py BIN_DIR SECONDS [WORK_DIR]

First a quiet run: the two flows alone, which gives the reference delays
and the programs' memory and descriptors. Then the hostile run: the same
flows again while, for the whole run,
  - random datagrams hit the flows' data ports,
  - forged datagrams (native headers with guessed flow ids, any sequence
    number) come from the flows' own address,
  - signaling connections send garbage, or HELLO + FLOW_OPEN + HELLO and
    then reset (SO_LINGER 0),
  - hundreds of idle connections are held open on the signaling port and
    on the log server's port,
  - clients send a valid frame one byte at a time,
  - a sender names (-X) a log server that takes the registration and then
    never reads again (a stalled log server),
  - the log server gets garbage frames and datagrams.
It passes when the legitimate flows lose nothing and count nothing
foreign (packets logged == packets sent, no loss), their p99 delay is at
most twice the quiet run's (never less than a 20 ms allowance: a loaded
machine's noise is not a finding; TCP without Nagle's delay, -D), both programs' memory stays within 64
MiB of the quiet run's peak, their descriptors come back to within 8 of
the quiet run's once the attack stops, the log server took the sender
log it was sent complete, and both programs live on and exit 0 on
SIGTERM. Every check prints one line; the exit status is 1 if any
failed. The same seed gives the same hostile bytes. The attack comes from
other loopback addresses than the flows (127.0.0.2-5), except the forged
datagrams, which come from the flows' own 127.0.0.1.
"""
import atexit
import json
import os
import random
import re
import resource
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

SEED = 20261124
# Where each part of the attack comes from: never the legitimate flows'
# address (127.0.0.1), so that a per-peer limit that shields them is not
# taken for a failure; forged datagrams come from 127.0.0.1 on purpose.
LEGIT = "127.0.0.1"
FLOODER = "127.0.0.2"
NOISE = "127.0.0.3"
TRICKLER = "127.0.0.4"
STALLER = "127.0.0.5"
# The stalls this soak looks for last seconds; a loaded machine's
# scheduling alone moves a p99 by tens of milliseconds.
P99_FLOOR_S = 0.020
RSS_SLACK_KB = 64 * 1024
FD_SLACK = 8
IDLE_CONNS = 600  # per target: more than the programs' default reserves

results = []
children = []  # every program started here, ended at exit if still running


@atexit.register
def end_children():
    for p in children:
        if p.poll() is None:
            p.kill()
            p.wait()


def launch(argv, **kw):
    p = subprocess.Popen(argv, **kw)
    children.append(p)
    return p


def check(name, ok, detail=""):
    results.append(ok)
    print("  %s: %s%s" % ("ok" if ok else "FAILED", name,
                          (" (%s)" % detail) if detail else ""), flush=True)


def free_port(kind=socket.SOCK_DGRAM):
    """A port the system picks, released for a program to bind (a flow's
    data port: itg-send asks for it by number)."""
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def listening_port(pid, deadline):
    """The TCP port process pid listens on, read from /proc."""
    while time.monotonic() < deadline:
        inodes = set()
        try:
            for fd in os.listdir("/proc/%d/fd" % pid):
                try:
                    link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
                except OSError:
                    continue
                m = re.match(r"socket:\[(\d+)\]", link)
                if m:
                    inodes.add(m.group(1))
        except OSError:
            return None
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            try:
                lines = open(table).read().splitlines()[1:]
            except OSError:
                continue
            for line in lines:
                f = line.split()
                if f[3] == "0A" and f[9] in inodes:
                    return int(f[1].split(":")[1], 16)
        time.sleep(0.05)
    return None


def status_text(rc):
    if isinstance(rc, int) and rc < 0:
        return "killed by %s" % signal.Signals(-rc).name
    return "status %s" % rc


# ---- frames ----------------------------------------------------------------

def text(s):
    b = s.encode()
    return struct.pack(">H", len(b)) + b


def ctl_frame(kind, body):
    return struct.pack(">BBHI", kind, 1, 0, len(body)) + body


def hello():
    return ctl_frame(1, struct.pack(">H", 1) + text("soak"))


def flow_open(port):
    return ctl_frame(3, struct.pack(">IBBBBHHhh", 0, 1, 0, 0, 0, port, 0, -1, -1)
                     + text(""))


def lp_frame(kind, body):
    return struct.pack(">BBHI", kind, 1, 0, len(body)) + body


def native_packet(flow, seq, length):
    hdr = struct.pack(">IHBBQqI", flow, 0x4954, 1, 0, seq, time.time_ns(), length)
    return hdr + b"\0" * (length - len(hdr))


# ---- the programs ----------------------------------------------------------

class Proc:
    """A program under test, its memory and descriptors sampled."""

    def __init__(self, name, popen):
        self.name = name
        self.p = popen
        self.samples = []  # (phase, rss_kb, fds)
        self.died = None

    def sample(self, phase):
        if self.p.poll() is not None:
            if self.died is None:
                self.died = (phase, self.p.returncode)
            return
        try:
            status = open("/proc/%d/status" % self.p.pid).read()
            rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
            fds = len(os.listdir("/proc/%d/fd" % self.p.pid))
        except (OSError, AttributeError):
            return
        self.samples.append((phase, rss, fds))

    def peak(self, phase, i):
        vals = [s[i] for s in self.samples if s[0] == phase]
        return max(vals) if vals else 0

    def fds(self):
        try:
            return len(os.listdir("/proc/%d/fd" % self.p.pid))
        except OSError:
            return None


class Monitor(threading.Thread):
    def __init__(self, procs):
        super().__init__(daemon=True)
        self.procs = procs
        self.phase = "start"
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            for p in self.procs:
                p.sample(self.phase)
            self.stop.wait(0.2)


def run_flows(bin_dir, work, sig_port, log_port, tag, secs, ports):
    """The two legitimate flows at once, on data ports ports (UDP, TCP);
    returns per protocol the exit status, the count sent and the log."""
    flows = {}
    procs = []
    for proto, port, opts in (("UDP", ports[0], ["-C", "500", "-c", "256"]),
                              ("TCP", ports[1], ["-T", "TCP", "-D", "-C",
                                                 "200", "-c", "512"])):
        log = "%s_%s.log" % (tag, proto.lower())
        argv = [os.path.join(bin_dir, "itg-send")]
        if proto == "UDP":
            # The sender log goes through the log server under attack.
            argv += ["-L", "127.0.0.1:%d" % log_port, "TCP", "-l",
                     "%s_sender.log" % tag]
        argv += ["-a", "127.0.0.1", "-Sdp", str(sig_port), "-rp", str(port)] \
            + opts + ["-t", str(int(secs * 1000)), "-x", log]
        out = open(os.path.join(work, "%s_%s.out" % (tag, proto)), "w")
        procs.append((proto, port, log, out,
                      launch(argv, stdout=out, stderr=out)))
    for proto, port, log, out, p in procs:
        try:
            rc = p.wait(timeout=secs + 30)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = "timeout"
        out.close()
        text_out = open(out.name).read()
        m = re.search(r"(\d+) packets", text_out)
        flows[proto] = {"rc": rc, "sent": int(m.group(1)) if m else -1,
                        "log": log, "port": port, "out": text_out}
    return flows


def decode(bin_dir, path):
    out = subprocess.run([os.path.join(bin_dir, "itg-dec"), "--json", path],
                         capture_output=True, text=True, timeout=60)
    try:
        return out.returncode, json.loads(out.stdout)["end"]
    except (ValueError, KeyError):
        return out.returncode, None


# ---- the hostile mix -------------------------------------------------------

class Hostile:
    def __init__(self, bin_dir, work, sig_port, log_port, log_udp, data_ports,
                 secs):
        self.bin_dir = bin_dir
        self.work = work
        self.sig = sig_port
        self.log = log_port
        self.log_udp = log_udp
        self.data_ports = data_ports
        self.secs = secs
        self.stop = threading.Event()
        self.threads = []
        self.held = []
        self.lock = threading.Lock()
        self.counts = {}
        self.stall_srv = None
        self.stall_conns = []
        self.stall_sender = None

    def count(self, what, n=1):
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + n

    def spawn(self, fn, *args):
        t = threading.Thread(target=self.guard, args=(fn,) + args, daemon=True)
        self.threads.append(t)
        t.start()

    def guard(self, fn, *args):
        try:
            fn(*args)
        except Exception as e:  # a worker's error must not end the soak
            self.count("worker error: %s" % type(e).__name__)

    def paced(self, per_sec):
        """Yields until stopped, per_sec times a second."""
        step = 1.0 / per_sec
        nxt = time.monotonic()
        while not self.stop.is_set():
            yield
            nxt += step
            self.stop.wait(max(0.0, nxt - time.monotonic()))

    def udp_noise(self, rng):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((NOISE, 0))
        targets = self.data_ports + [self.log_udp]
        for _ in self.paced(1500):
            data = rng.randbytes(rng.randrange(0, 1400))
            try:
                s.sendto(data, ("127.0.0.1", rng.choice(targets)))
                self.count("random datagrams")
            except OSError:
                pass
        s.close()

    def forged(self, rng):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((LEGIT, 0))
        for _ in self.paced(400):
            seq = rng.choice([rng.randrange(1, 5000), 2**64 - 1,
                              rng.randrange(2**63)])
            pkt = native_packet(rng.randrange(1, 9), seq, rng.randrange(28, 600))
            try:
                s.sendto(pkt, ("127.0.0.1", self.data_ports[0]))
                self.count("forged datagrams")
            except OSError:
                pass
        s.close()

    def connect(self, port, timeout=2.0, source=FLOODER):
        return socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                        source_address=(source, 0))

    def reset(self, c):
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        c.close()

    def bad_signaling(self, rng):
        for _ in self.paced(40):
            try:
                c = self.connect(self.sig)
                kind = rng.randrange(3)
                if kind == 0:
                    c.sendall(rng.randbytes(rng.randrange(1, 300)))
                elif kind == 1:
                    c.sendall(hello() + ctl_frame(rng.randrange(256),
                                                  rng.randbytes(rng.randrange(0, 64))))
                else:
                    # The SIGPIPE killer: replies are due on a reset socket.
                    c.sendall(hello() + flow_open(0) + hello())
                self.reset(c)
                self.count("bad signaling connections")
            except OSError:
                self.count("signaling connects refused")

    def bad_log_frames(self, rng):
        for _ in self.paced(20):
            try:
                c = self.connect(self.log)
                c.sendall(lp_frame(rng.randrange(1, 8), rng.randbytes(rng.randrange(0, 80)))
                          if rng.randrange(2) else rng.randbytes(rng.randrange(1, 200)))
                self.reset(c)
                self.count("bad log-server connections")
            except OSError:
                self.count("log-server connects refused")

    def idle_flood(self, port, what):
        for _ in range(IDLE_CONNS):
            if self.stop.is_set():
                return
            try:
                c = self.connect(port, timeout=1.0)
                with self.lock:
                    self.held.append(c)
                self.count(what)
            except OSError:
                self.count(what + " refused")
                self.stop.wait(0.01)

    def trickle(self, port, frame):
        conns = []
        for _ in range(10):
            try:
                conns.append(self.connect(port, source=TRICKLER))
            except OSError:
                self.count("byte-at-a-time refused")
        i = 0
        for _ in self.paced(5):
            for c in conns:
                try:
                    c.send(frame[i % len(frame):i % len(frame) + 1])
                except OSError:
                    pass
            i += 1
        for c in conns:
            c.close()
        self.count("byte-at-a-time clients", len(conns))

    def tcp_data_garbage(self, rng):
        for _ in self.paced(10):
            try:
                c = self.connect(self.data_ports[1], timeout=1.0)
                c.sendall(rng.randbytes(rng.randrange(1, 2000)))
                self.reset(c)
                self.count("garbage data connections")
            except OSError:
                pass

    def stalled_server(self):
        """Accepts, takes the registration, acknowledges it, then never
        reads again."""
        self.stall_srv.settimeout(0.2)
        while not self.stop.is_set():
            try:
                c, _ = self.stall_srv.accept()
            except OSError:
                continue
            self.stall_conns.append(c)
            c.settimeout(2.0)
            try:
                hdr = c.recv(8)
                if len(hdr) == 8:
                    body = struct.unpack(">I", hdr[4:8])[0]
                    got = 0
                    while got < body:
                        chunk = c.recv(body - got)
                        if not chunk:
                            break
                        got += len(chunk)
                c.sendall(lp_frame(2, struct.pack(">iIIH", 0, 1, 1, 0) + text("stall.log")))
                self.count("stalled log-server sessions")
            except OSError:
                pass

    def start(self):
        rng = random.Random(SEED)
        seeds = [rng.randrange(2**32) for _ in range(8)]
        self.stall_srv = socket.socket()
        self.stall_srv.bind((STALLER, 0))
        self.stall_srv.listen(16)
        self.spawn(self.stalled_server)
        # A real sender whose flow's log goes to the stalled server.
        out = open(os.path.join(self.work, "stall_sender.out"), "w")
        self.stall_sender = launch(
            [os.path.join(self.bin_dir, "itg-send"), "-a", "127.0.0.1",
             "-sa", STALLER, "-Sdp", str(self.sig), "-rp", str(free_port()),
             "-C", "5000",
             "-c", "200", "-t", str(int(self.secs * 1000)),
             "-X", "%s:%d" % (STALLER, self.stall_srv.getsockname()[1]), "TCP",
             "-x", "stall.log"], stdout=out, stderr=out)
        self.spawn(self.udp_noise, random.Random(seeds[0]))
        self.spawn(self.forged, random.Random(seeds[1]))
        self.spawn(self.bad_signaling, random.Random(seeds[2]))
        self.spawn(self.bad_log_frames, random.Random(seeds[3]))
        self.spawn(self.tcp_data_garbage, random.Random(seeds[4]))
        self.spawn(self.idle_flood, self.sig, "idle signaling connections")
        self.spawn(self.idle_flood, self.log, "idle log-server connections")
        self.spawn(self.trickle, self.sig, hello())
        self.spawn(self.trickle, self.log, lp_frame(1, b"\0" * 12))

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=10)
        for c in self.held + self.stall_conns:
            c.close()
        self.stall_srv.close()
        if self.stall_sender.poll() is None:
            self.stall_sender.kill()
        self.stall_sender.wait()


# ---- the run ---------------------------------------------------------------

def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    bin_dir = os.path.abspath(sys.argv[1])
    secs = float(sys.argv[2])
    work = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="itg-soak.")
    keep = len(sys.argv) > 3
    os.makedirs(work, exist_ok=True)
    logs = os.path.join(work, "logs")
    os.makedirs(logs, exist_ok=True)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    quiet_secs = max(4.0, secs * 0.3)
    hostile_secs = max(6.0, secs - quiet_secs)
    print("soak: %.0f s quiet, %.0f s hostile, in %s" % (quiet_secs, hostile_secs, work),
          flush=True)

    # The programs run with the descriptor limit a user's shell gives.
    def limited():
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, 1024), hard))

    log_err = open(os.path.join(work, "itg-log.err"), "w")
    log = launch([os.path.join(bin_dir, "itg-log"), "-p", "0", "-a",
                            "127.0.0.1", "-d", logs], stdout=subprocess.PIPE,
                           stderr=log_err, preexec_fn=limited)
    recv_err = open(os.path.join(work, "itg-recv.err"), "w")
    recv = Proc("itg-recv", launch(
        [os.path.join(bin_dir, "itg-recv"), "-Sp", "0", "-a", "127.0.0.1",
         "--log-dir", logs], stdout=recv_err, stderr=recv_err,
        preexec_fn=limited))
    # itg-log names the ports it bound in one line on stdout, once
    # listening; a program that never says it is not waited for long.
    line = b""
    if select.select([log.stdout], [], [], 10)[0]:
        line = log.stdout.readline()
    m = re.search(rb"listening tcp=(\d+) udp=(\d+)", line)
    if not m:
        print("soak: itg-log did not start: %r" % line)
        log.kill()
        recv.p.kill()
        return 1
    log_port, log_udp = int(m.group(1)), int(m.group(2))
    rlog = Proc("itg-log", log)
    sig_port = listening_port(recv.p.pid, time.monotonic() + 10)
    if sig_port is None:
        print("soak: itg-recv did not listen")
        recv.p.kill()
        log.kill()
        return 1
    mon = Monitor([recv, rlog])
    mon.start()

    mon.phase = "quiet"
    quiet = run_flows(bin_dir, work, sig_port, log_port, "quiet", quiet_secs,
                      [free_port(), free_port(socket.SOCK_STREAM)])
    base_fds = {p.name: p.fds() for p in (recv, rlog)}

    mon.phase = "hostile"
    hostile = Hostile(bin_dir, work, sig_port, log_port, log_udp,
                      [free_port(), free_port(socket.SOCK_STREAM)], hostile_secs + 4)
    # The flows' data ports are known before they start: the attack aims
    # at them (random and forged datagrams, garbage TCP connections).
    hostile.start()
    # The flows start once the attack is under way (pacing, not a wait
    # for a condition: the attack goes on until they end).
    time.sleep(1.0)
    soak = run_flows(bin_dir, work, sig_port, log_port, "soak", hostile_secs,
                     hostile.data_ports)
    hostile.finish()
    mon.phase = "after"
    for what, n in sorted(hostile.counts.items()):
        print("  hostile: %s: %d" % (what, n))

    # ---- verdicts ----
    print("soak: the legitimate flows", flush=True)
    for proto in ("UDP", "TCP"):
        q, h = quiet[proto], soak[proto]
        check("%s quiet flow completes" % proto, q["rc"] == 0 and q["sent"] > 0,
              "exit %s, %d sent" % (q["rc"], q["sent"]))
        last = h["out"].strip().splitlines()[-1:] or [""]
        check("%s flow completes under attack" % proto, h["rc"] == 0 and h["sent"] > 0,
              "exit %s, %d sent%s" % (h["rc"], h["sent"],
                                      "" if h["rc"] == 0 else ": " + last[0][:160]))
        qrc, qrep = decode(bin_dir, os.path.join(logs, q["log"]))
        hrc, hrep = decode(bin_dir, os.path.join(logs, h["log"]))
        if qrep is None or hrep is None or not qrep["flows"] or not hrep["flows"]:
            check("%s receiver logs decode" % proto, False,
                  "itg-dec exit %s / %s" % (qrc, hrc))
            continue
        qf, hf = qrep["total"], hrep["total"]
        check("%s: the receiver logged every packet sent, and nothing else" % proto,
              hf["packets"] == h["sent"] and hrc == 0,
              "%d sent, %d logged, itg-dec exit %d" % (h["sent"], hf["packets"], hrc))
        check("%s: nothing lost" % proto, hf["lost"] == 0 and hf["duplicates"] == 0,
              "%d lost, %d duplicates" % (hf["lost"], hf["duplicates"]))
        limit = max(2 * qf["delay_p99_s"], P99_FLOOR_S)
        check("%s: p99 delay within twice the quiet run's" % proto,
              hf["delay_p99_s"] <= limit,
              "quiet %.3f ms, hostile %.3f ms, limit %.3f ms"
              % (qf["delay_p99_s"] * 1e3, hf["delay_p99_s"] * 1e3, limit * 1e3))
    src, srep = decode(bin_dir, os.path.join(logs, "soak_sender.log"))
    sent = soak["UDP"]["sent"]
    check("itg-log took the sender log complete",
          src == 0 and srep is not None and srep["total"]["packets"] == sent,
          "itg-dec exit %s, %s of %d records" %
          (src, srep["total"]["packets"] if srep else "?", sent))

    print("soak: the programs", flush=True)
    for p in (recv, rlog):
        qpeak = p.peak("quiet", 1)
        hpeak = p.peak("hostile", 1)
        check("%s lives through the attack" % p.name, p.died is None and p.p.poll() is None,
              "died in the %s run: %s" % (p.died[0], status_text(p.died[1]))
              if p.died else "")
        check("%s memory bounded" % p.name, hpeak <= qpeak + RSS_SLACK_KB,
              "quiet peak %d KiB, hostile peak %d KiB" % (qpeak, hpeak))
    # Descriptors: back to the quiet run's count once the attack is over.
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if all(p.fds() is not None and p.fds() <= base_fds[p.name] + FD_SLACK
               for p in (recv, rlog)):
            break
        time.sleep(0.1)
    for p in (recv, rlog):
        check("%s descriptors back to the quiet run's" % p.name,
              p.fds() is not None and p.fds() <= base_fds[p.name] + FD_SLACK,
              "quiet %s, hostile peak %d, now %s" %
              (base_fds[p.name], p.peak("hostile", 2), p.fds()))
    mon.stop.set()
    mon.join()
    for p in (recv, rlog):
        if p.p.poll() is None:
            p.p.send_signal(signal.SIGTERM)
        try:
            rc = p.p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.p.kill()
            rc = "no exit within 15 s"
        check("%s exits 0 on SIGTERM" % p.name, rc == 0, status_text(rc))
    bad = results.count(False)
    print("soak: %d passed, %d failed%s" % (len(results) - bad, bad,
          "" if keep or bad else ""))
    if bad == 0 and not keep:
        shutil.rmtree(work, ignore_errors=True)
    elif bad:
        print("soak: the programs' output and logs are in %s" % work)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
