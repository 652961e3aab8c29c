#!/usr/bin/env python3
"""make bench: D-ITG, a bare socket loop and libitg side by side, measured on
the wire.

Every run starts a receiver, starts wiretap on the data port (the kernel's
timestamp of each packet as it enters the loopback device, in the sender's
own context), runs the sender for a fixed time, then reads the capture
with wirestats.py and counts what the receiver logged. Nothing the senders
say about themselves is used, except the CPU time the kernel charged them.
The side section runs two such runs at the same time, each with its own
receiver and wiretap.

    python3 tests/bench/run.py [--quick] [--build build]

Results: a table on stdout; CSV, PNG and results.md in BUILD/bench/.
Numbers, not verdicts: nothing here passes or fails on timing.
"""
import argparse
import dataclasses
import datetime
import os
import shutil
import sys
import time
import types
from pathlib import Path

import numpy as np

# The modules beside this script and the instruments in tests/tools are
# part of the source tree: no __pycache__ there.
sys.dont_write_bytecode = True
sys.path.insert(1, str(Path(__file__).resolve().parent.parent / "tools"))
import log_section  # noqa: E402
import mpi_section  # noqa: E402
import procs  # noqa: E402
import recv_section  # noqa: E402
import report  # noqa: E402
from log_section import LogServer  # noqa: E402
from procs import Proc, port_pair, wait_until  # noqa: E402
from report import Table, num, ratio, loss_text  # noqa: E402
from tools import (MAX_REQUEST_PPS, REMOTE_LOGS, REMOTE_RECV_LOG, REMOTE_SEND_LOG,  # noqa: E402
                   Bare, Blaster, Ditg, Libitg, Load, LoggingTool, Spin)
import wirestats  # noqa: E402

CAP_DTYPE = wirestats.RECORD
RATES_SECTION = "rates"
CEILING_SECTION = "ceiling"
CEILING_ROUNDS = 5
# libitg's default wait against the bare clock_nanosleep loop, in rounds
# that alternate the two at each rate.
WAIT_SECTION = "wait"
WAIT_RATES = (1000, 10000)
WAIT_ROUNDS_FULL, WAIT_ROUNDS_QUICK = 5, 3
# The same, side by side: the bare loop and libitg at once, each to its
# own receiver under its own wiretap, so that both meet the same moments
# of the machine; the sender that starts first alternates.
SIDE_SECTION = "side"
SIDE_ROUNDS_FULL, SIDE_ROUNDS_QUICK = 4, 2
SIDE_SECONDS = 4
SIDE_START_S = 1.0  # a receiver and a wiretap start well within this
LAW_RATE = 10000
FLOWS, FLOW_RATE = 100, 1000
FLOWS_ROUNDS_FULL, FLOWS_ROUNDS_QUICK = 3, 2
FLOWS_GOAL_US = 50
# Seconds of 1 ms sleeps, then as many of a spinning thread, that measure
# the machine just before a run that is read against its minute.
NOISE_SAMPLE_S = 0.5

# IDT laws of mean 100 us (10 000 pkt/s): the sender's words (D-ITG's units:
# -E and -U take pkt/s, -V and -N take ms) and the same law for wirestats
# (seconds). Pareto shape 3, scale 66.67 us has mean 3 * 66.67 / 2 = 100 us;
# -U 6666.67 20000 draws IDTs uniformly in [50, 150] us.
LAWS = [
    ("exponential", ["-E", "10000"], "exp:0.0001"),
    ("pareto", ["-V", "3", "0.0666667"], "pareto:3,0.0000666667"),
    ("uniform", ["-U", "6666.6667", "20000"], "uniform:0.00005,0.00015"),
    ("normal", ["-N", "0.1", "0.02"], "normal:0.0001,0.00002"),
]


def cap_records(path):
    return np.fromfile(path, dtype=CAP_DTYPE) if os.path.exists(path) else np.zeros(0, CAP_DTYPE)


def last_departure(path):
    """Wall-clock time (s) of the last packet in a capture, 0 if none."""
    if not os.path.exists(path) or os.path.getsize(path) < CAP_DTYPE.itemsize:
        return 0.0
    with open(path, "rb") as f:
        f.seek(-CAP_DTYPE.itemsize, os.SEEK_END)
        return float(np.frombuffer(f.read(), dtype=CAP_DTYPE)["ts"][0]) / 1e9


def drop_foreign(path, size, one_flow):
    """Removes from a capture the packets that some other program sent to
    the same port: every load sends one packet size, and a one-flow load
    one flow id (the one most packets carry). Returns how many went."""
    r = cap_records(path)
    mine = r["len"] == size
    if one_flow and mine.any():
        ids, counts = np.unique(r["head"][mine], return_counts=True)
        mine &= r["head"] == ids[np.argmax(counts)]
    if mine.all():
        return 0
    r[mine].tofile(path)
    return int((~mine).sum())


def idt_errors_us(path, rate):
    """Signed inter-departure errors (us) of a capture against 1/rate."""
    ts = cap_records(path)["ts"].astype(np.int64)
    return np.diff(ts) / 1e3 - 1e6 / rate


def per_flow(path, each_pps):
    """Per-flow view of a capture of many flows (told apart by the flow id
    each packet carries first): the sum of the flows' own rates against
    what was asked, the worst flow's rate error, and the median and the
    largest over flows of each flow's p99 inter-departure error."""
    r = cap_records(path)
    rates, errs, p99s = [], [], []
    for fid in np.unique(r["head"]):
        ts = np.sort(r["ts"][r["head"] == fid].astype(np.int64))
        if len(ts) < 3:
            continue
        span = (ts[-1] - ts[0]) / 1e9
        pps = (len(ts) - 1) / span
        rates.append(pps)
        errs.append(100.0 * (pps - each_pps) / each_pps)
        p99s.append(float(np.percentile(np.abs(np.diff(ts) / 1e3 - 1e6 / each_pps), 99)))
    if not rates:
        return {"flows_seen": 0}
    agg = float(sum(rates))
    want = each_pps * len(rates)
    return {"flows_seen": len(rates), "agg_pps": agg,
            "agg_err_pct": 100.0 * (agg - want) / want,
            "worst_flow_err_pct": float(max(errs, key=abs)),
            "flow_idt_p99_median_us": float(np.median(p99s)),
            "flow_idt_p99_max_us": float(max(p99s))}


def idt_errors(path, rate):
    """The absolute inter-departure errors (us) of a capture of one flow
    at rate, kept with the run's row so that a table can pool the
    rounds of a run."""
    ts = np.sort(cap_records(path)["ts"].astype(np.int64))
    return {"idt_errs_us": np.abs(np.diff(ts) / 1e3 - 1e6 / rate)}


def pooled_p99(rows, rate, tool):
    """The p99 of a tool's inter-departure errors over all the rounds of a
    rate (rows labelled "RATE round K" that kept idt_errors), or None."""
    errs = [r["idt_errs_us"] for r in rows
            if r["tool"] == tool and r["label"].startswith(f"{rate} round ") and r.get("idt_errs_us") is not None]
    return float(np.percentile(np.concatenate(errs), 99)) if errs else None


class SideBySide:
    """Tools run at the same time (Bench.run_side)."""

    def __init__(self, tools):
        self.tools = tools

    def measure(self, bench, section, load, label, analyse=None):
        return bench.run_side(section, self.tools, load, label, analyse)


class Bench:
    def __init__(self, args):
        self.args = args
        # Absolute: some programs run in a folder of their own (remote logging).
        build = Path(args.build).resolve()
        self.out = build / "bench"
        self.work = self.out / "work"
        self.caps = self.out / "captures"
        # Logs and captures of an earlier run must not be taken for this one's.
        shutil.rmtree(self.work, ignore_errors=True)
        for d in (self.out, self.work, self.caps):
            d.mkdir(parents=True, exist_ok=True)
        bindir = self.out / "bin"
        self.wiretap = bindir / "wiretap"
        self.timer_noise = bindir / "timer_noise"
        self.rows = []
        self.notes = []
        self.ditg = Ditg()
        self.bare = Bare(str(bindir / "bare_loop"))
        # The wait section runs the bare loop twice a round: the ratio of
        # its two p99s is what the machine alone does to such a ratio.
        self.bare_again = Bare(str(bindir / "bare_loop"))
        self.bare_again.key, self.bare_again.name = "bare-again", "bare loop again"
        # The flows section's witness of the machine: the spin loop keeps
        # every departure's instant unless the machine stops it, and so
        # tells what the minute allows a sender with no library at all.
        self.spin = Spin(str(bindir / "bare_loop"))
        self.libitg = Libitg(str(build / "bin"), "hybrid")
        self.libitg_sleep = Libitg(str(build / "bin"), "sleep")
        self.libitg_burst = Libitg(str(build / "bin"), "hybrid", "burst")
        # The flows section: libitg spreads flows started together over
        # their period by default; this one starts them as the bare loop
        # does.
        self.libitg_together = Libitg(str(build / "bin"), "hybrid", start="together")
        self.blaster = str(bindir / "blaster")
        self.blaster32 = Blaster(self.blaster, 32)
        self.blaster1 = Blaster(str(bindir / "blaster"), 1)
        self.mpi = mpi_section.ItgMpi(str(build), self.wiretap, drop_foreign)
        self.receivers = recv_section.Ceiling(recv_section.receivers(self.blaster, self.libitg, self.ditg))
        wanted = set(args.tools.split(",")) if args.tools else None
        self.tools = {}
        for t in (self.ditg, self.bare, self.bare_again, self.spin, self.libitg, self.libitg_sleep, self.libitg_burst,
                  self.libitg_together,
                  self.blaster32, self.blaster1,
                  self.mpi, self.receivers):
            if wanted is not None and t.key not in wanted and t.key.split("-")[0] not in wanted:
                continue
            if t.available():
                self.tools[t.key] = t
            else:
                self.notes.append(f"{t.name}: not found, its rows are left out")

    def has(self, tool):
        return tool.key in self.tools

    # ---- one run -----------------------------------------------------------

    @staticmethod
    def base_row(section, tool, load, label, law=None):
        """A run's row before it runs: what was asked."""
        return {"section": section, "tool": tool.name, "label": label,
                "requested_pps": (load.rate * load.flows) if load.rate else None,
                "size": load.size, "log_batch": load.log_batch, "flows": load.flows,
                "seconds": load.seconds, "law": law[0] if law else None,
                "log": load.log if isinstance(tool, LoggingTool) else "none"}

    def clean(self, stem):
        """Removes a run's files, unless --keep."""
        if not self.args.keep:
            for p in Path(self.work).glob(os.path.basename(stem) + ".*"):
                if p.is_dir():
                    shutil.rmtree(p)
                else:
                    p.unlink()

    def run(self, section, tool, load, label, law=None, analyse=None, keep=False, sender_log=False,
            noise=False):
        """Runs load with tool under wiretap; returns the row of results.
        A load that ships its logs gets a log server of its own for the run;
        sender_log: also count the records in the sender's log; noise: first
        take the machine's timer noise (NOISE_SAMPLE_S), so that a run can be
        read against the minute it ran in."""
        row = self.base_row(section, tool, load, label, law)
        why = tool.unsupported(load)
        if why:
            row["note"] = why
            return row
        if noise:
            n = report.timer_noise_sample(self.timer_noise, NOISE_SAMPLE_S)
            if n:
                row["machine_stalled_ms_pct"] = n["spin_ms_stalled_over_50us_pct"]
                row["machine_sleep_p99_us"] = n["sleep_1ms_late_p99_us"]
        stem = str(self.work / f"{section}-{tool.key}-{label}")
        server = None
        try:
            if load.log in REMOTE_LOGS:
                server = LogServer(tool, stem + ".logsrv")
                why = server.start(stem + ".logsrv.out", load.seconds + 120)
                if why:
                    row["note"] = why
                    return row
                load = dataclasses.replace(load, log_port=server.port)
            self._measure(row, tool, load, stem, server, law, analyse, keep, sender_log)
        finally:
            if server:
                server.stop()
                row["logsrv_cpu_s"] = server.proc.cpu_s if server.proc else None
            self.clean(stem)
        return row

    def run_side(self, section, tools, load, label, analyse=None):
        """Runs load with each of tools at the same time, each to its own
        receiver under its own wiretap, the senders started one right after
        the other; returns their rows. No log server: tools that log do so
        to files."""
        rows, lives = [], []
        try:
            for tool in tools:
                row = self.base_row(section, tool, load, label)
                rows.append(row)
                why = tool.unsupported(load)
                if why:
                    row["note"] = why
                    continue
                live = self._start(row, tool, load, str(self.work / f"{section}-{tool.key}-{label}"), None,
                                   SIDE_START_S * (len(tools) - 1))
                if live:
                    lives.append(live)
            for live in lives:
                self._send(live)
            for live in lives:
                self._finish(live, None, analyse, False, False)
        finally:
            for live in lives:
                self.clean(live.stem)
        return rows

    def _measure(self, row, tool, load, stem, server, law, analyse, keep, sender_log):
        """The body of run(): receiver, wiretap, sender, counting; fills row."""
        live = self._start(row, tool, load, stem, server)
        if live:
            self._send(live)
            self._finish(live, law, analyse, keep, sender_log)

    def _start(self, row, tool, load, stem, server, extra_s=0.0):
        """A run's receiver and wiretap, ready; None (and a note in row) if
        either did not start. extra_s: more capture time, for a sender
        started only after other runs' receivers and wiretaps."""
        sig, data = port_pair()
        rlog, slog, cap, script = stem + ".recv.log", stem + ".send.log", stem + ".cap", stem + ".flows"
        for p in (rlog, slog, cap):
            if os.path.exists(p):
                os.remove(p)
        # Files named without a folder (remote logs' spill files) land in
        # the log server's folder, with the run's other files.
        cwd = server.folder if server else None
        margin = tool.tap_margin_s + (0.02 * load.flows if load.flows > 1 else 0.0)
        tap_s = load.seconds + margin + extra_s
        life_s = tap_s + tool.sender_grace_s + 30
        recv = Proc(tool.receiver_argv(sig, data, rlog, load, life_s), stem + ".recv.out", life_s + 30, cwd)
        wait_until(lambda: recv.poll() is not None or tool.receiver_ready(recv, sig, data), 10)
        if recv.poll() is not None or not tool.receiver_ready(recv, sig, data):
            recv.stop(tool.stop_signal, 2)
            row["note"] = "receiver did not start: " + recv.tail()
            return None
        tap_wall0 = time.time()
        tap = Proc([self.wiretap, "lo", data, f"{tap_s:.3f}", cap], stem + ".tap.out", tap_s + 15)
        wait_until(lambda: "ready" in tap.output() or tap.poll() is not None, 5)
        if tap.poll() is not None or "ready" not in tap.output():
            tap.stop()
            tool.stop_receiver(recv)
            row["note"] = "wiretap did not start: " + tap.tail()
            return None
        return types.SimpleNamespace(row=row, tool=tool, load=load, stem=stem, server=server, cwd=cwd,
                                     sig=sig, data=data, rlog=rlog, slog=slog, cap=cap, script=script,
                                     recv=recv, tap=tap, tap_wall0=tap_wall0, tap_s=tap_s, send=None)

    @staticmethod
    def _send(live):
        """Starts a run's sender."""
        live.send = Proc(live.tool.sender_argv(live.sig, live.data, live.slog, live.load, live.script),
                         live.stem + ".send.out", live.load.seconds + live.tool.sender_grace_s, live.cwd)

    def _finish(self, live, law, analyse, keep, sender_log):
        """Waits for a run's sender and wiretap, stops its receiver and
        fills its row from what they saw."""
        row, tool, load, server = live.row, live.tool, live.load, live.server
        recv, tap, send, cap, tap_s = live.recv, live.tap, live.send, live.cap, live.tap_s
        rlog, slog = live.rlog, live.slog
        notes = []
        stopped = send.wait() is None
        if stopped:
            send.stop(tool.stop_signal, 2)
            notes.append(f"sender still running {tool.sender_grace_s:.0f} s after its flows' end: stopped")
        if tap.wait() is None:
            tap.stop()
            notes.append("wiretap overran: capture lost")
        foreign = drop_foreign(cap, load.size, load.flows == 1)
        if foreign:
            notes.append(f"{foreign} packets from another program on the port left out")
        # Packets sent after the capture ended reach the receiver's log but
        # not the capture: if traffic still flowed at its end, the wire count
        # is a prefix and the loss cannot be known.
        cut = last_departure(cap) > live.tap_wall0 + tap_s - 0.25
        if cut:
            notes.append(f"traffic still flowing when the {tap_s:.1f} s capture ended: loss unknown")
        tool.stop_receiver(recv)
        if recv.killed:
            notes.append("receiver had to be killed")
        if server:
            notes += server.finish() + server.notes(send.output(), recv.output())
            rlog, slog = server.path(REMOTE_RECV_LOG), server.path(REMOTE_SEND_LOG)
        elif load.log == "none":
            rlog = slog = None
        logged = tool.logged(rlog, recv)
        stats = self.wire_figures(cap, load, law)
        row.update(self.row_from(load, stats, None if cut else logged, send, recv))
        if sender_log and slog:
            row["sender_logged"] = tool.logged(slog, None)
        tap_out = tap.output()
        if "kernel drops" in tap_out:
            row["tap_drops"] = int(tap_out.rsplit("kernel drops", 1)[1].split()[0])
            if row["tap_drops"]:
                notes.append(f"wiretap: kernel dropped {row['tap_drops']}")
        if send.rc not in (0, None) and not stopped:
            notes.append(f"sender exit {send.rc}: {send.tail()}")
        if analyse:
            row.update(analyse(cap))
        if keep and os.path.exists(cap):
            shutil.copy(cap, self.caps / f"{row['section']}-{tool.key}-{row['label']}.cap")
        row["note"] = "; ".join(notes) or None

    @staticmethod
    def wire_figures(cap, load, law):
        """wirestats' figures of a capture: IDT errors only for one
        constant-rate flow, a KS test for a law. Computed in this process:
        starting Python and importing scipy for every run would cost
        seconds each time."""
        if not os.path.exists(cap):
            return {}
        rate = load.rate if load.rate and load.flows == 1 and load.idt[0] == "-C" else None
        return wirestats.summarize(wirestats.load(cap), rate=rate,
                                   idt_law=wirestats.law(law[2]) if law else None)

    @staticmethod
    def row_from(load, s, logged, send, recv):
        wire = s.get("packets")
        pps = s.get("rate_pps")
        want = load.rate * load.flows if load.rate else None
        row = {"wire_packets": wire, "achieved_pps": pps,
               "rate_err_pct": 100.0 * (pps - want) / want if pps and want else None,
               "mbit_s": pps * s["mean_size"] * 8 / 1e6 if pps else None,
               "idt_err_p50_us": s.get("idt_abs_err_p50_us"),
               "idt_err_p99_us": s.get("idt_abs_err_p99_us"),
               "idt_err_p999_us": s.get("idt_abs_err_p999_us"),
               "drift_p99_us": s.get("sched_lag_p99_us"),
               "idt_mean_us": s.get("idt_mean_us"),
               "ks_stat": s.get("idt_ks_stat"), "ks_p": s.get("idt_ks_p"),
               "logged": logged, "sender_cpu_s": send.cpu_s,
               "sender_cpu_pct": 100.0 * send.cpu_s / send.wall_s if send.cpu_s is not None else None,
               "recv_cpu_s": recv.cpu_s, "sender_rc": send.rc}
        if wire is not None and logged is not None:
            row["loss"] = wire - logged
            row["loss_pct"] = 100.0 * (wire - logged) / wire if wire else 0.0
        return row

    # ---- the plan ----------------------------------------------------------

    def plan(self):
        """Every run, in order: (section, tool, load, label, options)."""
        q = self.args.quick
        sections = set(self.args.sections.split(",")) if self.args.sections else None
        want = lambda s: sections is None or s in sections
        items = []

        def add(sec, tool, load, label, **kw):
            if self.has(tool):
                items.append((sec, tool, load, label, kw))
        big = ["-C", str(MAX_REQUEST_PPS)]
        if want(RATES_SECTION):
            rates = [1000, 10000, None] if q else [10, 100, 1000, 10000, 100000, None]
            secs = {10: 20, 100: 5}
            for rate in rates:
                t = 2 if q else secs.get(rate, 3)
                label = str(rate) if rate else "max"
                load = Load(["-C", str(rate)] if rate else big, rate, t)
                tools = [self.ditg, self.bare, self.libitg]
                if rate and (not q or rate == 1000):
                    tools.append(self.libitg_sleep)
                if rate is None:
                    tools += [self.blaster32] if q else [self.blaster32, self.blaster1]
                for tool in tools:
                    add(RATES_SECTION, tool, load, label, keep=(rate == LAW_RATE))
        if want(CEILING_SECTION):
            load = Load(big, None, 2 if q else 3)
            for k in range(1, (2 if q else CEILING_ROUNDS) + 1):
                for tool in (self.blaster32, self.libitg):
                    add(CEILING_SECTION, tool, load, f"round {k}")
        if want(WAIT_SECTION):
            for rate in WAIT_RATES:
                load = Load(["-C", str(rate)], rate, 2)
                for k in range(1, (WAIT_ROUNDS_QUICK if q else WAIT_ROUNDS_FULL) + 1):
                    four = (self.bare, self.libitg_burst, self.libitg, self.bare_again)
                    for tool in (four if k % 2 else four[::-1]):
                        add(WAIT_SECTION, tool, load, f"{rate} round {k}",
                            analyse=lambda cap, rate=rate: idt_errors(cap, rate))
        if want(SIDE_SECTION) and self.has(self.bare) and self.has(self.libitg):
            for rate in WAIT_RATES:
                load = Load(["-C", str(rate)], rate, SIDE_SECONDS)
                for k in range(1, (SIDE_ROUNDS_QUICK if q else SIDE_ROUNDS_FULL) + 1):
                    pair = (self.bare, self.libitg) if k % 2 else (self.libitg, self.bare)
                    items.append((SIDE_SECTION, SideBySide(pair), load, f"{rate} round {k}",
                                  {"analyse": lambda cap, rate=rate: idt_errors(cap, rate)}))
        if want("size1024"):
            load = Load(big, None, 2 if q else 3, size=1024)
            for tool in (self.ditg, self.bare, self.libitg, self.blaster32):
                add("size1024", tool, load, "max")
        if want("flows"):
            load = Load(["-C", str(FLOW_RATE)], FLOW_RATE, 2 if q else 3, flows=FLOWS)
            for k in range(1, (FLOWS_ROUNDS_QUICK if q else FLOWS_ROUNDS_FULL) + 1):
                four = (self.bare, self.spin, self.libitg_together, self.libitg)
                for tool in (four if k % 2 else four[::-1]):
                    add("flows", tool, load, f"round {k}", noise=True,
                        analyse=lambda cap: per_flow(cap, FLOW_RATE))
            if not q:
                add("flows", self.ditg, load, "round 1", analyse=lambda cap: per_flow(cap, FLOW_RATE))
        if want("laws"):
            for law in LAWS[:1] if q else LAWS:
                load = Load(law[1], LAW_RATE, 2 if q else 3)
                for tool in ((self.libitg,) if q else (self.libitg, self.ditg)):
                    add("laws", tool, load, law[0], law=law)
        t = 1 if q else 2
        if want("sweep_D"):
            for d in ([1, 40] if q else [1, 5, 10, 20, 40, 100]):
                for tool in (self.libitg, self.ditg):
                    add("sweep_D", tool, Load(big, None, t, size=512, log_batch=d), f"D{d}")
        if want("sweep_c"):
            for c in ([64, 1024] if q else [64, 256, 512, 1024, 4096, 16384]):
                for tool in (self.libitg, self.ditg):
                    add("sweep_c", tool, Load(big, None, t, size=c), f"c{c}")
        if want("sweep_C"):
            for rate in ([50000, 200000] if q else [10000, 25000, 50000, 100000, 200000, 300000]):
                for tool in (self.libitg, self.ditg):
                    add("sweep_C", tool, Load(["-C", str(rate)], rate, t, size=1024), f"C{rate}")
        if want(log_section.SECTION):
            log_section.add_runs(add, (self.libitg, self.ditg), self.libitg_sleep, q)
        if want(mpi_section.SECTION) and self.has(self.libitg):
            mpi_section.add_runs(add, self.libitg, self.mpi, q)
        if want(recv_section.SECTION):
            recv_section.add_runs(add, self.receivers, Load, q)
        return items

    def execute(self):
        items = self.plan()
        self.t0 = time.monotonic()
        for i, (sec, tool, load, label, kw) in enumerate(items, 1):
            self.item = f"{i}/{len(items)}"
            if hasattr(tool, "measure"):
                # A job of ranks starts its own receivers, and the receiver
                # section its own trials: they measure their own runs.
                got = tool.measure(self, sec, load, label, **kw)
            else:
                got = self.run(sec, tool, load, label, **kw)
            for row in got if isinstance(got, list) else [got]:
                self.rows.append(row)
                if not isinstance(tool, recv_section.Ceiling):
                    self.progress(row)
        return time.monotonic() - self.t0

    def progress(self, row):
        """One line on stderr for a run just done."""
        if row.get("section") == recv_section.SECTION:
            what = (f"offered {num(row.get('requested_pps'), '.0f'):>8s} sent {num(row.get('sent'), 'd')} "
                    f"logged {num(row.get('logged'), 'd')} drain {num(row.get('drain_s'), '.3f')} s " +
                    (f"own rate {num(row.get('drain_pps'), '.0f')} pkt/s, "
                     f"{num(row.get('drain_cpu_ns_pkt'), '.0f')} ns CPU each" if "-drain" in row["label"]
                     else "pass" if row.get("passed") else "FAIL"))
        else:
            what = f"wire {num(row.get('achieved_pps'), '.0f'):>8s} pkt/s  loss {loss_text(row)}"
        print(f"[{self.item} {time.monotonic() - self.t0:5.0f} s] {row['section']:9s} {row['tool']:22s} "
              f"{row['label']:10s} {what}" + (f"  ({row['note']})" if row.get("note") else ""),
              file=sys.stderr, flush=True)


# ---- tables -----------------------------------------------------------------

def flows_goal_text(rr):
    """How many of libitg's flows rounds kept every flow's p99 within
    FLOWS_GOAL_US, on quiet minutes (the machine losing over 50 us in
    under 1 % of its milliseconds just before) and on the others; and the
    spin loop's rounds beside them, the machine's own verdict."""
    def count(tool):
        rounds = [r for r in rr if r["tool"] == tool and r.get("flow_idt_p99_max_us") is not None]
        quiet = [r for r in rounds if r.get("machine_stalled_ms_pct") is not None
                 and r["machine_stalled_ms_pct"] < 1.0]
        noisy = [r for r in rounds if r not in quiet]
        met = lambda group: sum(r["flow_idt_p99_max_us"] <= FLOWS_GOAL_US for r in group)
        return f"in {met(quiet)} of {len(quiet)} rounds on quiet minutes, {met(noisy)} of {len(noisy)} on the others"
    text = f"libitg's worst flow within {FLOWS_GOAL_US} us: {count('libitg')}."
    spun = [r for r in rr if r["tool"] == "spin loop" and r.get("flow_idt_p99_max_us") is not None]
    if spun:
        both = [find(rr, "libitg", r["label"]) for r in spun if r["flow_idt_p99_max_us"] <= FLOWS_GOAL_US]
        both = [b for b in both if b is not None and b.get("flow_idt_p99_max_us") is not None]
        text += (f" The spin loop's: {count('spin loop')}; in the {len(both)} rounds in which it was, "
                 f"libitg's was in {sum(b['flow_idt_p99_max_us'] <= FLOWS_GOAL_US for b in both)}.")
    return text


def section_rows(rows, section):
    return [r for r in rows if r["section"] == section]


def find(rows, tool, label):
    for r in rows:
        if r["tool"] == tool and r["label"] == label:
            return r
    return None


def rates_tables(rows):
    rr = section_rows(rows, RATES_SECTION)
    if not rr:
        return []
    main = Table("Constant rate, 64-byte UDP over loopback, logging on both sides (wire: wiretap)",
                 ["tool", "rate", "achieved", "err %", "idt p50 us", "idt p99 us", "idt p99.9 us",
                  "drift p99 us", "loss", "cpu s", "cpu %", "x D-ITG", "x bare"],
                 "idt: |actual - scheduled inter-departure time|; drift: |departure - ideal schedule|; "
                 "loss: wire - receiver log; cpu: sender user+system, % of one core while it ran; "
                 "x D-ITG / x bare: achieved rate over theirs at the same request.")
    for r in rr:
        d = find(rr, "D-ITG", r["label"])
        b = find(rr, "bare loop", r["label"])
        is_ref = r["tool"] in ("D-ITG", "bare loop") or r["tool"].startswith("blaster")
        main.add([r["tool"], r["label"], num(r.get("achieved_pps"), ".1f"), num(r.get("rate_err_pct"), "+.3f"),
                  num(r.get("idt_err_p50_us"), ".2f"), num(r.get("idt_err_p99_us"), ".1f"),
                  num(r.get("idt_err_p999_us"), ".1f"), num(r.get("drift_p99_us"), ".1f"), loss_text(r),
                  num(r.get("sender_cpu_s"), ".2f"), num(r.get("sender_cpu_pct"), ".1f"),
                  "-" if is_ref or not d else ratio(r.get("achieved_pps"), d.get("achieved_pps")),
                  "-" if is_ref or not b else ratio(r.get("achieved_pps"), b.get("achieved_pps"))])
    ratios = Table("Ratios libitg / D-ITG and libitg / bare loop (same request; idt and cpu: lower is better)",
                   ["rate", "achieved /D-ITG", "achieved /bare", "idt p99 /D-ITG", "idt p99 /bare",
                    "cpu /D-ITG", "cpu /bare"])
    for label in dict.fromkeys(r["label"] for r in rr):
        l, d, b = (find(rr, t, label) for t in ("libitg", "D-ITG", "bare loop"))
        if not l:
            continue
        g = lambda x, k: x.get(k) if x else None
        ratios.add([label, ratio(g(l, "achieved_pps"), g(d, "achieved_pps"), ".3f"),
                    ratio(g(l, "achieved_pps"), g(b, "achieved_pps"), ".3f"),
                    ratio(g(l, "idt_err_p99_us"), g(d, "idt_err_p99_us"), ".3f"),
                    ratio(g(l, "idt_err_p99_us"), g(b, "idt_err_p99_us"), ".3f"),
                    ratio(g(l, "sender_cpu_s"), g(d, "sender_cpu_s")),
                    ratio(g(l, "sender_cpu_s"), g(b, "sender_cpu_s"))])
    out = [main, ratios] if ratios.rows else [main]
    ceiling = find(rr, "blaster sendmmsg x32", "max")
    top = [r for r in rr if r["label"] == "max"]
    if top:
        t = Table("As fast as possible, against the ceiling measured in the same run",
                  ["tool", "pkt/s on the wire", "% of blaster sendmmsg x32", "loss", "cpu s"])
        top_pps = ceiling.get("achieved_pps") if ceiling else None
        for r in top:
            pct = 100.0 * r["achieved_pps"] / top_pps if top_pps and r.get("achieved_pps") else None
            t.add([r["tool"], num(r.get("achieved_pps"), ".0f"), num(pct, ".1f"),
                   loss_text(r), num(r.get("sender_cpu_s"), ".2f")])
        out.append(t)
    return out


def ceiling_table(rows):
    """libitg against blaster in alternating rounds: the ratio of each
    round and their median."""
    rr = section_rows(rows, CEILING_SECTION)
    ratios = []
    t = Table("As fast as possible against the ceiling, in alternating rounds",
              ["round", "blaster sendmmsg x32 pkt/s", "libitg pkt/s", "libitg / blaster", "libitg loss"])
    for label in dict.fromkeys(r["label"] for r in rr):
        b, l = find(rr, "blaster sendmmsg x32", label), find(rr, "libitg", label)
        bp, lp = (x.get("achieved_pps") if x else None for x in (b, l))
        if bp and lp:
            ratios.append(lp / bp)
        t.add([label, num(bp, ".0f"), num(lp, ".0f"), ratio(lp, bp, ".3f"), loss_text(l) if l else "-"])
    if not ratios:
        return []
    t.add(["median", "", "", f"{float(np.median(ratios)):.3f}", ""])
    t.note = ("Each round runs blaster, then libitg (logging on both sides), for the same time: the "
              "machine's spare capacity moves by 10 % or more from one run to the next, so one pair "
              "of runs says little and the median of the rounds' ratios is the figure.")
    return [t]


def wait_table(rows):
    """libitg's default wait against the bare clock_nanosleep loop, round
    by round: each one's inter-departure error p99 on the wire and their
    ratio, libitg sending on the bare loop's absolute schedule (--catchup
    burst) and with its default catch-up; beside them the ratio of the
    bare loop's second run to its first, the spread the machine alone
    gives such a ratio; per rate the median and the worst of the ratios."""
    rr = section_rows(rows, WAIT_SECTION)
    if not rr:
        return []
    t = Table("The default wait against a plain absolute sleep (the bare loop), in alternating rounds",
              ["rate", "round", "bare idt p99 us", "libitg burst p99 us", "burst / bare",
               "libitg law p99 us", "law / bare", "bare again / bare", "cpu % bare / burst / law",
               "law rate err %"])
    cols = ("burst", "law", "again")
    names = ("bare loop", "libitg-burst", "libitg", "bare loop again")
    by_rate = {}
    for label in dict.fromkeys(r["label"] for r in rr):
        rate, _, rnd = label.partition(" round ")
        runs = [find(rr, name, label) for name in names]
        p99 = [x.get("idt_err_p99_us") if x else None for x in runs]
        cpu = [num(x.get("sender_cpu_pct") if x else None, ".1f") for x in runs[:3]]
        for k, col in enumerate(cols, 1):
            if p99[0] and p99[k]:
                by_rate.setdefault((rate, col), []).append(p99[k] / p99[0])
        t.add([rate, rnd, num(p99[0], ".1f"), num(p99[1], ".1f"), ratio(p99[1], p99[0], ".2f"),
               num(p99[2], ".1f"), ratio(p99[2], p99[0], ".2f"), ratio(p99[3], p99[0], ".2f"),
               " / ".join(cpu), num(runs[2].get("rate_err_pct") if runs[2] else None, "+.3f")])
    for rate in dict.fromkeys(r for r, _ in by_rate):
        for name, pick in (("median", np.median), ("worst", max)):
            got = [f"{float(pick(by_rate[(rate, c)])):.2f}" if (rate, c) in by_rate else "-" for c in cols]
            t.add([rate, name, "", "", got[0], "", got[1], got[2], "", ""])
        p99 = [pooled_p99(rr, rate, n) for n in names]
        t.add([rate, "all rounds", num(p99[0], ".1f"), num(p99[1], ".1f"), ratio(p99[1], p99[0], ".2f"),
               num(p99[2], ".1f"), ratio(p99[2], p99[0], ".2f"), ratio(p99[3], p99[0], ".2f"), "", ""])
    t.note = ("Each round runs four senders for 2 s at the same rate, in turn: the bare loop, libitg with "
              "--catchup burst, libitg with its default catch-up (law) and the bare loop again, in that "
              "order in odd rounds and the reverse in even ones, so that all meet the same minutes of the "
              "machine; below 1 libitg is the more exact. With burst libitg keeps the bare loop's absolute "
              "schedule and only the wait differs; law lets the flow's ordinary wake-up lateness (its 90th "
              "percentile, at least 50 us) go as on time and pays what a hold-up owes no more than 25 us a "
              "gap (more where that lateness passes a fifth of the interval) while the debt is under 5 ms, 0.2 of the interval "
              "a gap beyond. The bare loop against itself shows "
              "how far the machine alone moves a ratio: a sender as exact as the bare loop scores like it. "
              "\"all rounds\" pools each sender's gaps over the run's rounds, one p99 a sender and a ratio "
              "a run: at 1 000 pkt/s a round's p99 is the 20th largest of 2 000 gaps, which two of the "
              "host's hold-ups can decide.")
    return [t]


def side_table(rows):
    """The bare loop and libitg's default sent side by side, round by
    round: each one's inter-departure error p99 on the wire, their ratio,
    the gaps more than 50 us off; per rate the median and the worst ratio
    and the p99s of all rounds pooled."""
    rr = section_rows(rows, SIDE_SECTION)
    if not rr:
        return []
    t = Table("The default wait against a plain absolute sleep (the bare loop), side by side",
              ["rate", "round", "bare idt p99 us", "libitg p99 us", "libitg / bare", "gaps off > 50 us bare / libitg",
               "cpu % bare / libitg"])
    by_rate = {}
    for label in dict.fromkeys(r["label"] for r in rr):
        rate, _, rnd = label.partition(" round ")
        runs = [find(rr, name, label) for name in ("bare loop", "libitg")]
        p99 = [x.get("idt_err_p99_us") if x else None for x in runs]
        off = [str(int((x["idt_errs_us"] > 50).sum())) if x and x.get("idt_errs_us") is not None else "-"
               for x in runs]
        if p99[0] and p99[1]:
            by_rate.setdefault(rate, []).append(p99[1] / p99[0])
        t.add([rate, rnd, num(p99[0], ".1f"), num(p99[1], ".1f"), ratio(p99[1], p99[0], ".2f"), " / ".join(off),
               " / ".join(num(x.get("sender_cpu_pct") if x else None, ".1f") for x in runs)])
    for rate, got in by_rate.items():
        t.add([rate, "median", "", "", f"{float(np.median(got)):.2f}", "", ""])
        t.add([rate, "worst", "", "", f"{max(got):.2f}", "", ""])
        p99 = [pooled_p99(rr, rate, n) for n in ("bare loop", "libitg")]
        t.add([rate, "all rounds", num(p99[0], ".1f"), num(p99[1], ".1f"), ratio(p99[1], p99[0], ".2f"), "", ""])
    t.note = (f"Each round runs the bare loop and libitg (its default wait and catch-up) for {SIDE_SECONDS} s at "
              "the same time, each to its own receiver under its own wiretap, the one started first alternating: "
              "both meet the same hold-ups of the machine, which in the wait section's rounds, taken in turn, "
              "decide the ratios. Both share the machine's two CPUs with their receivers and wiretaps, a busier "
              "machine than one sender alone. Below 1 libitg is the more exact.")
    return [t]


def other_tables(rows):
    out = []
    rr = section_rows(rows, "size1024")
    if rr:
        t = Table("1 024-byte packets, as fast as possible", ["tool", "pkt/s", "Mbit/s", "paper (ITG-LS/MPI)",
                                                             "loss"])
        for r in rr:
            t.add([r["tool"], num(r.get("achieved_pps"), ".0f"), num(r.get("mbit_s"), ".1f"),
                   f"{report.PAPER_MBIT_S:.0f}", loss_text(r)])
        t.note = "Mbit/s of UDP payload; the paper's 230 Mbit/s was its best sender on 2004 hardware."
        out.append(t)
    rr = section_rows(rows, "flows")
    if rr:
        t = Table(f"{FLOWS} flows of {FLOW_RATE} pkt/s each, one sender, one data port, in alternating rounds",
                  ["tool", "round", "flows seen", "sum of flow rates", "aggregate err %", "worst flow err %",
                   "median flow idt p99 us", "/ bare", "worst flow idt p99 us", "/ bare", "/ spin", "loss", "cpu s",
                   "recv cpu s", "machine ms > 50 us lost %"])
        for r in rr:
            bare = find(rr, "bare loop", r["label"]) if r["tool"].startswith("libitg") else None
            spin = find(rr, "spin loop", r["label"]) if r["tool"].startswith("libitg") else None
            med, worst = r.get("flow_idt_p99_median_us"), r.get("flow_idt_p99_max_us")
            t.add([r["tool"], r["label"], num(r.get("flows_seen"), "d"), num(r.get("agg_pps"), ".1f"),
                   num(r.get("agg_err_pct"), "+.3f"), num(r.get("worst_flow_err_pct"), "+.2f"),
                   num(med, ".1f"), ratio(med, bare.get("flow_idt_p99_median_us") if bare else None, ".2f"),
                   num(worst, ".1f"), ratio(worst, bare.get("flow_idt_p99_max_us") if bare else None, ".2f"),
                   ratio(worst, spin.get("flow_idt_p99_max_us") if spin else None, ".2f"), loss_text(r), num(r.get("sender_cpu_s"), ".2f"), num(r.get("recv_cpu_s"), ".2f"),
                   num(r.get("machine_stalled_ms_pct"), ".1f")])
        t.note = ("Each flow's p99 inter-departure error on the wire, the median and the largest over the flows. "
                  "The bare loop gives its flows a socket each and sends them in turn after one absolute "
                  "clock_nanosleep a round, into a sink that logs nothing; libitg and D-ITG log on both sides. "
                  "libitg spreads flows started together over their period (--start spread, its default: flow "
                  "k leaves k/100 of a millisecond after the first); libitg-together (--start together) sends "
                  "them all at each millisecond's start, as the bare loop does. The spin loop spreads its flows "
                  "as libitg does and spins for each departure's instant, logging nothing: a flow of it leaves "
                  "late only when the machine stops it, and what it then owes leaves at once (no catch-up). "
                  "A bare loop that sleeps to "
                  "each of 100 000 instants a second cannot keep them on a virtual machine (32 % of the rate "
                  "here): it is measured only one way. A ratio below 1: libitg the more exact in the same "
                  f"round. The last column is the machine just before the run ({NOISE_SAMPLE_S} s of "
                  "timer_noise): the share of a spinning thread's milliseconds in which it lost the CPU for "
                  "over 50 us. A sender loses as much in them, and a flow due in the lost time leaves that "
                  "late: a flow's p99 stays within 50 us only if under 1 % of its departures are so held "
                  "up. " + flows_goal_text(rr))
        out.append(t)
    rr = section_rows(rows, "laws")
    if rr:
        t = Table(f"IDT laws at a mean of {LAW_RATE} pkt/s on the wire (KS test of the wire IDTs)",
                  ["tool", "law", "options", "mean idt us", "achieved", "KS D", "KS p", "loss"])
        words = {name: " ".join(w) for name, w, _ in LAWS}
        for r in rr:
            t.add([r["tool"], r["label"], words.get(r["label"], ""), num(r.get("idt_mean_us"), ".1f"),
                   num(r.get("achieved_pps"), ".0f"), num(r.get("ks_stat"), ".4f"), num(r.get("ks_p"), ".3g"),
                   loss_text(r)])
        t.note = "Expected mean IDT 100 us. p > 0.01: the wire cannot be told from the law."
        out.append(t)
    sweeps = [("sweep_D", "Sweep of the log buffer D (-q, both sides), 512-byte packets, as fast as possible",
               ["tool", "D", "pkt/s", "loss"], lambda r: [r["tool"], str(r["log_batch"]),
                                                          num(r.get("achieved_pps"), ".0f"), loss_text(r)]),
              ("sweep_c", "Sweep of the packet size c, as fast as possible, default D",
               ["tool", "c (bytes)", "pkt/s", "Mbit/s", "loss"],
               lambda r: [r["tool"], str(r["size"]), num(r.get("achieved_pps"), ".0f"),
                          num(r.get("mbit_s"), ".1f"), loss_text(r)]),
              ("sweep_C", "Sweep of the rate C, 1 024-byte packets, default D",
               ["tool", "C (pkt/s)", "achieved", "err %", "Mbit/s", "loss"],
               lambda r: [r["tool"], num(r.get("requested_pps"), ".0f"), num(r.get("achieved_pps"), ".0f"),
                          num(r.get("rate_err_pct"), "+.2f"), num(r.get("mbit_s"), ".1f"), loss_text(r)])]
    for sec, title, headers, cells in sweeps:
        rr = section_rows(rows, sec)
        if rr:
            t = Table(title, headers)
            for r in rr:
                t.add(cells(r))
            out.append(t)
    return out


def plots(bench, rows):
    """The PNG files; returns their names."""
    out = bench.out
    made = []
    rr = section_rows(rows, RATES_SECTION)
    series = []
    for r in rr:
        if r["label"] == str(LAW_RATE):
            key = next(k for k, t in bench.tools.items() if t.name == r["tool"])
            cap = bench.caps / f"{RATES_SECTION}-{key}-{LAW_RATE}.cap"
            if cap.exists():
                series.append((r["tool"], idt_errors_us(str(cap), LAW_RATE)))
    if series:
        report.plot_idt_errors(out / "idt_error_10000.png", series, LAW_RATE)
        made.append("idt_error_10000.png")
    if rr:
        ceiling = find(rr, "blaster sendmmsg x32", "max")
        report.plot_achieved(out / "achieved_vs_requested.png", rr, (ceiling or {}).get("achieved_pps"))
        made.append("achieved_vs_requested.png")
    for sec, x, y, xl, yl, title, extra in [
            ("sweep_D", "log_batch", "achieved_pps", "log buffer D (records per write)", "pkt/s on the wire",
             "Max rate vs log buffer D (c = 512 B)", {}),
            ("sweep_c", "size", "mbit_s", "packet size c (bytes)", "Mbit/s on the wire",
             "Max rate vs packet size", {}),
            ("sweep_C", "requested_pps", "mbit_s", "requested rate C (pkt/s)", "Mbit/s on the wire",
             "Rate vs C (c = 1 024 B)", {"hline": (report.PAPER_MBIT_S, "paper: 230 Mbit/s"),
                                         "ideal": lambda c: c * 1024 * 8 / 1e6})]:
        s = section_rows(rows, sec)
        if s:
            report.plot_sweep(out / f"{sec}.png", s, x, y, xl, yl, title, logx=True, **extra)
            made.append(f"{sec}.png")
    made.append(log_section.plot(out / f"{log_section.SECTION}.png", rows))
    return [m for m in made if m]


def main():
    here = Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a subset that takes about five minutes")
    ap.add_argument("--build", default=str(here.parent.parent / "build"), help="the build directory")
    ap.add_argument("--sections", help="comma-separated subset of: rates,ceiling,wait,side,size1024,flows,laws,"
                                       "sweep_D,sweep_c,sweep_C,logging,mpi,receiver")
    ap.add_argument("--tools", help="comma-separated subset of: ditg,bare,spin,libitg (every variant),"
                                    "libitg-sleep,libitg-burst,blaster32,blaster1,mpi,receiver")
    ap.add_argument("--keep", action="store_true", help="keep logs and captures in BUILD/bench/work")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench: wiretap needs a packet socket: run as root")
    bench = Bench(args)
    if not os.path.exists(bench.wiretap):
        sys.exit(f"bench: {bench.wiretap} is missing (make bench builds the instruments)")
    versions = [t.version() for t in bench.tools.values() if not t.key.startswith(("blaster", "libitg-", "bare-"))]
    noise = report.timer_noise(bench.timer_noise)
    before = report.machine()
    started = datetime.datetime.now(datetime.timezone.utc)
    try:
        took = bench.execute()
    except KeyboardInterrupt:
        sys.exit("bench: interrupted (every program it started has been stopped)")
    finally:
        procs.stop_all()
    after = report.machine()
    log_section.annotate(bench.rows)
    tables = (rates_tables(bench.rows) + ceiling_table(bench.rows) + wait_table(bench.rows) + side_table(bench.rows)
              + other_tables(bench.rows)
              + log_section.tables(bench.rows) + log_section.cpu_table(bench.rows)
              + mpi_section.tables(bench.rows) + recv_section.tables(bench.rows))
    made = plots(bench, bench.rows) if report.have_matplotlib() else []
    if not report.have_matplotlib():
        bench.notes.append("matplotlib is missing: no PNG plots")
    report.write_csv(bench.out / "all.csv", bench.rows)
    for sec in dict.fromkeys(r["section"] for r in bench.rows):
        report.write_csv(bench.out / f"{sec}.csv", section_rows(bench.rows, sec))
    head = [f"Measured {started:%Y-%m-%d %H:%M} UTC{' (--quick)' if args.quick else ''}, {took:.0f} s, "
            f"on {before['nproc']} CPUs ({before['cpu']}), Linux {before['kernel']}; "
            f"load average {before['load']} before, {after['load']} after.",
            "Tools: " + "; ".join(versions) + ".",
            "Sender, receiver and wiretap share the machine; other work on it moves the numbers."]
    if noise:
        head.append(noise)
    if max(before["load1"], after["load1"]) > (before["nproc"] or 1):
        head.append("The load average was above the number of CPUs: these numbers measure the contention "
                    "as much as the senders.")
    head += bench.notes
    text = "\n".join(head) + "\n\n" + "\n".join(t.text() for t in tables)
    print(text)
    with open(bench.out / "results.md", "w") as f:
        f.write("## Benchmark: libitg, D-ITG and a bare socket loop on the wire\n\n")
        f.write("\n\n".join(head) + "\n\n" + "\n".join(t.markdown() for t in tables))
    print(f"CSV, plots ({', '.join(made) or 'none'}) and results.md in {bench.out}/")


if __name__ == "__main__":
    main()
