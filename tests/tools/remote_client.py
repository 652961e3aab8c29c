#!/usr/bin/env python3
"""A client of the remote control protocol (include/itg/remote.h) written
from its description alone, with Python's own HMAC-SHA256: what it does
with an agent does not depend on libitg's code.

  remote_client.py HOST PORT TOKEN_FILE COMMAND [ARGS]

Commands (each prints one line and exits 0 when the agent answered as
asked, 1 otherwise):
  run AT_MS LINE...   START the lines AT_MS ms from now on the agent's
                      clock (CLOCK first), then RESULTS (30 s): prints
                      "ended flows=N packets=P,P... received=R,R..."
  hello               the handshake alone: prints "ok SOFTWARE rx=PORT"
  garbage             sends bytes that are no frame: prints "closed" once
                      the agent has closed (after its ERR, if any)
Any ERR the agent answers is printed as "err CODE MESSAGE"; a connection
closed without an answer as "closed".
"""
import hashlib
import hmac
import os
import socket
import struct
import sys
import time

VERSION = 2
CHALLENGE, AUTH, AUTH_OK, ERR, OK, CLOCK, CLOCK_OK, START, STATUS, \
    STATUS_OK, STOP, RESULTS, LOG, LOG_DATA, BYE = range(1, 16)


class Closed(Exception):
    pass


class AgentErr(Exception):
    pass


def frame(mtype, body=b""):
    return struct.pack(">BBHI", mtype, VERSION, 0, len(body)) + body


def text(s):
    b = s.encode()
    return struct.pack(">H", len(b)) + b


def recv_exact(s, n):
    out = b""
    while len(out) < n:
        got = s.recv(n - len(out))
        if not got:
            raise Closed()
        out += got
    return out


def recv_msg(s):
    mtype, ver, res, n = struct.unpack(">BBHI", recv_exact(s, 8))
    if ver != VERSION or res != 0:
        raise SystemExit("bad frame header")
    body = recv_exact(s, n)
    if mtype == ERR:
        code, = struct.unpack(">i", body[:4])
        ln, = struct.unpack(">H", body[4:6])
        raise AgentErr("err %d %s" % (code, body[6:6 + ln].decode()))
    return mtype, body


def expect(s, want):
    mtype, body = recv_msg(s)
    if mtype != want:
        raise SystemExit("answer %d, not %d" % (mtype, want))
    return body


def handshake(s, token):
    na = expect(s, CHALLENGE)
    nc = os.urandom(32)
    mac = hmac.new(token, b"itg-remote-1 client" + na + nc,
                   hashlib.sha256).digest()
    s.sendall(frame(AUTH, nc + mac))
    body = expect(s, AUTH_OK)
    want = hmac.new(token, b"itg-remote-1 agent" + nc + na,
                    hashlib.sha256).digest()
    if not hmac.compare_digest(body[:32], want):
        raise SystemExit("the agent's proof is wrong")
    ln, = struct.unpack(">H", body[32:34])
    software = body[34:34 + ln].decode()
    port, = struct.unpack(">H", body[34 + ln:36 + ln])
    return software, port


def flows_of_status(body):
    """(state, [(packets, received)]) of a STATUS_OK body."""
    state = body[0]
    at = 1 + 4 + 8 + 6 * 8
    n, = struct.unpack(">I", body[at:at + 4])
    at += 4
    flows = []
    for _ in range(n):
        at += 8
        for _ in range(2):
            ln, = struct.unpack(">H", body[at:at + 2])
            at += 2 + ln
        seed, packets, nbytes, errs, echoes, received = struct.unpack(
            ">6Q", body[at:at + 48])
        flows.append((packets, received))
        # the six counts, first and last departure, late count, max and
        # sum, data port, ended, then the catch-up's skipped and shifted
        at += 11 * 8 + 2 + 1 + 2 * 8
    return state, flows


def run(s, at_ms, lines):
    t0 = time.time_ns()
    s.sendall(frame(CLOCK))
    body = expect(s, CLOCK_OK)
    t1 = time.time_ns()
    agent_wall, = struct.unpack(">q", body[:8])
    offset = agent_wall - (t0 + t1) // 2
    at = time.time_ns() + offset + at_ms * 1000000
    s.sendall(frame(START, struct.pack(">qH", at, len(lines)) +
                    b"".join(text(l) for l in lines)))
    expect(s, OK)
    s.sendall(frame(RESULTS, struct.pack(">q", 30 * 10**9)))
    s.settimeout(60)
    state, flows = flows_of_status(expect(s, STATUS_OK))
    s.sendall(frame(BYE))
    expect(s, OK)
    print("%s flows=%d packets=%s received=%s" % (
        "ended" if state == 3 else "state%d" % state, len(flows),
        ",".join(str(f[0]) for f in flows),
        ",".join(str(f[1]) for f in flows)))
    return state == 3


def main():
    host, port, token_file, cmd = sys.argv[1:5]
    token = open(token_file, "rb").read().rstrip(b" \t\r\n")
    s = socket.create_connection((host, int(port)), timeout=20)
    try:
        if cmd == "garbage":
            s.sendall(b"GET / HTTP/1.0\r\n\r\n")
            try:
                while True:
                    recv_msg(s)
            except AgentErr:
                recv_exact(s, 1)
            return 1
        software, rx = handshake(s, token)
        if cmd == "hello":
            print("ok %s rx=%d" % (software, rx))
            return 0
        if cmd == "run":
            return 0 if run(s, int(sys.argv[5]), sys.argv[6:]) else 1
        raise SystemExit("unknown command " + cmd)
    except AgentErr as e:
        print(e)
        return 1
    except (Closed, ConnectionResetError):
        print("closed")
        return 1


if __name__ == "__main__":
    sys.exit(main())
