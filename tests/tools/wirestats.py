#!/usr/bin/env python3
"""wirestats: the rate and inter-departure figures of a wiretap capture.

    wirestats.py CAPTURE [--rate PPS] [--idt-dist LAW] [--size-dist LAW]
                 [--skip SECONDS] [--json]

Always: packets, span_s, rate_pps ((packets - 1) / span from first to last
departure), mean_size, idt_mean_us, idt_std_us, idt_p50_us, idt_max_us.
--rate PPS, the constant rate asked of the sender, adds rate_err_pct, the
inter-departure errors |idt - 1/PPS| (idt_abs_err_p50_us, _p99_us, _p999_us)
and the drift from the schedule first departure + k/PPS (sched_lag_p99_us,
sched_lag_max_us). --idt-dist and --size-dist add a Kolmogorov-Smirnov test
of the gaps (in seconds) or of the payload sizes (in bytes) against a law:
idt_ks_stat, idt_ks_p, size_ks_stat, size_ks_p. A LAW is NAME:PARAMS, one of
exp:MEAN, uniform:LOW,HIGH, normal:MEAN,SD, pareto:SHAPE,SCALE and
cauchy:LOCATION,SCALE. --skip drops the first SECONDS of the capture.

Departures are taken in the order of their timestamps. Prints one figure a
line, or with --json one JSON object.

Also a module: load() and summarize() give the same figures to a program.
"""
import argparse
import json
import sys

import numpy as np
from scipy import stats

# One wiretap record: the kernel's timestamp (ns since the epoch), the
# payload's length and its first four bytes, read as a network-order number.
RECORD = np.dtype([("ts", "<u8"), ("len", "<u4"), ("head", ">u4")])

# The KS test of a long capture runs on a sample of this many gaps, drawn
# with a fixed seed so that a capture always gives the same figure.
KS_SAMPLE = 200000

LAWS = {
    "exp": (1, lambda p: stats.expon(scale=p[0])),
    "uniform": (2, lambda p: stats.uniform(loc=p[0], scale=p[1] - p[0])),
    "normal": (2, lambda p: stats.norm(loc=p[0], scale=p[1])),
    "pareto": (2, lambda p: stats.pareto(b=p[0], scale=p[1])),
    "cauchy": (2, lambda p: stats.cauchy(loc=p[0], scale=p[1])),
}


def law(spec):
    """NAME:P1[,P2] as a scipy distribution; ValueError if it is not one."""
    name, _, params = spec.partition(":")
    if name not in LAWS:
        raise ValueError(f"{spec!r}: the laws are {', '.join(LAWS)}")
    count, make = LAWS[name]
    try:
        p = [float(x) for x in params.split(",")] if params else []
    except ValueError:
        raise ValueError(f"{spec!r}: parameters must be numbers") from None
    if len(p) != count:
        raise ValueError(f"{spec!r}: {name} takes {count} parameter(s)")
    return make(p)


def load(path):
    """The records of a capture file."""
    return np.fromfile(path, dtype=RECORD)


def summarize(records, rate=None, idt_law=None, size_law=None, skip_s=0.0):
    """The figures of a capture as a dict (see the module's description);
    idt_law and size_law are scipy distributions."""
    r = np.sort(records, order="ts", kind="stable")
    ts = r["ts"].astype(np.int64)
    if skip_s and len(ts):
        keep = ts >= ts[0] + int(skip_s * 1e9)
        r, ts = r[keep], ts[keep]
    out = {"packets": int(len(r))}
    span = (ts[-1] - ts[0]) / 1e9 if len(ts) >= 2 else 0.0
    if span <= 0:
        return out
    idt = np.diff(ts) / 1e9
    out.update(span_s=float(span), rate_pps=(len(ts) - 1) / span, mean_size=float(r["len"].mean()),
               idt_mean_us=float(idt.mean() * 1e6), idt_std_us=float(idt.std() * 1e6),
               idt_p50_us=float(np.percentile(idt, 50) * 1e6), idt_max_us=float(idt.max() * 1e6))
    if rate:
        err_us = np.abs(idt - 1.0 / rate) * 1e6
        # From the first departure in integers: epoch nanoseconds as a
        # float are only good to a quarter of a microsecond.
        lag_us = np.abs((ts - ts[0]) - np.arange(len(ts)) * (1e9 / rate)) / 1e3
        out.update(rate_err_pct=100.0 * (out["rate_pps"] - rate) / rate,
                   idt_abs_err_p50_us=float(np.percentile(err_us, 50)),
                   idt_abs_err_p99_us=float(np.percentile(err_us, 99)),
                   idt_abs_err_p999_us=float(np.percentile(err_us, 99.9)),
                   sched_lag_p99_us=float(np.percentile(lag_us, 99)), sched_lag_max_us=float(lag_us.max()))
    if idt_law is not None:
        sample = idt
        if len(idt) > KS_SAMPLE:
            sample = np.random.default_rng(1).choice(idt, KS_SAMPLE, replace=False)
        ks = stats.kstest(sample, idt_law.cdf)
        out.update(idt_ks_stat=float(ks.statistic), idt_ks_p=float(ks.pvalue))
    if size_law is not None:
        ks = stats.kstest(r["len"].astype(float), size_law.cdf)
        out.update(size_ks_stat=float(ks.statistic), size_ks_p=float(ks.pvalue))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("capture", help="a file written by wiretap")
    ap.add_argument("--rate", type=float, help="the constant rate asked of the sender, pkt/s")
    ap.add_argument("--idt-dist", help="the law of the gaps, in seconds, e.g. exp:0.0001")
    ap.add_argument("--size-dist", help="the law of the payload sizes, in bytes, e.g. uniform:64,1400")
    ap.add_argument("--skip", type=float, default=0.0, help="seconds to drop at the start")
    ap.add_argument("--json", action="store_true", help="one JSON object")
    a = ap.parse_args(argv)
    if a.rate is not None and not a.rate > 0:
        ap.error("--rate must be positive")
    try:
        idt_law = law(a.idt_dist) if a.idt_dist else None
        size_law = law(a.size_dist) if a.size_dist else None
        records = load(a.capture)
    except (ValueError, OSError) as e:
        ap.error(str(e))
    out = summarize(records, a.rate, idt_law, size_law, a.skip)
    if a.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:22s} {v:.6g}" if isinstance(v, float) else f"{k:22s} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
