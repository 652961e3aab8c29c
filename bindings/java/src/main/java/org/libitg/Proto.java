package org.libitg;

/** The transport of a flow. */
public enum Proto {
  UDP(itg_proto.ITG_PROTO_UDP),
  TCP(itg_proto.ITG_PROTO_TCP);

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
