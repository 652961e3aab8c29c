#!/usr/bin/env python3
"""ditg_laws: checks of D-ITG's traffic models on a wiretap capture (the
records wirestats.py reads), each printing its figures and exiting 1 when
the capture does not follow the model.

    ditg_laws.py onoff CAPTURE IDT_MS GAP_MS ON_LAW OFF_LAW
        An on/off flow of constant IDT (ms): the gaps longer than GAP_MS
        (above the IDT, below the shortest off period, so that a stall of
        the machine is not taken for one) are its off periods, the spans
        of packets between them its on periods. An on period of length L holds the departures before its
        end and its off period starts at that end, so L lies in
        (span, span + IDT] and the gap in (off, off + IDT]: the test takes
        span + IDT/2 and gap - IDT/2. KS tests of both against their laws
        (LAW as in wirestats.py, in ms), and the rate within on periods.
    ditg_laws.py sizes CAPTURE MODEL [LOW]
        The payload sizes against D-ITG's model (quake3, cs-active,
        cs-idle), rounded to whole bytes as libitg does and drawn again
        below LOW bytes (the header): a chi-square test.
    ditg_laws.py quake3-idt CAPTURE
        Quake 3's gaps: 40 % at 10.75 ms, the others exponential of mean
        4.29 ms: the share of gaps from 0.8 times 10.75 ms (what the
        catch-up may make of one on a busy machine) to 10.75 ms, each end
        widened by 0.5 ms, with their median at 10.75 ms; the share below
        3 ms, and the mean gap (the shortest gaps are the wire's timing
        noise as much as the law's, which a KS test of them would see).
    ditg_laws.py student-idt CAPTURE LOC_MS SCALE_MS DOF
        Counter-Strike's gaps: median and interquartile range of
        location + scale * t(dof): the median within 0.5 ms, the range
        from 0.7 times its own to its own plus 1 ms: the wire's timing
        noise is a fair part of a 0.1 ms scale, which a KS test would see,
        but a scale or location ten times off is not.
"""
import os
import sys

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wirestats  # noqa: E402

ALPHA = 0.01

TELNET = (list(range(21, 36)),
          [0.65, 0.13, 0.07, 0.05, 0.03, 0.01, 0.01, 0.01, 0.01, 0.005, 0.005,
           0.005, 0.005, 0.005, 0.005])
CS_IDLE = ([27, 28, 29, 30, 31, 32, 33, 35],
           [0.8312, 0.0018, 0.0453, 0.0195, 0.0879, 0.0024, 0.0106, 0.0013])


def gaps_ms(cap):
    r = np.sort(wirestats.load(cap), order="ts", kind="stable")
    return r, np.diff(r["ts"].astype(np.int64)) / 1e6


def verdict(ok, what):
    print(f"{'ok' if ok else 'FAILED'}: {what}")
    return 0 if ok else 1


def onoff(cap, idt_ms, gap_ms, on_law, off_law):
    idt_ms, gap_ms = float(idt_ms), float(gap_ms)
    r, g = gaps_ms(cap)
    ts = r["ts"].astype(np.int64) / 1e6
    cut = np.nonzero(g > gap_ms)[0]
    starts = np.concatenate(([0], cut + 1))
    ends = np.concatenate((cut, [len(ts) - 1]))
    # The last on period may be cut short by the end of the flow.
    spans = (ts[ends] - ts[starts])[:-1] + idt_ms / 2
    offs = g[cut] - idt_ms / 2
    counts = (ends - starts + 1)[:-1]
    on_ks = stats.kstest(spans, wirestats.law(on_law).cdf)
    off_ks = stats.kstest(offs, wirestats.law(off_law).cdf)
    # The median gap: a first packet woken late from an off period's sleep
    # shortens its period's span, not the IDTs.
    rate = 1000.0 / np.median(g[g <= gap_ms])
    print(f"periods {len(spans)}; on KS D {on_ks.statistic:.3f} p {on_ks.pvalue:.3g}; "
          f"off KS D {off_ks.statistic:.3f} p {off_ks.pvalue:.3g}; rate within on "
          f"{rate:.1f} pkt/s; packets per on period {counts.mean():.1f}")
    bad = verdict(len(spans) >= 30, "at least 30 on/off cycles")
    bad |= verdict(on_ks.pvalue > ALPHA, f"on periods follow {on_law} ms")
    bad |= verdict(off_ks.pvalue > ALPHA, f"off periods follow {off_law} ms")
    bad |= verdict(abs(rate * idt_ms / 1000.0 - 1) < 0.02, "the rate within on periods is 1/IDT")
    return bad


def rounded(cdf, values, low):
    """Probabilities of whole sizes v of a law rounded to the nearest
    byte and drawn again below low."""
    lo = cdf(low - 0.5) if low is not None else 0.0
    p = np.array([cdf(v + 0.5) - cdf(v - 0.5) for v in values])
    return p / (1 - lo)


def chisq(sizes, values, p, what):
    values = np.asarray(values)
    obs = np.array([(sizes == v).sum() for v in values], dtype=float)
    exp_ = np.asarray(p) * len(sizes)
    keep = exp_ >= 5
    o = np.append(obs[keep], len(sizes) - obs[keep].sum())
    e = np.append(exp_[keep], len(sizes) - exp_[keep].sum())
    if e[-1] < 1e-9:
        o, e = o[:-1], e[:-1]
    st = stats.chisquare(o, e)
    outside = len(sizes) - obs.sum()
    print(f"{what}: {len(sizes)} sizes, mean {sizes.mean():.2f} B, chi-square p {st.pvalue:.3g}, "
          f"{int(outside)} outside the model's values")
    return verdict(st.pvalue > ALPHA and outside == 0, f"sizes follow {what}")


def sizes(cap, model, low=None):
    r = wirestats.load(cap)
    s = r["len"].astype(int)
    low = int(low) if low is not None else None
    if model == "quake3":
        law = stats.norm(64.151757, 3.2035755)
        values = np.arange(40, 90)
        return chisq(s, values, rounded(law.cdf, values, low), model)
    if model == "cs-active":
        def cdf(x):
            return (0.3732 * stats.norm.cdf(x, 34.8352, 4.3915) +
                    0.6268 * stats.norm.cdf(x, 49.4904, 3.6186))
        values = np.arange(low if low is not None else 10, 70)
        return chisq(s, values, rounded(cdf, values, low), model)
    if model == "cs-idle":
        return chisq(s, *CS_IDLE, model)
    if model == "telnet":
        return chisq(s, *TELNET, model)
    raise SystemExit(f"unknown model {model}")


def quake3_idt(cap):
    _, g = gaps_ms(cap)
    ex = stats.expon(scale=4.29)

    def share_test(mask, want, what):
        sd = np.sqrt(want * (1 - want) / len(g))
        got = mask.mean()
        print(f"{what}: {got:.3f} (want {want:.3f})")
        return verdict(abs(got - want) < 5 * sd, what)
    # The constant gaps: the catch-up may shorten a gap to 0.8 of its IDT
    # while a busy machine's debt is paid, so the window reaches from
    # 0.8 * 10.75 ms to 10.75 ms, each end widened by 0.5 ms of timing
    # noise; the median of the gaps in it says where they stand.
    lo, hi = 0.8 * 10.75 - 0.5, 10.75 + 0.5
    spike = (g >= lo) & (g <= hi)
    bad = share_test(spike, 0.4 + 0.6 * (ex.cdf(hi) - ex.cdf(lo)),
                     f"the share of gaps in [{lo:.2f}, {hi:.2f}] ms")
    mid = np.median(g[spike])
    print(f"the median gap in that window: {mid:.3f} ms (want 10.75)")
    bad |= verdict(abs(mid - 10.75) < 0.25,
                   "the median gap in that window is 10.75 ms")
    bad |= share_test(g < 3.0, 0.6 * ex.cdf(3.0), "the share of gaps below 3 ms")
    # The mean of the laws' draws, to 4 standard deviations of a mean of
    # that many (the law's variance is 21.0 ms^2).
    mean = 0.6 * 4.29 + 0.4 * 10.75
    tol = 4 * np.sqrt(21.0 / len(g))
    print(f"gaps {len(g)}; mean {g.mean():.3f} ms (want {mean:.3f} +- {tol:.3f})")
    bad |= verdict(abs(g.mean() - mean) < tol, "the mean gap")
    return bad


def student_idt(cap, loc, scale, dof):
    loc, scale, dof = float(loc), float(scale), float(dof)
    _, g = gaps_ms(cap)
    t = stats.t(dof, loc=loc, scale=scale)
    q25, q50, q75 = np.percentile(g, [25, 50, 75])
    iqr = t.ppf(0.75) - t.ppf(0.25)
    print(f"gaps {len(g)}; median {q50:.4f} ms (want {t.median():.4f}); IQR {q75 - q25:.4f} ms "
          f"(want {iqr:.4f})")
    # Late departures widen the wire's spread, never narrow it much.
    bad = verdict(abs(q50 - t.median()) < 0.5, "the median gap")
    bad |= verdict(0.7 * iqr < q75 - q25 < iqr + 1.0, "the interquartile range")
    return bad


def main(argv):
    cmds = {"onoff": onoff, "sizes": sizes, "quake3-idt": quake3_idt, "student-idt": student_idt}
    if len(argv) < 2 or argv[0] not in cmds:
        raise SystemExit(__doc__)
    return cmds[argv[0]](*argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
