package org.libitg;

/**
 * One flow's values (flowId 0: the total's) in one interval of a {@link
 * Series}, which starts startNs after the first interval's start. The
 * delay and jitter are means over the interval's packets, 0 without any.
 */
public record SeriesPoint(long flowId, long startNs, long packets, long bytes, long lost,
    double delayAvgNs, double jitterAvgNs, double bitrateKbps) {
  static SeriesPoint of(itg_series_point c) {
    return new SeriesPoint(c.getFlow_id(), c.getStart_ns(), c.getPackets(), c.getBytes(),
        c.getLost(), c.getDelay_avg_ns(), c.getJitter_avg_ns(), c.getBitrate_kbps());
  }
}
