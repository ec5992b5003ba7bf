#!/usr/bin/env python3
"""Sends msg1-shaped FMP packets (crypto-link.md §5.3: phase 1, payload_len 110, a random sender_idx, then 106 Noise
bytes whose first 33 are a valid compressed secp256k1 point, as a real ephemeral key would be) to one UDP address,
from PORTS sockets in turn, at RATE packets a second, for SECS seconds. Prints how many it sent.

Usage: msg1-flood.py HOST PORT [RATE=10000] [SECS=10] [PORTS=64]
A benchmark tool for benchmarks/msg1-flood.sh: point it only at addresses inside your own test namespaces."""
import os
import socket
import sys
import time

P = 2**256 - 2**32 - 977


def point():
    """A random valid compressed secp256k1 point (33 bytes)."""
    while True:
        x = int.from_bytes(os.urandom(32), "big") % P
        rhs = (pow(x, 3, P) + 7) % P
        if pow(rhs, (P - 1) // 2, P) != 1:
            continue
        y = pow(rhs, (P + 1) // 4, P)
        return bytes([2 | (y & 1)]) + x.to_bytes(32, "big")


def msg1():
    return bytes([0x01, 0x00, 110, 0x00]) + os.urandom(4) + point() + os.urandom(106 - 33)


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    rate = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    secs = float(sys.argv[4]) if len(sys.argv) > 4 else 10
    nports = int(sys.argv[5]) if len(sys.argv) > 5 else 64
    packets = [msg1() for _ in range(512)]
    socks = []
    for _ in range(nports):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setblocking(False)
        socks.append(s)
    dest = (host, port)
    batch = max(1, rate // 1000)
    sent = 0
    start = time.monotonic()
    end = start + secs
    while True:
        now = time.monotonic()
        if now >= end:
            break
        due = int((now - start) * rate)
        if sent >= due:
            time.sleep(min(0.001, end - now))
            continue
        for _ in range(min(batch, due - sent)):
            try:
                socks[sent % nports].sendto(packets[sent % len(packets)], dest)
            except BlockingIOError:
                pass
            sent += 1
    print(f"sent {sent} msg1 in {time.monotonic() - start:.1f} s from {nports} ports")


if __name__ == "__main__":
    main()
