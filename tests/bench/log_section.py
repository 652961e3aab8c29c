"""The logging section: what logging costs a sender that goes as fast as it
can (the paper's experiment on its log server, ITG-LS).

For each log buffer D (-q, sender and receiver) and each way of logging
(none; local files; both logs shipped to a log server over TCP; over UDP),
libitg and D-ITG each run once as fast as possible, 64-byte UDP. The runs
of one D follow one another, so that each mode is measured next to the
no-log run it is compared with. A remote-logging run starts its own log
server (itg-log on a port the system picked, ITGLog on the one port it
takes) in a folder of its own, and the receiver's packets are
counted in the file that server wrote.

(Not named logging.py: beside run.py that would hide Python's own logging
module from matplotlib.)
"""
import os
import re
from pathlib import Path

import numpy as np

from procs import Proc, port_pair, tcp_listening, wait_until
from report import Table, loss_text, num, plot_sweep, ratio
from tools import LOG_MODES, MAX_REQUEST_PPS, Load

SECTION = "logging"
CPU_SECTION = "logging_cpu"
MODE_NAMES = {"none": "none", "local": "local file", "tcp": "remote TCP", "udp": "remote UDP"}
DS_FULL, DS_QUICK = (1, 10, 50, 100), (1, 50)
# Each configuration runs this many times, in rounds, and the tables show
# the run with the median rate: on a small shared machine one run's rate
# moves by 10 % or more, as much as the cost being measured.
ROUNDS_FULL, ROUNDS_QUICK = 3, 1
# The goal: logging to a log server costs at most this share (%) of the
# rate the same sender reaches with no log.
GOAL_PCT = 3.0
# The same cost in CPU time: a fixed rate that every mode keeps, sent with
# sleeps between packets (itg-send --wait sleep), so that the sender's CPU
# time is its work rather than its waiting. A sender that goes as fast as
# it can turns every CPU second into packets, so where the CPU is the
# limit the top rate falls by the share the CPU time grows; and CPU time
# is measured by the kernel per process, which the host's stalls that
# move the top rate by 10 % or more leave out.
CPU_RATE = 20000
LOG_SERVER_START_S = 10.0
SESSIONS_END_S = 5.0


class LogServer:
    """The log server of one remote-logging run, writing into a folder of
    its own: started before the receiver, stopped once the receiver has
    shipped its log."""

    def __init__(self, tool, folder):
        self.tool = tool
        self.folder = Path(folder)
        self.port = None
        self.proc = None

    def start(self, out_path, life_s):
        """Starts the server; returns why it could not, or None."""
        self.folder.mkdir(parents=True, exist_ok=True)
        port = self.tool.log_server_port
        if port is None:
            # The first of a pair the system picked: the server takes it
            # for TCP and UDP alike, the second stays unused.
            port, _ = port_pair()
        elif tcp_listening(port):
            # Only a listener is in the way: connections of the previous
            # run's server left in TIME_WAIT are not.
            return f"something already listens on TCP {port}: the log server cannot start"
        argv = self.tool.log_server_argv(port, self.folder)
        if not argv[0] or not os.access(argv[0], os.X_OK):
            return f"log server {argv[0] or '(ITGLog)'} not found"
        self.port = port
        self.proc = Proc(argv, out_path, life_s, cwd=self.folder)
        wait_until(lambda: self.proc.poll() is not None or tcp_listening(port), LOG_SERVER_START_S)
        if not tcp_listening(port):
            self.stop()
            return "log server did not start: " + self.proc.tail()
        return None

    def finish(self):
        """Waits until every session the server opened has ended (its files
        are whole), then stops it; returns notes on what went wrong."""
        if self.proc is None:
            return []
        notes = []
        if not wait_until(lambda: self.tool.log_server_idle(self.proc.output()), SESSIONS_END_S):
            notes.append(f"log server: a session still open {SESSIONS_END_S:.0f} s after the receiver stopped")
        self.stop()
        if self.proc.killed:
            notes.append("log server had to be killed")
        return notes

    def stop(self):
        if self.proc is not None:
            self.proc.stop(self.tool.stop_signal, 10.0)

    def path(self, name):
        """Where the server wrote the log named name: itg-log keeps a
        session whose client did not leave as NAME.incomplete."""
        plain = self.folder / name
        partial = self.folder / (name + ".incomplete")
        return str(partial if partial.exists() and not plain.exists() else plain)

    def notes(self, *client_outputs):
        """What the server's files and its clients' outputs say of log
        records that did not reach it (libitg's sender and receiver name
        spilled records and records lost over UDP; D-ITG says nothing)."""
        out = [f"{p.name} incomplete" for p in self.folder.glob("*.incomplete")]
        for text in client_outputs:
            for who, n, what in re.findall(r"(sender|receiver) log: (\d+) records "
                                           r"(went to the spill file|lost on the way)", text):
                out.append(f"{who} log: {n} records " + ("spilled" if what.startswith("went") else "lost over UDP"))
            if "log server cannot be reached" in text:
                out.append("receiver: log server unreachable at first")
        return out


def add_runs(add, tools, cpu_tool, quick):
    """Adds the section's runs through add(section, tool, load, label,
    **options): round after round, for each D, every mode, each tool as
    fast as it can, then cpu_tool at CPU_RATE."""
    seconds = 2 if quick else 3
    for _ in range(ROUNDS_QUICK if quick else ROUNDS_FULL):
        for d in DS_QUICK if quick else DS_FULL:
            for mode in LOG_MODES:
                for tool in tools:
                    load = Load(["-C", str(MAX_REQUEST_PPS)], None, seconds, log_batch=d, log=mode)
                    add(SECTION, tool, load, f"{mode}-D{d}", sender_log=True)
                load = Load(["-C", str(CPU_RATE)], CPU_RATE, seconds, log_batch=d, log=mode)
                add(CPU_SECTION, cpu_tool, load, f"{mode}-D{d}", sender_log=True)


def _runs(rows, tool, mode, d):
    return [r for r in rows if r["tool"] == tool and r.get("log") == mode and r["log_batch"] == d]


def median_run(rows, tool, mode, d):
    """The run of that tool, mode and D with the median rate (the lower
    of the two middle ones for an even count), or {}."""
    runs = sorted((r for r in _runs(rows, tool, mode, d) if r.get("achieved_pps")),
                  key=lambda r: r["achieved_pps"])
    return runs[(len(runs) - 1) // 2] if runs else {}


def annotate(rows):
    """Adds to the section's rows what needs other rows or the whole row:
    the receiver's rate, the generation error, what the sender's log
    missed, and the cost against the same tool's no-log run at that D."""
    mine = [r for r in rows if r["section"] == SECTION]
    base = {(r["tool"], r["log_batch"]): median_run(mine, r["tool"], "none", r["log_batch"]).get("achieved_pps")
            for r in mine}
    for r in mine:
        pps, wire, logged = r.get("achieved_pps"), r.get("wire_packets"), r.get("logged")
        if pps and wire and wire > 1 and logged is not None:
            # The receiver's packets over the span of the wire's, first to last.
            r["recv_pps"] = logged * pps / (wire - 1)
        if pps:
            r["gen_err_pct"] = 100.0 * (pps - MAX_REQUEST_PPS) / MAX_REQUEST_PPS
        if wire is not None and r.get("sender_logged") is not None:
            r["send_log_lost"] = wire - r["sender_logged"]
        none_pps = base.get((r["tool"], r["log_batch"]))
        if pps and none_pps:
            r["cost_pct"] = 100.0 * (none_pps - pps) / none_pps


def tables(rows):
    """The section's tables: libitg against D-ITG per mode and D, then
    every run in detail."""
    mine = [r for r in rows if r["section"] == SECTION]
    if not mine:
        return []
    main = Table("Logging: as fast as possible, 64-byte UDP, by way of logging and log buffer D (-q)",
                 ["mode", "D", "libitg pkt/s", "cost %", "libitg recv pkt/s", "libitg loss",
                  "D-ITG pkt/s", "D-ITG cost %", "D-ITG recv pkt/s", "D-ITG loss", "libitg / D-ITG"])
    for d in dict.fromkeys(r["log_batch"] for r in mine):
        for mode in LOG_MODES:
            l, g = median_run(mine, "libitg", mode, d), median_run(mine, "D-ITG", mode, d)
            if not l and not g:
                continue
            main.add([MODE_NAMES[mode], d, num(l.get("achieved_pps"), ".0f"), num(l.get("cost_pct"), "+.1f"),
                      num(l.get("recv_pps"), ".0f"), loss_text(l) if l else "-",
                      num(g.get("achieved_pps"), ".0f"), num(g.get("cost_pct"), "+.1f"),
                      num(g.get("recv_pps"), ".0f"), loss_text(g) if g else "-",
                      ratio(l.get("achieved_pps"), g.get("achieved_pps"))])
    rounds = max(len(_runs(mine, r["tool"], r.get("log"), r["log_batch"])) for r in mine)
    main.note = (f"Each line is the run with the median rate of {rounds} (every run is in the next table). "
                 "pkt/s: sender's rate on the wire (wiretap); cost %: how much lower than the same tool's "
                 "median no-log rate at the same D; recv pkt/s: packets in the receiver's "
                 "log (the log server's copy for remote modes; itg-recv's own count with no log) over the "
                 "wire's span; loss: wire - receiver's count. " + goal_line(mine))
    detail = Table("Logging, every run (gen err: achieved against the 1 000 000 pkt/s asked; "
                   "send log lost: wire - records in the sender's log)",
                   ["tool", "mode", "D", "pkt/s", "gen err %", "recv pkt/s", "loss", "send log lost",
                    "cpu s", "cpu %"])
    notes = []
    for r in mine:
        mode = MODE_NAMES.get(r.get("log"), "?")
        detail.add([r["tool"], mode, r["log_batch"], num(r.get("achieved_pps"), ".0f"),
                    num(r.get("gen_err_pct"), "+.1f"), num(r.get("recv_pps"), ".0f"), loss_text(r),
                    num(r.get("send_log_lost"), "d"), num(r.get("sender_cpu_s"), ".2f"),
                    num(r.get("sender_cpu_pct"), ".1f")])
        if r.get("note"):
            notes.append(f"- {r['tool']}, {mode}, D {r['log_batch']}: {r['note']}")
    if any(r["tool"] == "D-ITG" and r.get("log") == "none" for r in mine):
        notes.append("- D-ITG, none: ITGRecv without a log counts nothing it tells: no receiver figures.")
    detail.note = "\n".join(notes)
    return [main, detail]


def cpu_s(row):
    """CPU seconds of a run's sender, receiver and log server together."""
    parts = [row.get("sender_cpu_s"), row.get("recv_cpu_s")]
    if row.get("log") in ("tcp", "udp"):
        parts.append(row.get("logsrv_cpu_s"))
    return sum(parts) if all(p is not None for p in parts) else None


def _cpu_per_million(rows, mode, d=None):
    """Each run's CPU seconds per million packets on the wire, in that mode
    at D d (None: every D)."""
    return [cpu_s(r) / r["wire_packets"] * 1e6 for r in rows
            if r.get("log") == mode and d in (None, r["log_batch"]) and cpu_s(r) is not None
            and r.get("wire_packets")]


def _median_cpu(rows, mode, d=None):
    """The median over rounds of _cpu_per_million, or None."""
    per = _cpu_per_million(rows, mode, d)
    return float(np.median(per)) if per else None


def cpu_table(rows):
    """The logging cost in CPU time at a fixed rate: one line per D, the
    median over rounds of each mode, and each mode's cost against no log."""
    mine = [r for r in rows if r["section"] == CPU_SECTION]
    if not mine:
        return []
    t = Table(f"Logging in CPU time: {CPU_RATE} pkt/s, 64-byte UDP, itg-send --wait sleep; CPU seconds of "
              "sender, receiver and log server per million packets",
              ["D"] + [MODE_NAMES[m] for m in LOG_MODES] + [f"{MODE_NAMES[m]} cost %" for m in LOG_MODES[1:]])
    costs = []
    # Without a log D means nothing: every no-log run is one more sample
    # of the same thing, and all of them make the baseline.
    base = _median_cpu(mine, "none")
    spread = _cpu_per_million(mine, "none")
    for d in dict.fromkeys(r["log_batch"] for r in mine):
        cpu = {m: _median_cpu(mine, m, d) for m in LOG_MODES}
        cost = {m: 100.0 * (cpu[m] - base) / base if cpu[m] and base else None for m in LOG_MODES[1:]}
        costs += [cost[m] for m in ("tcp", "udp") if cost[m] is not None]
        t.add([d] + [num(cpu[m], ".3f") for m in LOG_MODES] + [num(cost[m], "+.1f") for m in LOG_MODES[1:]])
    rounds = max(sum(1 for x in mine if x.get("log") == r.get("log") and x["log_batch"] == r["log_batch"])
                 for r in mine)
    within = sum(1 for c in costs if c <= GOAL_PCT)
    t.note = (f"Median of {rounds} round{'s' if rounds != 1 else ''}. Every mode keeps the rate, so the CPU "
              f"seconds compare the same work; cost %: more CPU than the median of every no-log run ({num(base, '.3f')}; they "
              f"range from {num(min(spread, default=None), '.3f')} to {num(max(spread, default=None), '.3f')}, "
              f"which is how far this machine moves one measurement). Goal ({GOAL_PCT:.0f} %): remote "
              f"logging within it for {within} of {len(costs)} configurations"
              + (f", worst {max(costs):+.1f} %." if costs else "."))
    notes = [f"- {MODE_NAMES.get(r.get('log'), '?')}, D {r['log_batch']}: {r['note']}" for r in mine if r.get("note")]
    if notes:
        t.note += "\n" + "\n".join(notes)
    return [t]


def goal_line(rows):
    """How libitg's remote-logging runs stand against the goal, as counts
    of what was measured."""
    medians = [median_run(rows, "libitg", mode, d) for mode in ("tcp", "udp")
               for d in dict.fromkeys(r["log_batch"] for r in rows)]
    costs = [r["cost_pct"] for r in medians if r.get("cost_pct") is not None]
    if not costs:
        return "No libitg remote-logging run has a cost."
    within = sum(1 for c in costs if c <= GOAL_PCT)
    return (f"Goal (remote logging costs at most {GOAL_PCT:.0f} % of the no-log rate): libitg's median run "
            f"within it for {within} of {len(costs)} remote configurations, worst {max(costs):+.1f} %.")


def plot(path, rows):
    """Max rate against D (the median run of each), one line per tool and
    mode; returns the file name, or None without rows."""
    runs = [r for r in rows if r["section"] == SECTION]
    medians = [median_run(runs, tool, mode, d) for tool in dict.fromkeys(r["tool"] for r in runs)
               for mode in LOG_MODES for d in dict.fromkeys(r["log_batch"] for r in runs)]
    mine = [dict(r, tool=f"{r['tool']} {MODE_NAMES.get(r.get('log'), '?')}") for r in medians if r]
    if not mine:
        return None
    # One colour per mode, one line style per tool.
    styles = {f"{tool} {MODE_NAMES[m]}": {"color": f"C{i}", "ls": "-" if tool == "libitg" else "--"}
              for i, m in enumerate(LOG_MODES) for tool in ("libitg", "D-ITG")}
    plot_sweep(path, mine, "log_batch", "achieved_pps", "log buffer D (records per write)",
               "pkt/s on the wire", "Max rate vs log buffer D by way of logging (c = 64 B)", logx=True,
               style=lambda name: styles.get(name, {}))
    return Path(path).name
