"""One UDP flow opened and closed by D-ITG 2.8.1's signaling, as ITGSend
does it, so that a sender other than ITGSend (blaster --ditg) can feed a
receiver that speaks it: ITGRecv, or itg-recv. Written from D-ITG's
source (src/ITGSend/ITGSend.cpp, src/ITGRecv/ITGRecv.cpp); it shares no
code with libitg.

    from ditg_flow import DitgFlow
    with DitgFlow(sig_port, data_port, flow_id) as f:   # CONNECT, SEND_FLOW
        ...  # datagrams with D-ITG's header and flow_id to f.port
    # CLOSED_FLOW (the receiver writes its log), RELEASE

    python3 ditg_flow.py SIGPORT DATAPORT FLOWID   # opens, prints "open PORT",
                                                   # closes at the end of stdin

The messages, on one TCP connection to the signaling port; a one-byte
type, then a body whose length the type fixes:
  CONNECT 1 -> ACK_CONNECT 2
  SEND_FLOW 3: l4 (2 UDP), l7 (0), meter (1 one-way), DS byte, l3 (4),
    flow id (u32 big endian), payload kind (0: the 16-byte header), 10
    bytes of serial interface name, the data port (u16 in the byte order
    of the little-endian hosts D-ITG runs on: ITGSend swaps a port already
    in network order), the receiver's IPv4 address
    -> ACK_SEND_FLOW 5: flow id, u16 port (0 unless passive: the one asked
    for), or ERR_MSG_2 15 / ERR_MSG_5 22 with the flow id (refused)
  CLOSED_FLOW 4 + flow id -> ACK_CLOSED_FLOW 6 + flow id (ITGRecv writes
    the flow's records and waits a second first)
  RELEASE 11 -> ACK_RELEASE 7
"""
import socket
import struct
import sys
import time

CONNECT, ACK_CONNECT, SEND_FLOW, CLOSED_FLOW = 1, 2, 3, 4
ACK_SEND_FLOW, ACK_CLOSED_FLOW, ACK_RELEASE, DISCOVERY, RELEASE = 5, 6, 7, 8, 11
ERR_MSG_2, ERR_MSG_5 = 15, 22
# Body lengths of what a receiver sends back.
ANSWER_BODY = {ACK_CONNECT: 0, ACK_SEND_FLOW: 6, ACK_CLOSED_FLOW: 4, ACK_RELEASE: 0,
               DISCOVERY: 0, ERR_MSG_2: 4, ERR_MSG_5: 4}


class DitgError(Exception):
    pass


class DitgFlow:
    """A UDP flow of D-ITG's wire profile from 127.0.0.1 (or host) to a
    receiver's signaling port; port: the data port it listens on once
    open. Every wait is bounded by timeout_s."""

    def __init__(self, sig_port, data_port, flow_id, host="127.0.0.1", timeout_s=10.0):
        self.sig_port, self.data_port, self.flow_id = int(sig_port), int(data_port), int(flow_id)
        self.host, self.timeout_s = host, timeout_s
        self.sock = None
        self.port = None

    def _recv_exact(self, n, deadline):
        out = b""
        while len(out) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DitgError("no answer in time")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(n - len(out))
            except socket.timeout:
                raise DitgError("no answer in time") from None
            if not chunk:
                raise DitgError("the receiver closed the connection")
            out += chunk
        return out

    def _answer(self, want):
        """Reads messages until one of type want (keep-alives answered);
        returns its body."""
        deadline = time.monotonic() + self.timeout_s
        while True:
            t = self._recv_exact(1, deadline)[0]
            if t not in ANSWER_BODY:
                raise DitgError(f"unexpected message type {t}")
            body = self._recv_exact(ANSWER_BODY[t], deadline)
            if t == want:
                return body
            if t == DISCOVERY:
                self.sock.sendall(bytes([9]))  # ACK_DISCOVERY
                continue
            if t in (ERR_MSG_2, ERR_MSG_5):
                raise DitgError(f"flow {struct.unpack('>I', body)[0]} refused (type {t})")
            raise DitgError(f"message type {t} while waiting for {want}")

    def open(self):
        self.sock = socket.create_connection((self.host, self.sig_port), timeout=self.timeout_s)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.sendall(bytes([CONNECT]))
        self._answer(ACK_CONNECT)
        # D-ITG reads each field with its own recv(): the message goes in one piece.
        msg = (bytes([SEND_FLOW, 2, 0, 1, 0, 4]) + struct.pack(">I", self.flow_id) + bytes([0])
               + b"noSerial".ljust(10, b"\0") + struct.pack("<H", self.data_port)
               + socket.inet_aton(self.host))
        self.sock.sendall(msg)
        fid, port = struct.unpack(">IH", self._answer(ACK_SEND_FLOW))
        if fid != self.flow_id:
            raise DitgError(f"ACK_SEND_FLOW for flow {fid}, not {self.flow_id}")
        self.port = port or self.data_port
        return self.port

    def close(self):
        """Ends the flow (the receiver flushes its log), then the session."""
        if self.sock is None:
            return
        try:
            self.sock.sendall(bytes([CLOSED_FLOW]) + struct.pack(">I", self.flow_id))
            self._answer(ACK_CLOSED_FLOW)
            self.sock.sendall(bytes([RELEASE]))
            self._answer(ACK_RELEASE)
        finally:
            self.sock.close()
            self.sock = None

    def __enter__(self):
        self.open()
        return self

    def __exit__(self, *exc):
        self.close()


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: ditg_flow.py SIGPORT DATAPORT FLOWID")
    with DitgFlow(*sys.argv[1:4]) as f:
        print(f"open {f.port}", flush=True)
        sys.stdin.read()
    print("closed", flush=True)


if __name__ == "__main__":
    main()
