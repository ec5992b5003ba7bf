#!/usr/bin/env python3
"""Helpers of tests/netns/chaos.sh (run inside the test's namespaces; standard library only).

  nodeaddr NPUB                      node_addr (hex) of an npub: SHA-256 of the x-only key, first 16 bytes
  recv PORT SECONDS [PROGRESS]       accepts one TCP connection on [::]:PORT, reads to EOF; prints bytes and sha256;
                                     appends "<epoch> <bytes so far>" to PROGRESS at most every 0.2 s while data come
  send HOST PORT RATE STOP SECONDS   sends pseudo-random bytes paced at RATE bytes/s until the file STOP exists;
                                     prints bytes and sha256
  roots SOCK...                      one show_status per control socket; prints "<sock> <node_addr> <root>" per
                                     answering daemon and "<sock> - -" per silent one
  peers SOCK N                       exit 0 when the daemon answers and has at least N authenticated peers
  agree SOCK...                      exit 0 when every socket answers and all name one root that is one of them
  monitor OUT PERIOD SOCK...         appends "<epoch> <live> <roots> <agreed>" to OUT every PERIOD s, forever
  dump SOCK                          the daemon's show_status, peers, links, sessions, tree, routing and cache
                                     responses, one JSON line each (2 s per command), for a failed run's record
  report EVENTS PINGLOG MONLOG [PROGRESS]
                                     per chaos event: longest gap between ping replies, reconvergence time and (with
                                     recv's PROGRESS) the longest stall of the stream

The sender's data come from a seeded generator, so the receiver's sha256 is compared with the sender's (and both
with the byte count) without a file on disk. Every wait has a deadline.
"""

import hashlib
import json
import os
import random
import socket
import sys
import time

BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def npub_bytes(npub):
    """The 32-byte x-only key of a bech32 npub (checksum not checked: the npub comes from fipsctl keygen)."""
    data = [BECH32.index(c) for c in npub[npub.rindex("1") + 1:-6]]
    acc, bits, out = 0, 0, bytearray()
    for v in data:
        acc = (acc << 5) | v
        bits += 5
        while bits >= 8:
            bits -= 8
            out.append((acc >> bits) & 0xFF)
    if len(out) != 32:
        raise SystemExit("bad npub: " + npub)
    return bytes(out)


def nodeaddr(npub):
    return hashlib.sha256(npub_bytes(npub)).hexdigest()[:32]


def recv(port, seconds, progress=None):
    deadline = time.monotonic() + seconds
    prog = open(progress, "a", buffering=1) if progress else None
    noted = 0.0
    srv = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("::", port))
    srv.listen(1)
    srv.settimeout(seconds)
    conn, peer = srv.accept()
    h, n = hashlib.sha256(), 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise SystemExit("recv: deadline passed after %d bytes" % n)
        conn.settimeout(left)
        chunk = conn.recv(65536)
        if not chunk:
            break
        h.update(chunk)
        n += len(chunk)
        if prog and time.monotonic() - noted >= 0.2:
            noted = time.monotonic()
            prog.write("%.3f %d\n" % (time.time(), n))
    print(n, h.hexdigest(), flush=True)


def send(host, port, rate, stop, seconds):
    deadline = time.monotonic() + seconds
    addr = socket.getaddrinfo(host, port, socket.AF_INET6, socket.SOCK_STREAM)[0][4]
    while True:
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s.settimeout(2)
        try:
            s.connect(addr)
            break
        except OSError as e:
            s.close()
            if time.monotonic() > deadline:
                raise SystemExit("send: no connection: %s" % e)
            time.sleep(0.2)
    gen = random.Random(0x5EED)
    h, sent, start = hashlib.sha256(), 0, time.monotonic()
    while not os.path.exists(stop):
        chunk = gen.randbytes(16384)
        h.update(chunk)
        view = memoryview(chunk)
        while view:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SystemExit("send: deadline passed after %d bytes" % sent)
            s.settimeout(left)
            k = s.send(view)
            view = view[k:]
            sent += k
        # pace: never ahead of RATE bytes/s since the start
        ahead = sent / rate - (time.monotonic() - start)
        if ahead > 0:
            time.sleep(ahead)
    s.shutdown(socket.SHUT_WR)
    s.settimeout(max(1, deadline - time.monotonic()))
    s.recv(1)  # the receiver closes after EOF: everything was read
    s.close()
    print(sent, h.hexdigest(), flush=True)


def request(sock, command, timeout):
    """The raw response line of one control-socket command (bytes); OSError when the daemon does not answer."""
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.settimeout(timeout)
    try:
        c.connect(sock)
        c.sendall(json.dumps({"command": command}).encode() + b"\n")
        c.shutdown(socket.SHUT_WR)
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = c.recv(65536)
            if not chunk:
                break
            buf += chunk
        return buf
    finally:
        c.close()


def status(sock):
    """show_status data of one daemon, or None when it does not answer within 1 s."""
    try:
        resp = json.loads(request(sock, "show_status", 1))
        return resp["data"] if resp.get("status") == "ok" else None
    except (OSError, ValueError, KeyError):
        return None


def dump(sock):
    for command in ("show_status", "show_peers", "show_links", "show_sessions", "show_tree", "show_routing",
                    "show_cache"):
        print("-- " + command, flush=True)
        try:
            print(request(sock, command, 2).decode(errors="replace").rstrip("\n"), flush=True)
        except OSError as e:
            print("no answer: %s" % e, flush=True)


def survey(socks):
    """[(sock, node_addr, root)] with None for a silent daemon; whether the live ones agree on a live root."""
    rows = []
    for s in socks:
        d = status(s)
        rows.append((s, d and d.get("node_addr"), d and d.get("root")))
    live = [r for r in rows if r[1]]
    roots = {r[2] for r in live}
    agreed = len(roots) == 1 and next(iter(roots)) in {r[1] for r in live}
    return rows, live, roots, agreed


def roots(socks):
    for s, a, r in survey(socks)[0]:
        print(s, a or "-", r or "-")


def agree(socks):
    rows, live, roots_, agreed = survey(socks)
    for s, a, r in rows:
        print(s, a or "-", r or "-")
    sys.exit(0 if agreed and len(live) == len(rows) else 1)


def peers(sock, n):
    d = status(sock)
    sys.exit(0 if d and d.get("peer_count", 0) >= n else 1)


def monitor(out, period, socks):
    with open(out, "a", buffering=1) as f:
        while True:
            t = time.time()
            _, live, roots_, agreed = survey(socks)
            f.write("%.3f %d %d %d\n" % (t, len(live), len(roots_), 1 if agreed else 0))
            time.sleep(max(0.0, period - (time.time() - t)))


def gaps(times, t, nxt):
    """Longest gap between the times in [t, nxt), counting from the last one before t; ">N" when none is inside."""
    before = [r for r in times if r < t]
    inside = [r for r in times if t <= r < nxt]
    if not inside:
        return None, ">%.1f" % (nxt - t)
    seq = ([before[-1]] if before else []) + inside
    gap = max((b - a for a, b in zip(seq, seq[1:])), default=0.0)
    return gap, "%.1f" % gap


def report(events_file, ping_file, mon_file, progress_file=None):
    """Events: "<epoch> kill|restart|end <node>". Ping log: ping -D output. Monitor log: see monitor.

    One row per kill: the longest gap between ping replies from the kill to the next kill (the last reply before
    the kill opens it; ">N" when no reply came at all before the next kill, N s later), and the time from the kill
    and from the restart to the survey from which on all live daemons name one live root until the next event
    (">N" when they do not at its end).
    """
    events = [(float(t), kind, node) for t, kind, node in (l.split() for l in open(events_file) if l.strip())]
    replies = []
    for line in open(ping_file):
        if line.startswith("[") and "bytes from" in line:
            replies.append(float(line[1:line.index("]")]))
    mon = [tuple(float(x) for x in l.split()) for l in open(mon_file) if len(l.split()) == 4]
    stream = []
    if progress_file and os.path.exists(progress_file):
        stream = [float(l.split()[0]) for l in open(progress_file) if len(l.split()) == 2]

    def converged(t, until):
        # The start of the agreement that lasts to the end of the window (a brief agreement that breaks again,
        # e.g. before the survivors notice a dead parent, does not count).
        window = [m for m in mon if t <= m[0] < until]
        if not window or window[-1][3] != 1:
            return ">%.1f" % (until - t)
        k = len(window) - 1
        while k > 0 and window[k - 1][3] == 1:
            k -= 1
        return "%.1f" % (window[k][0] - t)

    kills = [i for i, e in enumerate(events) if e[1] == "kill"]
    t0 = events[0][0] if events else 0
    print("%-5s %7s %7s %10s %16s %19s %10s" % ("kill", "at (s)", "down", "outage (s)", "root after kill",
                                                  "root after restart", "stall (s)"))
    outages, stalls = [], []
    for j, i in enumerate(kills):
        t, _, node = events[i]
        restart = next((e[0] for e in events[i + 1:] if e[1] == "restart"), None)
        nxt = events[kills[j + 1]][0] if j + 1 < len(kills) else events[-1][0]
        gap, out = gaps(replies, t, nxt)
        if gap is not None:
            outages.append(gap)
        stall, st = gaps(stream, t, nxt) if stream else (None, "-")
        if stall is not None:
            stalls.append(stall)
        r_after = converged(restart, nxt) if restart is not None else "-"
        print("%-5s %7.1f %7s %10s %16s %19s %10s" % (
            node, t - t0, "-" if restart is None else "%.1f" % (restart - t), out,
            converged(t, restart if restart is not None else nxt), r_after, st))
    if outages:
        print("outage: median %.1f s, max %.1f s over %d kills" % (sorted(outages)[len(outages) // 2],
                                                                  max(outages), len(outages)))
    if stalls:
        print("stream stall: median %.1f s, max %.1f s over %d kills" % (sorted(stalls)[len(stalls) // 2],
                                                                        max(stalls), len(stalls)))
    print("(outage: longest gap between ping replies s -> d, sent every 200 ms, from the kill to the next kill;"
          " root after kill/restart: until the 0.5 s surveys show every live daemon naming the same live root"
          " up to the next event; stall: longest gap between progress notes of d's receiver, at most 0.2 s apart"
          " while data come, from the kill to the next kill; >N: not at the next event, N s later)")


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "nodeaddr":
        print(nodeaddr(args[0]))
    elif cmd == "recv":
        recv(int(args[0]), float(args[1]), args[2] if len(args) > 2 else None)
    elif cmd == "send":
        send(args[0], int(args[1]), float(args[2]), args[3], float(args[4]))
    elif cmd == "roots":
        roots(args)
    elif cmd == "peers":
        peers(args[0], int(args[1]))
    elif cmd == "agree":
        agree(args)
    elif cmd == "monitor":
        monitor(args[0], float(args[1]), args[2:])
    elif cmd == "dump":
        dump(args[0])
    elif cmd == "report":
        report(args[0], args[1], args[2], args[3] if len(args) > 3 else None)
    else:
        raise SystemExit("unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
