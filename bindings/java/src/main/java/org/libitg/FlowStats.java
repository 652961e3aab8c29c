package org.libitg;

/**
 * The QoS figures of one report entry (a flow and a meter) or of a total,
 * as include/itg/stats.h defines them. Times and delays are in
 * nanoseconds; counters are unsigned 64-bit numbers held in longs.
 *
 * @param flowId the flow, 0 in a total
 * @param meter what the delays measure
 * @param flows entries counted: 1, or a total's count
 * @param packets packets counted, duplicates included
 * @param bytes their bytes
 * @param expected packets the sender sent, as far as known
 * @param lost expected minus the distinct sequence numbers received
 * @param duplicates sequence numbers received again
 * @param reordered packets received after a higher sequence number
 * @param lossBursts maximal runs of missing sequence numbers
 * @param logGaps records lost on the way to a log server
 * @param firstNs first arrival (send time for SENT), 0 if none
 * @param lastNs last arrival (send time for SENT)
 * @param durationNs lastNs - firstNs
 * @param delayMinNs smallest delay (the delay fields are 0 without samples)
 * @param delayMaxNs largest delay
 * @param delayP50Ns median delay
 * @param delayP99Ns 99th percentile of the delay
 * @param delayAvgNs mean delay
 * @param delayStdNs population standard deviation of the delay
 * @param jitterAvgNs D-ITG's jitter: mean |D(i) - D(i-1)|
 * @param jitterRfc3550Ns RFC 3550's smoothed jitter
 * @param lossPct 100 * lost / expected
 * @param lossBurstAvg packets per loss burst
 * @param bitrateKbps bytes * 8 / duration, in kbit/s
 * @param ratePps packets / duration
 */
public record FlowStats(
    long flowId,
    StatsMeter meter,
    long flows,
    long packets,
    long bytes,
    long expected,
    long lost,
    long duplicates,
    long reordered,
    long lossBursts,
    long logGaps,
    long firstNs,
    long lastNs,
    long durationNs,
    long delayMinNs,
    long delayMaxNs,
    long delayP50Ns,
    long delayP99Ns,
    double delayAvgNs,
    double delayStdNs,
    double jitterAvgNs,
    double jitterRfc3550Ns,
    double lossPct,
    double lossBurstAvg,
    double bitrateKbps,
    double ratePps) {

  /** Returns the figures of a C itg_flow_stats. */
  static FlowStats of(itg_flow_stats c) {
    return new FlowStats(c.getFlow_id(), StatsMeter.of(c.getMeter()), c.getFlows(), c.getPackets(),
        c.getBytes(), c.getExpected(), c.getLost(), c.getDuplicates(), c.getReordered(),
        c.getLoss_bursts(), c.getLog_gaps(), c.getFirst_ns(), c.getLast_ns(), c.getDuration_ns(),
        c.getDelay_min_ns(), c.getDelay_max_ns(), c.getDelay_p50_ns(), c.getDelay_p99_ns(),
        c.getDelay_avg_ns(), c.getDelay_std_ns(), c.getJitter_avg_ns(), c.getJitter_rfc3550_ns(),
        c.getLoss_pct(), c.getLoss_burst_avg(), c.getBitrate_kbps(), c.getRate_pps());
  }
}
