"""The MPI section: itg-mpi running experiments over an Open MPI job on this
machine, measured on the wire beside the single-process itg-send of the
same run.

Four measurements:
  - the aggregate rate of constant-rate flows spread over 1, 3 and 7 sender
    ranks (jobs of 2, 4 and 8 ranks), against itg-send alone at the same
    total rate;
  - the start skew: itg-mpi's own figure and the spread of the flows'
    first packets on the wire;
  - the clock offsets: one rank's real-time clock moved by libfaketime,
    the offset itg-mpi found against the one set;
  - the paper's logging comparison: top rate and CPU per packet with no
    log, a local file, itg-log over TCP (the logging section's libitg runs)
    and MPI gathering (itg-mpi -D), and the records per second a gathering
    rank absorbs (tests/mpi/log_gather.c).

Every flow of an experiment has a data port of its own, picked by the
system (bound to port 0, then given up) and written with -rp, and one
wiretap captures each port. mpirun runs every rank on this host, with the
flags of tests/mpi/run.sh. The CPU time of a job is mpirun's, read with
wait4: mpirun reaps its ranks, so it holds theirs too.
"""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import numpy as np

import log_section
import wirestats
from procs import Proc, port_pair, wait_until
from report import Table, loss_text, num, ratio
from tools import MAX_REQUEST_PPS, Load

SECTION = "mpi"
RATE_SECTION = "mpi_rate"
CLOCK_SECTION = "mpi_clock"
LOG_SECTION = "mpi_logging"
LOG_CPU_SECTION = "mpi_logging_cpu"
GATHER_SECTION = "mpi_gather"

# The rate part: jobs of these many ranks, rank 0 gathering, every other
# rank sending one flow, together this many packets a second (a rate the
# single-process sender keeps on this machine).
RANKS = (2, 4, 8)
TOTAL_PPS = 20000
REPS_FULL, REPS_QUICK = 5, 2
# The clock part: the real-time clock of rank 1 of 3 moved by each of these
# in turn (seconds), rank 2 left alone.
FAKE_S = (0.125, -1.5)
CLOCK_REPS_FULL, CLOCK_REPS_QUICK = 6, 2
CLOCK_PPS = 1000
# The logging part: the logging section's libitg modes beside MPI
# gathering, at its D values and rounds.
LIBITG_LOG_MODES = ("none", "local", "tcp")
MODE_NAMES = dict(log_section.MODE_NAMES, mpi="itg-mpi (MPI)")
# log_gather: records each logging rank writes, and the jobs' ranks.
GATHER_RANKS = (2, 4)
GATHER_RECORDS_FULL, GATHER_RECORDS_QUICK = 1000000, 200000
# What a job costs whatever it sends (MPI_Init, the clocks, the start's
# margin, the end, the report): the CPU time of the same job sending for
# this long, once a round.
FIXED_S = 0.05

# tests/mpi/run.sh's flags: ranks beyond the cores, shared memory between
# them, mpirun's own connections on loopback, a waiting rank yielding its
# core; and Open MPI told twice that root may run it.
MPIRUN_FLAGS = ["--oversubscribe", "--mca", "btl", "self,vader",
                "--mca", "btl_vader_single_copy_mechanism", "none",
                "--mca", "oob_tcp_if_include", "lo", "--mca", "mpi_yield_when_idle", "1"]
MPI_ENV = ["OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"]
# The job's start (MPI_Init, clock ping-pong, the start's margin) and end
# (the flows' grace, gathering, the report) around its flows: the captures
# run this much longer at most, and end when mpirun does.
JOB_SETUP_S = 60.0


def faketime_lib():
    """libfaketime's library, or None."""
    found = sorted(glob.glob("/usr/lib/*/faketime/libfaketime.so.1"))
    return found[0] if found else None


class ItgMpi:
    """itg-mpi under mpirun: a tool that measures its own runs, the ranks
    and their captures being one job."""
    key = "mpi"
    name = "itg-mpi"

    def __init__(self, build, wiretap, drop_foreign):
        self.prog = os.path.join(build, "bin", "itg-mpi")
        self.log_gather = os.path.join(build, "tests", "mpi", "log_gather")
        self.wiretap = str(wiretap)
        self.drop_foreign = drop_foreign
        self.mpirun = shutil.which("mpirun")

    def available(self):
        return self.mpirun is not None and os.access(self.prog, os.X_OK)

    def version(self):
        out = subprocess.run([self.mpirun, "--version"], capture_output=True, text=True, timeout=10)
        lines = (out.stdout or out.stderr).strip().splitlines()
        return "itg-mpi under " + (lines[0] if lines else "mpirun ?")

    def _job(self, contexts, ompi_tmp, outputs=()):
        """mpirun's command line for the app contexts given (each a list of
        words: -np N PROGRAM ARGS), its session files in ompi_tmp; outputs:
        mpirun's words that keep each rank's output apart."""
        argv = ["env"] + MPI_ENV + [f"TMPDIR={ompi_tmp}", self.mpirun] + MPIRUN_FLAGS + list(outputs)
        for i, ctx in enumerate(contexts):
            argv += ([":"] if i else []) + ctx
        return argv

    def measure(self, bench, section, load, label, ranks, pairs=(), fake=None, records=None):
        """Runs one job; returns its row. pairs: (sender rank, receiver
        rank) of each flow, each flow sending load; fake: {rank: seconds}
        by which libfaketime moves that rank's real-time clock; records:
        for log_gather, the records each logging rank writes."""
        row = {"section": section, "tool": self.name, "label": label, "ranks": ranks,
               "requested_pps": load.rate * len(pairs) if load.rate and pairs else None,
               "size": load.size, "log_batch": load.log_batch, "flows": len(pairs),
               "seconds": load.seconds, "log": load.log}
        stem = bench.work / f"{section}-{self.key}-{label}"
        folder = Path(str(stem) + ".d")
        folder.mkdir(parents=True, exist_ok=True)
        try:
            if section == GATHER_SECTION:
                self._gather(row, folder, ranks, records)
            else:
                self._experiment(row, folder, ranks, pairs, load, fake or {})
        finally:
            if not bench.args.keep:
                shutil.rmtree(folder, ignore_errors=True)
        return row

    def _experiment(self, row, folder, ranks, pairs, load, fake):
        notes = []
        ports = []
        while len(ports) < len(pairs):
            data = port_pair()[1]
            if data not in ports:
                ports.append(data)
        exp = folder / "run.exp"
        with open(exp, "w") as f:
            for (s, r), port in zip(pairs, ports):
                f.write(f"@{s} -a @{r} -T UDP {' '.join(map(str, load.idt))} -c {load.size} "
                        f"-t {load.ms()} -rp {port}\n")
        tap_s = load.seconds + JOB_SETUP_S
        taps = [Proc([self.wiretap, "lo", port, f"{tap_s:.0f}", folder / f"{port}.cap"],
                     folder / f"{port}.tap.out", tap_s + 15) for port in ports]
        ready = lambda: all("ready" in t.output() or t.poll() is not None for t in taps)
        wait_until(ready, 5)
        if not all("ready" in t.output() for t in taps):
            row["note"] = "wiretap did not start: " + "; ".join(t.tail() for t in taps)
            for t in taps:
                t.stop()
            return
        args = ["--json", "-L", folder / "logs", "--spill-dir", folder] + \
            (["-D", load.log_batch] if load.log_batch else []) + [exp]
        lib = faketime_lib()
        if fake and not lib:
            row["note"] = "libfaketime is not installed"
            for t in taps:
                t.stop()
            return
        contexts = []
        for r in range(ranks):
            # The monotonic clock, which the start and the pacing sleep on,
            # stays the system's. With libfaketime 0.9.10's default "monotonic
            # fix" in its pthread_cond_timedwait, the timed waits of such a
            # rank (libuv's, on the monotonic clock) go wrong and its flows
            # end unsent, even with FAKETIME=+0: the fix is turned off.
            pre = ["env", f"LD_PRELOAD={lib}", f"FAKETIME={fake[r]:+g}", "FAKETIME_DONT_FAKE_MONOTONIC=1",
                   "FAKETIME_FORCE_MONOTONIC_FIX=0"] if r in fake else []
            contexts.append(["-np", "1"] + pre + [self.prog] + args)
        if not fake:
            contexts = [["-np", str(ranks), self.prog] + args]
        (folder / "ompi").mkdir(exist_ok=True)
        # Each rank's stdout and stderr in files of their own: in mpirun's
        # output, a rank's messages may cut rank 0's line of JSON.
        job = Proc(self._job(contexts, folder / "ompi", ["--output-filename", folder / "ranks"]),
                   folder / "job.out", tap_s, cwd=folder)
        if job.wait() is None:
            job.stop(signal.SIGTERM, 5)
            notes.append("mpirun still running at the capture's end: stopped")
        for t in taps:
            t.stop(signal.SIGTERM, 5)
        drops = sum(int(t.output().rsplit("kernel drops", 1)[1].split()[0])
                    for t in taps if "kernel drops" in t.output())
        row["tap_drops"] = drops
        row["all_cpu_s"] = job.cpu_s
        report = self._json(folder / "ranks")
        if report is None:
            row["note"] = "; ".join(notes + [f"itg-mpi exit {job.rc}, no report: {job.tail()}"])
            return
        if job.rc != 0:
            notes.append(f"itg-mpi exit {job.rc}: {job.tail()}")
        self._wire(row, report, [folder / f"{p}.cap" for p in ports], load, notes)
        self._clocks(row, report, fake)
        row["note"] = "; ".join(notes) or None

    @staticmethod
    def _json(outputs):
        """itg-mpi's JSON report, rank 0's stdout in the folder of the
        ranks' outputs (outputs/JOB/rank.0/stdout), or None."""
        for path in glob.glob(str(outputs / "*" / "rank.0" / "stdout")):
            with open(path) as f:
                for line in f:
                    if line.startswith('{"ranks"'):
                        try:
                            return json.loads(line)
                        except ValueError:
                            return None
        return None

    def _wire(self, row, report, caps, load, notes):
        """The flows on the wire (one capture each, in the experiment's
        order) against what itg-mpi says of them."""
        flows = report["flows"]
        firsts, rates, packets, stamp_err = [], [], 0, []
        for cap, flow in zip(caps, flows):
            foreign = self.drop_foreign(str(cap), load.size, True) if cap.exists() else 0
            if foreign:
                notes.append(f"{foreign} packets from another program on port {flow['data_port']} left out")
            rec = wirestats.load(str(cap)) if cap.exists() else np.zeros(0, wirestats.RECORD)
            s = wirestats.summarize(rec)
            packets += s["packets"]
            if s.get("rate_pps"):
                rates.append(s["rate_pps"])
            if len(rec):
                first = int(rec["ts"].min())
                firsts.append(first)
                if flow["sent"]:
                    stamp_err.append(abs(flow["first_tx_s"] * 1e9 - first) / 1e3)
        received = sum(f["received"] for f in flows)
        want = row["requested_pps"]
        row.update(wire_packets=packets, logged=received, flows_seen=len(rates),
                   achieved_pps=float(sum(rates)) if rates else None,
                   spilled=sum(r["spilled"] for r in report["ranks"]),
                   log_lost=sum(r["lost"] for r in report["ranks"]),
                   start_skew_us=report["start_skew_s"] * 1e6,
                   skew_unc_us=report["skew_uncertainty_s"] * 1e6,
                   wire_spread_us=(max(firsts) - min(firsts)) / 1e3 if len(firsts) == len(flows) else None,
                   first_tx_err_us=max(stamp_err) if stamp_err else None)
        if row["achieved_pps"] and want:
            row["rate_err_pct"] = 100.0 * (row["achieved_pps"] - want) / want
        if packets:
            row["loss"] = packets - received
            row["loss_pct"] = 100.0 * row["loss"] / packets
        if row["tap_drops"]:
            # A capture that misses packets undercounts the rate and the
            # packets: those figures are left out, the first departures kept.
            notes.append(f"wiretap: kernel dropped {row['tap_drops']}: rate and loss left out")
            for k in ("achieved_pps", "rate_err_pct", "wire_packets", "loss", "loss_pct"):
                row.pop(k, None)
        if row["spilled"] or row["log_lost"]:
            notes.append(f"log records: {row['spilled']} spilled, {row['log_lost']} lost")

    @staticmethod
    def _clocks(row, report, fake):
        """The offset found for the rank whose clock was moved, and for a
        rank left alone (its offset is 0)."""
        if not fake:
            return
        rank, moved = next(iter(fake.items()))
        control = next((r for r in report["ranks"] if r["rank"] not in fake and r["rank"] != 0), None)
        mine = report["ranks"][rank]
        # offset = rank 0's clock - this rank's: a clock moved ahead by s
        # has offset -s.
        row.update(fake_rank=rank, injected_s=-moved, offset_s=mine["offset_s"],
                   offset_err_us=abs(mine["offset_s"] + moved) * 1e6,
                   uncertainty_us=mine["uncertainty_s"] * 1e6)
        if control:
            row.update(control_err_us=abs(control["offset_s"]) * 1e6,
                       control_unc_us=control["uncertainty_s"] * 1e6)

    def _gather(self, row, folder, ranks, records):
        """tests/mpi/log_gather: every rank but 0 logs that many records
        over MPI as fast as its logger takes them, rank 0 gathers."""
        row["records_each"] = records
        if not os.access(self.log_gather, os.X_OK):
            row["note"] = f"{self.log_gather} not built (make tests builds it where mpicc is)"
            return
        argv = self._job([["-np", str(ranks), self.log_gather, "--records", str(records)]], folder)
        job = Proc(argv, folder / "job.out", 120, cwd=folder)
        if job.wait() is None:
            job.stop(signal.SIGTERM, 5)
        out = job.output()
        m = re.search(r"gathered (\d+) records in (\d+) messages in ([\d.]+) s \((\d+) records/s\), "
                      r"(\d+) spilled", out)
        row["all_cpu_s"] = job.cpu_s
        if not m:
            row["note"] = f"log_gather exit {job.rc}: {job.tail()}"
            return
        row.update(logged=int(m.group(1)), gather_s=float(m.group(3)),
                   records_per_s=float(m.group(4)), spilled=int(m.group(5)))
        if job.rc != 0:
            row["note"] = f"log_gather's checks failed (exit {job.rc}): {job.tail()}"


def add_runs(add, libitg, mpi, quick):
    """Adds the section's runs through add(section, tool, load, label,
    **options), in the order they run."""
    secs = 2 if quick else 3
    big = ["-C", str(MAX_REQUEST_PPS)]
    for rep in range(REPS_QUICK if quick else REPS_FULL):
        add(RATE_SECTION, libitg, Load(["-C", str(TOTAL_PPS)], TOTAL_PPS, secs), f"itg-send-{rep}")
        for n in RANKS:
            # One flow from each sender rank to the next, the last to rank
            # 1: every rank but 0 sends once and receives once (in a job of
            # 2, rank 1 sends to rank 0).
            senders = list(range(1, n))
            pairs = [(s, senders[i % len(senders)] if n > 2 else 0)
                     for i, s in enumerate(senders, 1)]
            each = round(TOTAL_PPS / len(pairs), 4)
            add(RATE_SECTION, mpi, Load(["-C", f"{each:.4f}"], each, secs), f"N{n}-{rep}",
                ranks=n, pairs=pairs)
    for rep in range(CLOCK_REPS_QUICK if quick else CLOCK_REPS_FULL):
        moved = FAKE_S[rep % len(FAKE_S)]
        add(CLOCK_SECTION, mpi, Load(["-C", str(CLOCK_PPS)], CLOCK_PPS, 1), f"fake{moved:+g}-{rep}",
            ranks=3, pairs=[(1, 2), (2, 1)], fake={1: moved})
    for _ in range(log_section.ROUNDS_QUICK if quick else log_section.ROUNDS_FULL):
        for d in log_section.DS_QUICK if quick else log_section.DS_FULL:
            for sec, idt, rate in ((LOG_SECTION, big, None),
                                   (LOG_CPU_SECTION, ["-C", str(log_section.CPU_RATE)], log_section.CPU_RATE)):
                for mode in LIBITG_LOG_MODES:
                    add(sec, libitg, Load(idt, rate, secs, log_batch=d, log=mode), f"{mode}-D{d}",
                        sender_log=True)
                # The sender on rank 1, its receiver on rank 2, rank 0
                # gathering both logs: the three processes of itg-send,
                # itg-recv and itg-log, each logging process shipping its
                # records to a third one.
                add(sec, mpi, Load(idt, rate, secs, log_batch=d, log="mpi"), f"mpi-D{d}",
                    ranks=3, pairs=[(1, 2)])
        add(LOG_CPU_SECTION, mpi, Load(["-C", str(log_section.CPU_RATE)], log_section.CPU_RATE, FIXED_S,
                                       log="mpi-fixed"), "mpi-fixed", ranks=3, pairs=[(1, 2)])
    records = GATHER_RECORDS_QUICK if quick else GATHER_RECORDS_FULL
    for rep in range(1 if quick else 3):
        for n in GATHER_RANKS:
            add(GATHER_SECTION, mpi, Load([], None, 0), f"N{n}-{rep}", ranks=n, records=records)


# ---- tables -----------------------------------------------------------------

def _of(rows, section, **match):
    return [r for r in rows if r["section"] == section and all(r.get(k) == v for k, v in match.items())]


def _vals(rows, key):
    return [r[key] for r in rows if r.get(key) is not None]


def _median(rows, key):
    v = _vals(rows, key)
    return float(np.median(v)) if v else None


def _max(rows, key):
    v = _vals(rows, key)
    return max(v) if v else None


def rate_table(rows):
    mine = _of(rows, RATE_SECTION)
    ref = _of(rows, RATE_SECTION, tool="libitg")
    if not mine:
        return []
    t = Table(f"MPI: aggregate rate, {TOTAL_PPS} pkt/s of 64-byte UDP spread over the sender ranks "
              "(wire: wiretap on each flow's data port)",
              ["ranks", "flows", "requested", "itg-mpi achieved", "err %", "err % range", "achieved / requested",
               "itg-send achieved", "itg-send err %", "itg-mpi / itg-send", "loss", "cpu s"])
    ref_pps = _median(ref, "achieved_pps")
    for n in RANKS:
        runs = _of(rows, RATE_SECTION, tool=ItgMpi.name, ranks=n)
        if not runs:
            continue
        errs = _vals(runs, "rate_err_pct")
        pps = _median(runs, "achieved_pps")
        t.add([n, n - 1, TOTAL_PPS, num(pps, ".1f"), num(_median(runs, "rate_err_pct"), "+.3f"),
               f"{min(errs):+.3f} .. {max(errs):+.3f}" if errs else "-",
               ratio(pps, TOTAL_PPS, ".4f"), num(ref_pps, ".1f"), num(_median(ref, "rate_err_pct"), "+.3f"),
               ratio(pps, ref_pps, ".4f"), num(_median(runs, "loss"), ".0f"), num(_median(runs, "all_cpu_s"), ".2f")])
    t.note = (f"Medians of {len(ref)} rounds; each round runs itg-send (one process, one flow at {TOTAL_PPS} "
              "pkt/s, itg-recv, local logs on both sides), then itg-mpi with 2, 4 and 8 ranks, so all see the "
              "same load. itg-mpi: rank 0 gathers the logs, rank r sends one flow of "
              f"{TOTAL_PPS} / (ranks - 1) pkt/s to rank r + 1 (the last to rank 1; with 2 ranks rank 1 to "
              "rank 0), logging on both sides over MPI. Achieved: the sum of the flows' own wire rates "
              "(packets - 1 over first to last). Loss: wire - packets the receivers logged. cpu s: every "
              "rank and mpirun (wait4 of mpirun), set-up and report included. "
              + _notes(mine))
    return [t]


def skew_table(rows):
    runs = _of(rows, RATE_SECTION, tool=ItgMpi.name)
    if not runs:
        return []
    t = Table("MPI: start skew, the flows released at one instant",
              ["ranks", "runs", "itg-mpi skew p50 us", "max us", "wire spread p50 us", "max us",
               "clocks known to +- us", "first departure: itg-mpi vs wire, max us"])
    for n in RANKS:
        r = [x for x in runs if x["ranks"] == n]
        if r:
            t.add([n, len(r), num(_median(r, "start_skew_us"), ".1f"), num(_max(r, "start_skew_us"), ".1f"),
                   num(_median(r, "wire_spread_us"), ".1f"), num(_max(r, "wire_spread_us"), ".1f"),
                   num(_median(r, "skew_unc_us"), ".1f"), num(_max(r, "first_tx_err_us"), ".1f")])
    t.note = ("itg-mpi skew: its start_skew_s, the latest first departure less the earliest as the senders "
              "stamped them, in rank 0's time base. Wire spread: the same on the wire, the kernel's stamps of "
              "each flow's first packet (one clock: every rank runs on this host). With 2 ranks there is one "
              "flow, so no spread. With more sender ranks than CPUs, not all of them can run at the instant: "
              f"the spread then measures how the machine's {os.cpu_count()} CPUs take the ranks in turn. Last column: the largest gap between a flow's first departure as itg-mpi "
              "reports it and its first packet on the wire.")
    return [t]


def clock_table(rows):
    runs = _of(rows, CLOCK_SECTION)
    if not runs:
        return []
    t = Table("MPI: clock offsets, rank 1's real-time clock moved by libfaketime (3 ranks)",
              ["run", "clock moved s", "offset expected s", "offset found s", "|found - expected| us",
               "+- us", "within", "rank 2 (not moved) |offset| us", "+- us",
               "first departure vs wire us"])
    for i, r in enumerate(runs):
        err, unc = r.get("offset_err_us"), r.get("uncertainty_us")
        t.add([i + 1, num(-r["injected_s"] if r.get("injected_s") is not None else None, "+.3f"),
               num(r.get("injected_s"), "+.3f"), num(r.get("offset_s"), "+.9f"), num(err, ".2f"), num(unc, ".2f"),
               ("yes" if err <= unc else "no") if err is not None and unc is not None else "-",
               num(r.get("control_err_us"), ".2f"), num(r.get("control_unc_us"), ".2f"),
               num(r.get("first_tx_err_us"), ".1f")])
    errs = _vals(runs, "offset_err_us")
    t.note = (f"Offset: rank 0's clock minus the rank's (a clock moved ahead by s has offset -s), from the "
              f"quickest of 200 ping-pong round trips; +-: half that round trip. |found - expected|: median "
              f"{num(float(np.median(errs)) if errs else None, '.2f')} us, max {num(max(errs, default=None), '.2f')} "
              "us. Last column: the first departures of both flows (one from the moved rank) as itg-mpi "
              "reports them in rank 0's time base, against the wire: a wrong offset would show whole. "
              "libfaketime leaves the monotonic clock alone (FAKETIME_DONT_FAKE_MONOTONIC), which the start "
              "sleeps on, and its condition variables' deadlines too (FAKETIME_FORCE_MONOTONIC_FIX=0). " + _notes(runs))
    return [t]


def _cpu_s(row):
    """CPU seconds of every process of a run: mpirun's wait4 for itg-mpi,
    the logging section's sum for the others."""
    return row.get("all_cpu_s") if row["tool"] == ItgMpi.name else log_section.cpu_s(row)


def _lower(x, base):
    """How much lower (%) x is than base."""
    return 100.0 * (base - x) / base if x and base else None


def _higher(x, base):
    """How much higher (%) x is than base."""
    return 100.0 * (x - base) / base if x and base else None


def log_tables(rows):
    top = _of(rows, LOG_SECTION)
    cpu = _of(rows, LOG_CPU_SECTION)
    out = []
    modes = LIBITG_LOG_MODES + ("mpi",)
    tool = lambda m: ItgMpi.name if m == "mpi" else "libitg"
    ds = [d for d in dict.fromkeys(r["log_batch"] for r in top + cpu) if d is not None]
    if top:
        t = Table("MPI: logging, as fast as possible (-C 1000000), 64-byte UDP, 3 processes, by log buffer D",
                  ["D"] + [f"{MODE_NAMES[m]} pkt/s" for m in modes]
                  + [f"{MODE_NAMES[m]} cost %" for m in modes[1:]] + ["none loss", "MPI loss", "MPI spilled"])
        for d in ds:
            med = {m: log_section.median_run(top, tool(m), m, d) for m in modes}
            base = med["none"].get("achieved_pps")
            t.add([d] + [num(med[m].get("achieved_pps"), ".0f") for m in modes]
                  + [num(_lower(med[m].get("achieved_pps"), base), "+.1f") for m in modes[1:]]
                  + [loss_text(med[m]) if med[m] else "-" for m in ("none", "mpi")]
                  + [num(med["mpi"].get("spilled"), "d")])
        t.note = ("Each cell the median-rate run of its rounds. none / local file / remote TCP: itg-send and "
                  "itg-recv (--wait hybrid) as in the logging section, remote TCP shipping both logs to itg-log. "
                  "itg-mpi: 3 ranks, the sender on rank 1, the receiver on rank 2, rank 0 gathering both logs "
                  "over MPI, -D D on both: the same three processes as itg-send, itg-recv and itg-log. cost %: "
                  "below the no-log rate of the same D. Loss: wire - packets the receiver counted (a receiver "
                  "that falls behind leaves its CPU to the sender on this 2-CPU machine). MPI spilled: records "
                  "the senders could not hand to rank 0 in time, kept in spill files. " + _notes(top))
        out.append(t)
    if cpu:
        t = Table(f"MPI: logging in CPU time, {log_section.CPU_RATE} pkt/s, CPU seconds of every process per "
                  "million packets on the wire", ["D"] + [MODE_NAMES[m] for m in modes] + ["itg-mpi less its job"]
                  + [f"{MODE_NAMES[m]} cost %" for m in modes[1:]] + ["itg-mpi less its job cost %"])
        fixed = _median(_of(cpu, LOG_CPU_SECTION, log="mpi-fixed"), "all_cpu_s")
        per = lambda rs, less=0.0: [(_cpu_s(r) - less) / r["wire_packets"] * 1e6 for r in rs
                                    if _cpu_s(r) is not None and r.get("wire_packets")]
        med = lambda x: float(np.median(x)) if x else None
        base_runs = per(_of(cpu, LOG_CPU_SECTION, log="none"))
        base = med(base_runs)
        for d in ds:
            v = {m: med(per(_of(cpu, LOG_CPU_SECTION, log=m, log_batch=d))) for m in modes}
            net = med(per(_of(cpu, LOG_CPU_SECTION, log="mpi", log_batch=d), fixed)) if fixed is not None else None
            t.add([d] + [num(v[m], ".3f") for m in modes] + [num(net, ".3f")]
                  + [num(_higher(v[m], base), "+.1f") for m in modes[1:]] + [num(_higher(net, base), "+.1f")])
        t.note = ("Medians over rounds; cost %: more CPU than the median of every no-log run "
                  f"({num(base, '.3f')}, range {num(min(base_runs, default=None), '.3f')} to "
                  f"{num(max(base_runs, default=None), '.3f')}). itg-send: sender + receiver (+ itg-log), wait4 of "
                  "each, --wait hybrid (itg-mpi's senders have no other mode: the logging section's CPU table "
                  "uses --wait sleep). itg-mpi: wait4 of mpirun, which reaps its 3 ranks and so holds their CPU "
                  "time with its own; it also holds what only a job does: MPI_Init, 200 clock round trips a "
                  "rank, the start's 200 ms margin, rank 0 decoding the gathered logs into its report. itg-mpi "
                  f"less its job: less the median CPU of the same job sending for {FIXED_S * 1000:.0f} ms "
                  f"({num(fixed, '.2f')} s, what a job costs whatever it sends). " + _notes(cpu))
        out.append(t)
    return out


def gather_table(rows):
    runs = _of(rows, GATHER_SECTION)
    if not runs:
        return []
    t = Table("MPI: records a gathering rank absorbs (tests/mpi/log_gather)",
              ["ranks", "logging ranks", "runs", "records each", "M records/s p50", "min", "max", "spilled"])
    for n in GATHER_RANKS:
        r = _of(rows, GATHER_SECTION, ranks=n)
        v = _vals(r, "records_per_s")
        if r:
            t.add([n, n - 1, len(r), r[0]["records_each"],
                   num(float(np.median(v)) / 1e6 if v else None, ".2f"), num(min(v) / 1e6 if v else None, ".2f"),
                   num(max(v) / 1e6 if v else None, ".2f"), num(sum(_vals(r, "spilled")), "d")])
    t.note = ("Every rank but 0 logs its records through the MPI log sink (two buffers of 2 048 records, "
              "MPI_Isend) as fast as its logger takes them; rank 0 writes them to one file a rank. Records/s: "
              "all records gathered over the time rank 0 gathered, first message to last end marker. Spilled: "
              "records a rank kept in its spill file because rank 0 was behind. " + _notes(runs))
    return [t]


def tables(rows):
    return rate_table(rows) + skew_table(rows) + clock_table(rows) + log_tables(rows) + gather_table(rows)


def _notes(rows):
    notes = [f"{r['tool']} {r['label']}: {r['note']}" for r in rows if r.get("note")]
    return ("Notes: " + "; ".join(notes) + ".") if notes else ""
