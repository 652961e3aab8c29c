package org.libitg;

/**
 * The transport of a flow. SCTP, DCCP and ICMP are D-ITG's: a sender
 * refuses SCTP and DCCP, a receiver refuses such a flow (its event names
 * them); ICMP goes one-way, as root, to itg-recv or D-ITG's ITGRecv.
 */
public enum Proto {
  UDP(itg_proto.ITG_PROTO_UDP),
  TCP(itg_proto.ITG_PROTO_TCP),
  SCTP(itg_proto.ITG_PROTO_SCTP),
  DCCP(itg_proto.ITG_PROTO_DCCP),
  ICMP(itg_proto.ITG_PROTO_ICMP);

  final int code;

  Proto(int code) {
    this.code = code;
  }

  /** Returns the constant of a C itg_proto value. */
  static Proto of(int code) {
    for (Proto p : values()) {
      if (p.code == code) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown transport " + code);
  }
}
