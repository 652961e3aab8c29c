package org.libitg;

/**
 * What happened to one flow of a {@link Sender}. Counters are unsigned
 * 64-bit numbers held in longs; times are ns since the Unix epoch (UTC).
 *
 * @param flowId the flow
 * @param status 0, or the ITG_E* code that ended the flow
 * @param error a sentence about status, "" when it is 0
 * @param seed the seed the flow's laws used
 * @param packets packets sent
 * @param bytes bytes sent
 * @param sendErrors datagrams the operating system refused
 * @param echoes round-trip mode: echoes received
 * @param received packets the receiver said it logged, at the end of the
 *     flow (0 if it did not say)
 * @param firstTxNs when the first packet left
 * @param lastTxNs when the last packet left
 * @param late departures more than 1 us late
 * @param lateMaxNs the largest lateness
 * @param lateSumNs the sum of lateness, for the mean
 * @param receiverNote what the receiver said on accepting the flow, "" mostly
 *     (such as a log server it cannot reach)
 */
public record FlowResult(long flowId, int status, String error, long seed, long packets,
    long bytes, long sendErrors, long echoes, long received, long firstTxNs, long lastTxNs,
    long late, long lateMaxNs, long lateSumNs, String receiverNote) {

  /** Returns whether the flow ended without an error. */
  public boolean ok() {
    return status == 0;
  }

  /** Returns the status's name ("ECONNREFUSED", ...), "OK" when there is no error. */
  public String errorName() {
    return status == 0 ? "OK" : ItgC.itg_err_name(status);
  }

  /** Returns the result in a C itg_flow_result. */
  static FlowResult of(itg_flow_result c) {
    return new FlowResult(c.getFlow_id(), c.getStatus(), c.getError(), c.getSeed(), c.getPackets(),
        c.getBytes(), c.getSend_errors(), c.getEchoes(), c.getReceived(), c.getFirst_tx_ns(),
        c.getLast_tx_ns(), c.getLate(), c.getLate_max_ns(), c.getLate_sum_ns(),
        c.getReceiver_note());
  }
}
