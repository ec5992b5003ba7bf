#!/usr/bin/env python3
"""A netem stand-in that needs no qdisc: TAP pairs joined by a userspace relay (standard library only, run as root).

  netem_relay.py [--delay MS] [--jitter MS] [--dist uniform|normal] [--loss PCT] [--limit N] [--seed S]
                 [--ready FILE] LINK...
  LINK = TAP1@NS1=TAP2@NS2

For every LINK it creates the TAP devices TAP1 and TAP2 (IFF_TAP | IFF_NO_PI, not persistent), moves TAP1 into the
network namespace NS1 and TAP2 into NS2 (the open file descriptor stays valid after the move) and forwards every
Ethernet frame one end's kernel sends out of it to the other end, in both directions, each direction on its own:

  * loss: each frame is dropped with probability PCT/100, drawn from a random.Random seeded with (S, link, direction),
    so a run is repeatable for the same arrival order and every retransmission gets a fresh draw;
  * delay and jitter: a kept frame is due MS after it was read plus a jitter draw: uniform in [-J, +J] (netem's
    "delay MS J" without a distribution table) or, with --dist normal, normal with sigma J cut at +-2 J; never
    before it was read. Frames wait in one heap by due time and leave when due, so like netem's tfifo a frame with a
    smaller draw may overtake an earlier one; nothing sleeps per frame;
  * limit: at most N frames (1000, netem's default) wait per direction; a frame beyond that is dropped and counted.

The ends are brought neither up nor addressed: the caller does that in the namespaces. A frame that cannot be
written (the far end is still down) is counted as a write drop. Timing: epoll waits whole milliseconds (rounded
down here) and the last fraction is slept, so on an idle machine a frame leaves within a few tens of microseconds of
its due time (a frame that arrives during such a sub-millisecond sleep is read up to that much late); more when the
relay waits for a CPU.

Once every TAP is in its namespace it writes "ready" to FILE (or prints it). On SIGTERM or SIGINT it prints one line
of counters per link and direction to stderr and exits; the TAPs disappear with it.
"""

import argparse
import fcntl
import heapq
import os
import random
import select
import signal
import struct
import subprocess
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
READ_BURST = 64  # frames read from one TAP per wake-up, so one busy direction cannot starve the others


class Stop(Exception):
    """Raised by the SIGTERM/SIGINT handler: ends the loop even inside a blocking epoll wait."""


class Direction:
    """One direction of one link: frames read from src, written to dst after the impairment."""

    def __init__(self, name, src, dst, rng):
        self.name = name
        self.src = src
        self.dst = dst
        self.rng = rng
        self.queued = 0
        self.read = 0
        self.lost = 0
        self.over_limit = 0
        self.write_drops = 0
        self.sent = 0

    def counters(self):
        return "%s read %d lost %d over_limit %d write_drops %d sent %d" % (
            self.name, self.read, self.lost, self.over_limit, self.write_drops, self.sent)


def open_tap(name):
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    try:
        fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI))
    except OSError:
        os.close(fd)
        raise
    return fd


def parse_link(text):
    try:
        left, right = text.split("=")
        t1, ns1 = left.split("@")
        t2, ns2 = right.split("@")
    except ValueError:
        raise SystemExit("netem_relay: bad LINK %r (want TAP1@NS1=TAP2@NS2)" % text)
    for t in (t1, t2):
        if not t or len(t) > 15:
            raise SystemExit("netem_relay: bad TAP name %r (1..15 characters)" % t)
    return (t1, ns1), (t2, ns2)


def jitter_draw(rng, dist, jitter):
    if jitter <= 0:
        return 0.0
    if dist == "uniform":
        return rng.uniform(-jitter, jitter)
    return max(-2 * jitter, min(2 * jitter, rng.gauss(0.0, jitter)))


def run(args):
    delay = args.delay / 1000.0
    jitter = args.jitter / 1000.0
    loss = args.loss / 100.0
    directions = {}  # src fd -> Direction
    fds = []
    for i, text in enumerate(args.links):
        (t1, ns1), (t2, ns2) = parse_link(text)
        f1, f2 = open_tap(t1), open_tap(t2)
        fds += [f1, f2]
        for tap, ns in ((t1, ns1), (t2, ns2)):
            r = subprocess.run(["ip", "link", "set", "dev", tap, "netns", ns], stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                raise SystemExit("netem_relay: cannot move %s into %s: %s" % (tap, ns, r.stderr.strip()))
        directions[f1] = Direction("%s>%s" % (t1, t2), f1, f2, random.Random("%s/%d/0" % (args.seed, i)))
        directions[f2] = Direction("%s>%s" % (t2, t1), f2, f1, random.Random("%s/%d/1" % (args.seed, i)))

    def stop(*_):
        raise Stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    ep = select.epoll()
    for fd in directions:
        ep.register(fd, select.EPOLLIN)
    if args.ready:
        with open(args.ready + ".tmp", "w") as f:
            f.write("ready\n")
        os.replace(args.ready + ".tmp", args.ready)
    else:
        print("ready", flush=True)

    try:
        forward(ep, directions, delay, jitter, loss, args)
    except Stop:
        pass
    for d in directions.values():
        print("netem_relay: " + d.counters(), file=sys.stderr, flush=True)
    for fd in fds:
        os.close(fd)


def forward(ep, directions, delay, jitter, loss, args):
    """The loop: read what is ready, draw loss and due time, write what is due; until Stop."""
    heap = []  # (due, seq, Direction, frame)
    seq = 0
    while True:
        now = time.monotonic()
        if not heap:
            events = ep.poll(-1)
        else:
            wait = heap[0][0] - now
            if 0 < wait < 0.001:
                # epoll counts whole milliseconds, rounded up: the last fraction is slept precisely instead (frames
                # that arrive meanwhile wait in the TAP's queue for at most that fraction)
                time.sleep(wait)
                wait = 0
            events = ep.poll(max(0.0, wait - wait % 0.001))
        now = time.monotonic()
        for fd, _ in events:
            d = directions[fd]
            for _ in range(READ_BURST):
                try:
                    frame = os.read(fd, 65536)
                except BlockingIOError:
                    break
                except OSError:
                    break  # the device went away with its namespace: nothing more to read
                d.read += 1
                if d.rng.random() < loss:
                    d.lost += 1
                    continue
                if d.queued >= args.limit:
                    d.over_limit += 1
                    continue
                due = now + max(0.0, delay + jitter_draw(d.rng, args.dist, jitter))
                seq += 1
                heapq.heappush(heap, (due, seq, d, frame))
                d.queued += 1
        now = time.monotonic()
        while heap and heap[0][0] <= now:
            _, _, d, frame = heapq.heappop(heap)
            d.queued -= 1
            try:
                os.write(d.dst, frame)
                d.sent += 1
            except OSError:
                d.write_drops += 1


def main(argv):
    p = argparse.ArgumentParser(description="netem stand-in: TAP pairs joined by an impairing relay")
    p.add_argument("--delay", type=float, default=0.0, help="one-way delay per direction, ms")
    p.add_argument("--jitter", type=float, default=0.0, help="jitter, ms (uniform +-J, or normal sigma J)")
    p.add_argument("--dist", choices=("uniform", "normal"), default="uniform")
    p.add_argument("--loss", type=float, default=0.0, help="loss per direction, percent")
    p.add_argument("--limit", type=int, default=1000, help="frames waiting per direction at most")
    p.add_argument("--seed", default="0")
    p.add_argument("--ready", help="file to write 'ready' to once the TAPs are in place")
    p.add_argument("links", nargs="+", metavar="LINK", help="TAP1@NS1=TAP2@NS2")
    args = p.parse_args(argv[1:])
    if args.delay < 0 or args.jitter < 0 or not 0 <= args.loss <= 100 or args.limit < 1:
        p.error("delay, jitter >= 0, loss 0..100, limit >= 1")
    if args.jitter > args.delay and args.dist == "uniform":
        print("netem_relay: jitter above the delay: draws below zero delay are cut to zero", file=sys.stderr)
    run(args)


if __name__ == "__main__":
    main(sys.argv)
