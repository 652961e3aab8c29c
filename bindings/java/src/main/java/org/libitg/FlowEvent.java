package org.libitg;

/**
 * A flow's life on a receiver, as its flow listener sees it.
 *
 * @param kind what happened
 * @param flowId the flow
 * @param proto its transport
 * @param meter its meter
 * @param port its data port
 * @param peer the sender, "host:port" of its signaling
 * @param packets ENDED: packets received
 * @param bytes ENDED: bytes received
 * @param sent ENDED: packets the sender said it sent
 * @param sentKnown ENDED: false if the sender vanished before saying
 * @param status REFUSED, DROPPED: the ITG_E* code
 * @param message REFUSED, DROPPED: why
 */
public record FlowEvent(Kind kind, long flowId, Proto proto, Meter meter, int port, String peer,
    long packets, long bytes, long sent, boolean sentKnown, int status, String message) {
  /** What happened to the flow. */
  public enum Kind {
    /** The flow was set up. */
    OPENED(itg_flow_event_kind.ITG_FLOW_OPENED),
    /** The flow could not be set up. */
    REFUSED(itg_flow_event_kind.ITG_FLOW_REFUSED),
    /** The flow ended. */
    ENDED(itg_flow_event_kind.ITG_FLOW_ENDED),
    /** A signaling connection was closed for its peer's fault (message says why). */
    DROPPED(itg_flow_event_kind.ITG_PEER_DROPPED);

    final int code;

    Kind(int code) {
      this.code = code;
    }

    static Kind of(int code) {
      for (Kind k : values()) {
        if (k.code == code) {
          return k;
        }
      }
      throw new IllegalArgumentException("unknown flow event " + code);
    }
  }
}
