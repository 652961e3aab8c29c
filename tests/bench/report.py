"""The benchmark's outputs: text tables for the terminal, the same tables in
Markdown, CSV files of every run, and PNG plots."""
import csv
import importlib.util
import json
import os
import subprocess

import numpy as np

# Every run gives one row with these fields (None when not applicable).
FIELDS = ["section", "tool", "label", "requested_pps", "size", "log_batch", "flows",
          "seconds", "wire_packets", "achieved_pps", "rate_err_pct", "mbit_s",
          "idt_err_p50_us", "idt_err_p99_us", "idt_err_p999_us", "drift_p99_us",
          "idt_mean_us", "ks_stat", "ks_p", "logged", "loss", "loss_pct",
          "sender_cpu_s", "sender_cpu_pct", "recv_cpu_s", "logsrv_cpu_s", "sender_rc", "tap_drops",
          "flows_seen", "agg_pps", "agg_err_pct", "worst_flow_err_pct",
          "flow_idt_p99_median_us", "flow_idt_p99_max_us", "machine_stalled_ms_pct", "machine_sleep_p99_us", "law", "log", "sender_logged", "send_log_lost",
          "recv_pps", "gen_err_pct", "cost_pct",
          # the MPI section's
          "ranks", "all_cpu_s", "spilled", "log_lost", "start_skew_us", "skew_unc_us", "wire_spread_us",
          "first_tx_err_us", "fake_rank", "injected_s", "offset_s", "offset_err_us", "uncertainty_us",
          "control_err_us", "control_unc_us", "records_each", "gather_s", "records_per_s",
          # the receiver section's
          "hog", "sent", "send_pps", "drain_s", "drain_pps", "drain_cpu_ns_pkt", "kept_up", "sock_drops", "softnet_drops", "passed",
          "ceiling_pps", "top_pps", "bracket_pps", "trials", "recv_cpu_us_pkt", "note"]

PAPER_MBIT_S = 230.0  # ITG-LS/ITG-MPI sender, 1 024-byte packets (figure 9)


def num(v, spec=".1f"):
    """v formatted, or '-' when there is no value."""
    if v is None:
        return "-"
    if isinstance(v, float) and not np.isfinite(v):
        return "-"
    return format(v, spec)


def ratio(a, b, spec=".2f"):
    """a / b formatted, '-' if either is missing or b is 0."""
    if a is None or b is None or b == 0:
        return "-"
    return format(a / b, spec)


def loss_text(row):
    if row.get("loss") is None:
        return "-"
    pct = row.get("loss_pct")
    return f"{row['loss']} ({pct:.2f} %)" if pct is not None else str(row["loss"])


class Table:
    """A titled table rendered as aligned text or as Markdown."""

    def __init__(self, title, headers, note=""):
        self.title = title
        self.headers = headers
        self.rows = []
        self.note = note

    def add(self, cells):
        self.rows.append([str(c) for c in cells])

    def text(self):
        widths = [max(len(h), *(len(r[i]) for r in self.rows)) if self.rows else len(h)
                  for i, h in enumerate(self.headers)]
        line = lambda cells: "  ".join(c.rjust(w) if i else c.ljust(w)
                                       for i, (c, w) in enumerate(zip(cells, widths)))
        out = [self.title, line(self.headers), line(["-" * w for w in widths])]
        out += [line(r) for r in self.rows]
        if self.note:
            out.append(self.note)
        return "\n".join(out) + "\n"

    def markdown(self):
        out = [f"### {self.title}", "", "| " + " | ".join(self.headers) + " |",
               "|" + "|".join("---" if i == 0 else "---:" for i in range(len(self.headers))) + "|"]
        out += ["| " + " | ".join(r) + " |" for r in self.rows]
        if self.note:
            out += ["", self.note]
        return "\n".join(out) + "\n"


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in FIELDS})


def plot_idt_errors(path, series, rate):
    """CDF of |inter-departure error| per tool; series: [(name, errors in us)]."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 5))
    for name, err in series:
        if len(err) == 0:
            continue
        x = np.sort(np.maximum(np.abs(err), 1e-3))
        y = np.arange(1, len(x) + 1) / len(x)
        ax.plot(x, y, label=f"{name} (p99 {np.percentile(np.abs(err), 99):.1f} us)")
    ax.set_xscale("log")
    ax.set_xlabel("|actual - scheduled inter-departure time| (us), on the wire")
    ax.set_ylabel("fraction of packets")
    ax.set_title(f"Inter-departure error at {rate:,} pkt/s, 64-byte UDP over loopback")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_achieved(path, rows, ceiling):
    """Achieved versus requested rate per tool (log-log), with each tool's
    as-fast-as-possible rate and the blaster ceiling as horizontal lines."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 5.5))
    tools = [t for t in dict.fromkeys(r["tool"] for r in rows) if not t.startswith("blaster")]
    lo, hi = 5, 1e6
    ax.plot([lo, hi], [lo, hi], color="grey", lw=1, ls=":", label="requested")
    for i, tool in enumerate(tools):
        pts = sorted((r["requested_pps"], r["achieved_pps"]) for r in rows
                     if r["tool"] == tool and r["requested_pps"] and r["achieved_pps"])
        color = f"C{i}"
        if pts:
            ax.plot(*zip(*pts), marker="o", color=color, label=tool)
        top = [r["achieved_pps"] for r in rows if r["tool"] == tool and r["label"] == "max" and r["achieved_pps"]]
        if top:
            ax.axhline(top[0], color=color, ls="--", lw=0.8)
    if ceiling:
        ax.axhline(ceiling, color="black", ls="-.", lw=1, label="blaster sendmmsg x32 (ceiling)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("requested rate (pkt/s); dashed: as fast as possible")
    ax.set_ylabel("achieved rate on the wire (pkt/s)")
    ax.set_title("Achieved vs requested rate, 64-byte UDP over loopback")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_sweep(path, rows, xkey, ykey, xlabel, ylabel, title, logx=False, hline=None, ideal=None, style=None):
    """One curve per tool of ykey against xkey; hline: (y, label) of a
    reference; ideal: y as a function of x, drawn as "requested"; style:
    a curve's name -> its matplotlib keywords (colour, line style)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for tool in dict.fromkeys(r["tool"] for r in rows):
        pts = sorted((r[xkey], r[ykey]) for r in rows
                     if r["tool"] == tool and r.get(xkey) is not None and r.get(ykey) is not None)
        if pts:
            ax.plot(*zip(*pts), marker="o", label=tool, **(style(tool) if style else {}))
    if ideal:
        xs = sorted({r[xkey] for r in rows if r.get(xkey) is not None})
        ax.plot(xs, [ideal(x) for x in xs], color="grey", ls=":", lw=1, label="requested")
    if hline:
        ax.axhline(hline[0], color="grey", ls="--", lw=1, label=hline[1])
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def have_matplotlib():
    return importlib.util.find_spec("matplotlib") is not None


def timer_noise_sample(path, seconds):
    """Runs timer_noise (tests/accept/timer_noise.c) for seconds of sleeps
    and as many of spinning: its figures, or None if it cannot run."""
    try:
        out = subprocess.run([str(path), str(seconds)], capture_output=True, text=True,
                             timeout=30 + 2 * seconds)
        return json.loads(out.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def timer_noise(path):
    """The machine's own timekeeping, measured without any sender: one
    sentence, or None if it cannot run."""
    n = timer_noise_sample(path, 2)
    if n is None:
        return None
    return (f"This machine's timer, without any sender: 1 ms sleeps woke late by "
            f"p50 {n['sleep_1ms_late_p50_us']:.1f} us, p99 {n['sleep_1ms_late_p99_us']:.1f} us, and "
            f"sleeping so, 1 000 times a second, used {n['sleep_1ms_cpu_pct']:.2f} % of a core; "
            f"a spinning thread lost {n['spin_lost_pct']:.2f} % of its time in "
            f"{n['spin_gaps_over_20us']} gaps over 20 us, the longest {n['spin_gap_max_us']:.0f} us, and "
            f"lost over 50 us in {n['spin_ms_stalled_over_50us_pct']:.2f} % of its milliseconds.")


def machine():
    """What the numbers were measured on."""
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = os.getloadavg()
    return {"nproc": os.cpu_count(), "cpu": model, "kernel": os.uname().release,
            "load": " ".join(f"{x:.2f}" for x in load), "load1": load[0]}
