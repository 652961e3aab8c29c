"""The receiver section: the highest rate each receiver takes in and logs
with no loss, fed by one and the same sender.

Four receivers: itg-recv logging to a file, ITGRecv logging to a file,
blaster's sink (a bare recvmmsg loop that only counts: the ceiling), and
the same sink asking the kernel for each datagram's receive time and
source address (--stamps), as a receiver that logs them must: the
kernel's share of a logging receiver's cost.
One sender feeds them all: blaster with D-ITG's data header (`--ditg`),
its flow opened on itg-recv and ITGRecv by D-ITG's signaling
(tests/tools/ditg_flow.py, as ITGSend opens one), paced on an absolute
schedule (`--rate`) or flat out.

The sender runs on the first CPU and the receiver (every thread of it) on
the last, so that the receiver has one CPU to itself, or shares it with a
CPU hog (one process spinning there for the whole trial): on loopback the
kernel puts each datagram into the receiver's queue in the sender's own
system call, and what is measured is the receiver taking it out and
logging it. For each receiver, without and with the hog:
  - the flood: blaster sends flat out; what the receiver logged, per
    second of the send and of the wait for its queue to empty;
  - the zero-loss ceiling: a bisection over the offered rate, from 0 to
    the rate blaster reached in its flood, a fixed number of trials of a
    few seconds each. A trial passes when the receiver logged every
    datagram blaster sent and its socket's queue was empty within
    DRAIN_LIMIT_S of the sender's end: with a deep queue (itg-recv's
    32 MiB, the sink's 64 MiB) a receiver slower than the offered rate
    loses nothing in a short trial, it only falls behind.
The three bisections run step by step together, so that the machine's
background load falls on them alike.

Loss is what blaster sent less what the receiver logged (itg-dec --json
on itg-recv's log, ITGDec on ITGRecv's, the sink's own count). Where it
went: the socket's drop counter (/proc/net/udp: a full receive queue)
and the kernel's backlog drops before any socket (/proc/net/softnet_stat,
the whole machine's); what neither holds was received and not logged.
"""
import os
import re
import shutil
import signal
import sys
import time

from ditg_flow import DitgError, DitgFlow
from procs import Proc, port_pair, tcp_listening, udp_bound, wait_until
from report import Table, num, ratio

SECTION = "receiver"
SIZE = 64
BATCH = 32
FLOW_ID = 1
# A receiver that keeps up has next to nothing queued when the sender
# stops; one that does not needs as long as it fell behind.
DRAIN_LIMIT_S = 0.1
DRAIN_WAIT_S = 10.0
STEPS_FULL, STEPS_QUICK = 7, 4
# The drain: this many datagrams queued while the receiver is stopped (an
# itg-recv's 32 MiB queue holds about 40 000 of them; ITGRecv's, the
# system's default, a few hundred: it is left out), sent at twice that
# rate a second.
DRAIN_PACKETS = 30000
# Floods and drains in rounds, every receiver in turn in each: one flood's rate moves
# with the machine's load by 30 % or more here, their median much less.
FLOOD_ROUNDS_FULL, FLOOD_ROUNDS_QUICK = 3, 1
SECONDS_FULL, SECONDS_QUICK = 2.0, 1.5
HOGS = 1
CONDITIONS = ("quiet", "hog")
SEND_CPU = 0
RECV_CPU = (os.cpu_count() or 1) - 1
TASKSET = shutil.which("taskset")


def pinned(argv, cpu):
    """argv run on one CPU (taskset execs it: the same process), or as it
    is on a machine of one CPU."""
    if not TASKSET or RECV_CPU == SEND_CPU:
        return argv
    return [TASKSET, "-c", str(cpu)] + argv


# ---- the kernel's counters -------------------------------------------------

def udp_socket(port):
    """(bytes queued, datagrams dropped) of the UDP sockets bound to port,
    from /proc/net/udp and udp6; None if there is none."""
    found = None
    for kind in ("udp", "udp6"):
        try:
            with open(f"/proc/net/{kind}") as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if int(fields[1].rsplit(":", 1)[1], 16) != port:
                        continue
                    queued = int(fields[4].split(":")[1], 16)
                    q, d = found or (0, 0)
                    found = (q + queued, d + int(fields[-1]))
        except FileNotFoundError:
            continue
    return found


def cpu_ns(pid):
    """CPU time of every thread of process pid so far, in ns
    (/proc/PID/task/*/schedstat); None where the system keeps none."""
    total, seen = 0, False
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
                seen = True
        except (OSError, IndexError, ValueError):
            continue  # a thread that ended
    return total if seen else None


def softnet_drops():
    """Packets the kernel dropped before any socket (its input backlog was
    full), every CPU's."""
    try:
        with open("/proc/net/softnet_stat") as f:
            return sum(int(line.split()[1], 16) for line in f)
    except (OSError, IndexError, ValueError):
        return None


# ---- the receivers ---------------------------------------------------------

class Receiver:
    """One receiver under test."""

    def __init__(self, key, name, argv, stop_signal, signaling, count, deep):
        self.key, self.name, self._argv = key, name, argv
        self.stop_signal = stop_signal
        self.signaling = signaling  # its flow is opened by D-ITG's signaling
        self._count = count         # (log path, Proc) -> datagrams logged
        self.deep = deep            # its queue holds DRAIN_PACKETS

    def argv(self, sig, data, log, life_s):
        return self._argv(sig, data, log, life_s)

    def ready(self, sig, data):
        return tcp_listening(sig) if self.signaling else udp_bound(data)

    def logged(self, log, proc):
        return self._count(log, proc)


def receivers(blaster, libitg, ditg):
    """The receivers whose programs are there: the sink first (the ratios'
    reference)."""
    out = []
    if os.access(blaster, os.X_OK):
        out.append(Receiver("sink", "blaster sink (recvmmsg)",
                            lambda sig, data, log, life: [blaster, "sink", data, life],
                            signal.SIGTERM, False, lambda log, p: _last_int(r"sink received (\d+)", p), True))
        out.append(Receiver("sink-stamps", "blaster sink + times, addresses",
                            lambda sig, data, log, life: [blaster, "sink", data, life, "--stamps"],
                            signal.SIGTERM, False, lambda log, p: _last_int(r"sink received (\d+)", p), True))
    if libitg.available():
        out.append(Receiver("libitg", "itg-recv",
                            lambda sig, data, log, life: [libitg.recv, "-Sp", sig, "-l", log],
                            signal.SIGTERM, True, lambda log, p: libitg.logged(log, p), True))
    if ditg.available():
        out.append(Receiver("ditg", "ITGRecv",
                            lambda sig, data, log, life: [ditg.recv, "-Sp", sig, "-l", log],
                            signal.SIGINT, True, lambda log, p: ditg.logged(log, p), False))
    return out


def _last_int(pattern, proc):
    found = re.findall(pattern, proc.output())
    return int(found[-1]) if found else None


# ---- one trial -------------------------------------------------------------

def trial(bench, rx, rate, seconds, hog, label, stopped=False):
    """Feeds rx for seconds at rate (None: flat out); returns the row.
    stopped: the receiver is stopped (SIGSTOP) while blaster fills its
    queue, then let go (SIGCONT): how fast it empties the queue is its own
    rate, with no sender beside it (drain_pps), and the CPU time it took
    for each datagram (drain_cpu_ns_pkt, every thread of it), which the
    machine's other work moves much less than the time."""
    row = {"section": SECTION, "tool": rx.name, "label": label, "requested_pps": rate,
           "size": SIZE, "seconds": seconds, "log": "local" if rx.signaling else "none", "hog": hog}
    stem = str(bench.work / f"{SECTION}-{rx.key}-{label}")
    log = stem + ".recv.log"
    if os.path.exists(log):
        os.remove(log)
    notes = []
    sig, data = port_pair()
    life = seconds + DRAIN_WAIT_S + 30
    recv = Proc(pinned(rx.argv(sig, data, log, life), RECV_CPU), stem + ".recv.out", life + 30)
    hogs, flow = [], None
    try:
        if not wait_until(lambda: recv.poll() is not None or rx.ready(sig, data), 10) or recv.poll() is not None:
            row["note"] = "receiver did not start: " + recv.tail()
            return row
        if rx.signaling:
            flow = DitgFlow(sig, data, FLOW_ID)
            try:
                data = flow.open()
            except (OSError, DitgError) as e:
                flow = None
                row["note"] = f"D-ITG signaling: {e}"
                return row
            if not wait_until(lambda: udp_bound(data), 5):
                row["note"] = "the flow's data port was not opened"
                return row
        hogs = [Proc(pinned([sys.executable, "-c", "import time\nend = time.monotonic() + %.1f\n"
                      "while time.monotonic() < end: pass" % (seconds + DRAIN_WAIT_S + 5)], RECV_CPU),
                     stem + f".hog{i}.out", seconds + DRAIN_WAIT_S + 10) for i in range(hog)]
        sock0, net0 = udp_socket(data), softnet_drops()
        if stopped:
            os.kill(recv.pid, signal.SIGSTOP)
        argv = [bench.blaster, "send", data, seconds, SIZE, BATCH, "--ditg", FLOW_ID]
        if rate:
            argv += ["--rate", f"{rate:.0f}"]
        send = Proc(pinned(argv, SEND_CPU), stem + ".send.out", seconds + 10)
        if send.wait() is None:
            send.stop(signal.SIGTERM, 2)
            notes.append("blaster overran: stopped")
        m = re.search(r"sent (\d+) pps (\d+)", send.output())
        if not m:
            row["note"] = "blaster said nothing: " + send.tail()
            return row
        sent, send_pps = int(m.group(1)), float(m.group(2))
        drain = time.monotonic()
        cpu0 = cpu_ns(recv.pid) if stopped else None
        if stopped:
            os.kill(recv.pid, signal.SIGCONT)
        # Polled without sleeping when the time to empty is the figure:
        # the sender's CPU is idle by now.
        emptied = wait_until(lambda: (udp_socket(data) or (0, 0))[0] == 0, DRAIN_WAIT_S, 0 if stopped else 0.002)
        drain_s = time.monotonic() - drain
        cpu1 = cpu_ns(recv.pid) if stopped else None
        sock1, net1 = udp_socket(data), softnet_drops()
        if not emptied:
            notes.append(f"queue not empty {DRAIN_WAIT_S:.0f} s after the sender's end")
        for h in hogs:
            h.stop(signal.SIGTERM, 1)
        if flow:
            try:
                flow.close()
            except (OSError, DitgError) as e:
                notes.append(f"closing the flow: {e}")
            flow = None
        recv.stop(rx.stop_signal, 10)
        if recv.killed:
            notes.append("receiver had to be killed")
        logged = rx.logged(log, recv)
        row.update({"sent": sent, "send_pps": send_pps, "logged": logged, "drain_s": drain_s,
                    "recv_cpu_s": recv.cpu_s, "kept_up": emptied and drain_s <= DRAIN_LIMIT_S})
        # The receiver's rate: what it logged over the send and the wait
        # for its queue to empty.
        if logged is not None and send_pps:
            row["recv_pps"] = logged / (sent / send_pps + drain_s)
        if logged and recv.cpu_s is not None:
            row["recv_cpu_us_pkt"] = 1e6 * recv.cpu_s / logged
        if logged is not None:
            row["loss"] = sent - logged
            row["loss_pct"] = 100.0 * (sent - logged) / sent if sent else 0.0
        if sock0 and sock1:
            row["sock_drops"] = sock1[1] - sock0[1]
            if stopped and emptied and drain_s > 0:
                row["drain_pps"] = (sent - row["sock_drops"]) / drain_s
                if cpu0 is not None and cpu1 is not None and sent > row["sock_drops"]:
                    row["drain_cpu_ns_pkt"] = (cpu1 - cpu0) / (sent - row["sock_drops"])
        if net0 is not None and net1 is not None:
            row["softnet_drops"] = net1 - net0
        row["passed"] = row.get("loss") == 0 and row["kept_up"]
        row["note"] = "; ".join(notes) or None
        return row
    finally:
        if stopped and recv.poll() is None:
            os.kill(recv.pid, signal.SIGCONT)
        for h in hogs:
            h.stop(signal.SIGKILL, 1)
        if flow:
            try:
                flow.close()
            except (OSError, DitgError):
                pass
        recv.stop(rx.stop_signal, 10)
        if not bench.args.keep:
            for suffix in (".recv.log", ".recv.out", ".send.out") + tuple(f".hog{i}.out" for i in range(hog)):
                if os.path.exists(stem + suffix):
                    os.remove(stem + suffix)


# ---- the plan --------------------------------------------------------------

class Ceiling:
    """The section's one kind of run: every receiver's flood, then their
    bisections step by step, in one condition (quiet or hog)."""
    key = "receiver"
    name = "receivers"

    def __init__(self, rxs):
        self.rxs = rxs

    def available(self):
        return bool(self.rxs)

    def version(self):
        return "receivers: " + ", ".join(r.name for r in self.rxs)

    def measure(self, bench, section, load, label, hog=0, steps=STEPS_FULL, rounds=FLOOD_ROUNDS_FULL):
        """Runs the condition; returns its rows: every trial's, then one
        summary row per receiver (label "ceiling")."""
        # The harness itself (its polling of the queue above all) stays off
        # the receiver's CPU.
        mask = os.sched_getaffinity(0)
        if RECV_CPU != SEND_CPU:
            os.sched_setaffinity(0, {SEND_CPU})
        try:
            return self._measure(bench, load, label, hog, steps, rounds)
        finally:
            os.sched_setaffinity(0, mask)

    def _measure(self, bench, load, label, hog, steps, rounds):
        rows = []
        for k in range(rounds):
            for rx in self.rxs:
                r = trial(bench, rx, None, load.seconds, hog, f"{label}-flood{k + 1}")
                rows.append(r)
                bench.progress(r)
            for rx in self.rxs:
                if rx.deep:
                    r = trial(bench, rx, 2 * DRAIN_PACKETS, 0.5, hog, f"{label}-drain{k + 1}", stopped=True)
                    rows.append(r)
                    bench.progress(r)
        # Every receiver is offered the same rates, from the top one that
        # blaster reached in all the floods: a sender's rate moves from one
        # run to the next, and the receivers are compared, not the runs.
        rows_floods = [r for r in rows if "-drain" not in r["label"]]
        top = min((r["send_pps"] for r in rows_floods if r.get("send_pps")), default=0.0)
        lo = {rx.key: 0.0 for rx in self.rxs}
        hi = {rx.key: top for rx in self.rxs}
        at_top = {}
        for step in range(steps + 1):
            for rx in self.rxs:
                if not top or (step and (rx.key not in at_top or at_top[rx.key].get("passed"))):
                    continue
                rate = top if step == 0 else (lo[rx.key] + hi[rx.key]) / 2
                r = trial(bench, rx, rate, load.seconds, hog, f"{label}-{step}")
                rows.append(r)
                bench.progress(r)
                if step == 0:
                    at_top[rx.key] = r
                if r.get("passed"):
                    lo[rx.key] = rate
                elif r.get("sent") is not None:
                    hi[rx.key] = rate
        for rx in self.rxs:
            mine = [r for r in rows if r["tool"] == rx.name]
            floods = sorted((r for r in mine if r["requested_pps"] is None and r.get("recv_pps") is not None),
                            key=lambda r: r["recv_pps"])
            drains = sorted(r["drain_pps"] for r in mine if r.get("drain_pps"))
            drain_cpu = sorted(r["drain_cpu_ns_pkt"] for r in mine if r.get("drain_cpu_ns_pkt"))
            rows.append({"section": SECTION, "tool": rx.name, "key": rx.key, "label": "ceiling", "hog": hog,
                         "condition": label, "ceiling_pps": lo[rx.key] or None, "top_pps": top or None,
                         "bracket_pps": hi[rx.key] if lo[rx.key] < hi[rx.key] else None,
                         "trials": len(mine), "flood": floods[len(floods) // 2] if floods else {},
                         "drain_pps": drains[len(drains) // 2] if drains else None,
                         "drain_cpu_ns_pkt": drain_cpu[len(drain_cpu) // 2] if drain_cpu else None,
                         "at_top": at_top.get(rx.key, {}),
                         "seconds": load.seconds})
        return rows


def add_runs(add, ceiling, load_cls, quick):
    """Adds the section's runs: each condition once."""
    seconds = SECONDS_QUICK if quick else SECONDS_FULL
    for cond in CONDITIONS:
        add(SECTION, ceiling, load_cls(None, None, seconds), cond, hog=HOGS if cond == "hog" else 0,
            steps=STEPS_QUICK if quick else STEPS_FULL,
            rounds=FLOOD_ROUNDS_QUICK if quick else FLOOD_ROUNDS_FULL)


# ---- the table -------------------------------------------------------------

def tables(rows):
    summary = [r for r in rows if r.get("section") == SECTION and r.get("label") == "ceiling"]
    if not summary:
        return []
    t = Table("Receivers fed by one sender (blaster --ditg, 64-byte UDP): zero-loss ceiling and flood",
              ["receiver", "CPU hog", "zero-loss pkt/s", "x sink", "drain pkt/s", "x sink",
               "drain cpu ns/pkt", "x sink", "flood sent pkt/s", "flood logged pkt/s",
               "x sink", "flood loss", "socket drops", "backlog drops", "recv cpu us/pkt", "x sink"])
    for r in summary:
        sink = next((s for s in summary if s["condition"] == r["condition"] and s.get("key") == "sink"), None)
        f, sf = r["flood"], (sink or {}).get("flood") or {}
        top = num(r.get("ceiling_pps"), ".0f")
        if r.get("ceiling_pps") and r.get("ceiling_pps") == r.get("top_pps"):
            top = ">= " + top
        elif r.get("bracket_pps"):
            top += f" (< {r['bracket_pps']:.0f})"
        cpu, scpu = r["at_top"].get("recv_cpu_us_pkt"), ((sink or {}).get("at_top") or {}).get("recv_cpu_us_pkt")
        loss = "-" if f.get("loss") is None else f"{f['loss']} ({f['loss_pct']:.2f} %)"
        t.add([r["tool"], "yes" if r["hog"] else "no", top,
               ratio(r.get("ceiling_pps"), (sink or {}).get("ceiling_pps"), ".3f"),
               num(r.get("drain_pps"), ".0f"), ratio(r.get("drain_pps"), (sink or {}).get("drain_pps"), ".3f"),
               num(r.get("drain_cpu_ns_pkt"), ".0f"),
               ratio((sink or {}).get("drain_cpu_ns_pkt"), r.get("drain_cpu_ns_pkt"), ".3f"),
               num(f.get("send_pps"), ".0f"), num(f.get("recv_pps"), ".0f"),
               ratio(f.get("recv_pps"), sf.get("recv_pps"), ".3f"), loss,
               num(f.get("sock_drops"), "d"), num(f.get("softnet_drops"), "d"),
               num(cpu, ".2f"), ratio(cpu, scpu, ".2f")])
    secs = summary[0]["seconds"]
    t.note = (f"zero-loss: the highest offered rate (blaster --rate) whose {secs:g} s trial the receiver "
              f"logged whole, its queue empty within {DRAIN_LIMIT_S * 1000:.0f} ms of the sender's end. Every "
              "receiver is first offered the same top rate, the lowest that blaster reached in the condition's "
              "floods ('>=': it kept up with all of it, the sender was the limit), and one that fails is "
              "bisected below it ('(< R)': the lowest offered rate that failed). drain: the receiver's own rate, "
              f"with no sender beside it: {DRAIN_PACKETS} datagrams queued while it was stopped (SIGSTOP), over "
              "the time from SIGCONT until its queue was empty; the median of the rounds (ITGRecv's queue holds "
              "a few hundred: left out). drain cpu ns/pkt: the CPU time the receiver (every thread) took over "
              "the same span, per datagram, the median of the rounds; its x sink is the sink's over the "
              "receiver's, so that below 1 is slower here too. blaster sink + times, addresses: the sink "
              "asking the kernel for each datagram's receive time (SO_TIMESTAMPNS) and source address, "
              "which a receiver that logs them cannot do without. flood: blaster flat out, the "
              "run of median logged pkt/s of the condition's rounds; logged pkt/s counts the wait for the "
              "queue to empty. recv cpu us/pkt: the receiver's CPU time "
              "(every thread, start to end) over the datagrams it logged at the top rate: what bounds its "
              "rate on a CPU of its own. socket drops: the receiver's full socket queue; backlog drops: the "
              f"kernel's, before any socket (the whole machine's). The sender runs on CPU {SEND_CPU}, the receiver "
              f"on CPU {RECV_CPU}; CPU hog: one process spinning there throughout. "
              "x sink: over the bare sink's figure in the same condition.")
    return [t]
