#!/usr/bin/env python3
"""Sends a flow on loopback to a receiver in the same process, then prints
the QoS report of what arrived.

    python3 examples/python/loopback.py [LOG]

The receiver and the sender run in libitg's own threads: Python starts
them, waits, and reads the results. Needs the itg package
(pip install ./bindings/python after make).
"""
import os
import sys
import tempfile

import itg


def main() -> int:
    if len(sys.argv) > 1:
        return run(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        return run(os.path.join(tmp, "recv.itglog"))


def run(log: str) -> int:
    arrived = 0

    def count(batch: itg.RecordBatch) -> None:
        # Called on the receiver's thread once per batch of logged records,
        # not per packet; an exception here would come back at the end of
        # the `with` block.
        nonlocal arrived
        arrived += sum(1 for rec in batch
                       if rec.is_packet and rec.flags & itg.log.REC_RX)

    # port=0: the receiver picks a free signaling port; a flow sent to the
    # receiver (itg.send(rx, ...)) is told that port, and asks it to pick
    # the data port too.
    with itg.Receiver(log=log, port=0, on_records=count) as rx:
        # The flow is described with itg-send's own options: UDP, 500
        # packets a second (constant spacing) of 256 bytes, for 2 seconds.
        result = itg.send(rx, "-T UDP -C 500 -c 256 -t 2000")
    print(f"sent {result.packets} packets (seed {result.seed}), "
          f"receiver logged {arrived} in {log}")

    # Leaving the block stopped the receiver and flushed its log: decode it
    # as itg-dec would.
    report = itg.decode(log)
    for f in report.flows:
        print(f"flow {f.flow_id} ({f.meter}): {f.packets} packets, {f.lost} lost, "
              f"delay avg {f.delay_avg_ns / 1e3:.1f} us (min {f.delay_min_ns / 1e3:.1f}, "
              f"max {f.delay_max_ns / 1e3:.1f}), jitter {f.jitter_avg_ns / 1e3:.1f} us, "
              f"{f.bitrate_kbps:.1f} kbit/s")
    t = report.total
    print(f"total: {t.packets} packets, {t.bytes} bytes, {t.loss_pct:.2f} % lost, "
          f"{t.rate_pps:.1f} pkt/s")
    return 0 if t.packets == result.packets == arrived and t.lost == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
