package org.libitg;

import java.util.List;

/**
 * A QoS report: the numbers of itg-dec, taken from a {@link Stats} at one
 * moment.
 *
 * @param flows one entry per flow and meter, ordered by flow id, then meter
 * @param total the total over the entries of the main meter
 * @param mainMeter OWD if any entry is one-way (or there is none), else
 *     RTT if any is round trip, else SENT
 * @param totals the total of each meter that has entries
 * @param json the same report as JSON, in the shape itg-dec writes
 */
public record Report(List<FlowStats> flows, FlowStats total, StatsMeter mainMeter,
    List<FlowStats> totals, String json) {
  /** Keeps unmodifiable copies of the lists. */
  public Report {
    flows = List.copyOf(flows);
    totals = List.copyOf(totals);
  }
}
