package org.libitg;

/**
 * A receiver's counters (unsigned 64-bit numbers held in longs).
 *
 * @param packets packets logged
 * @param bytes their bytes
 * @param malformed datagrams dropped as not libitg's
 * @param flowsServed flows set up so far
 * @param flowsActive flows running now
 * @param flowsRefused flows that could not be set up
 * @param echoes round-trip replies sent
 */
public record ReceiverStats(long packets, long bytes, long malformed, long flowsServed,
    long flowsActive, long flowsRefused, long echoes) {

  static ReceiverStats of(itg_receiver_stats c) {
    return new ReceiverStats(c.getPackets(), c.getBytes(), c.getMalformed(), c.getFlows_served(),
        c.getFlows_active(), c.getFlows_refused(), c.getEchoes());
  }
}
