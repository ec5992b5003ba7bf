package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.util.HexFormat;

/**
 * A 16-byte FIPS node address (the first 16 bytes of SHA-256 of the x-only public key). Held as two big-endian longs
 * so that equality and hashing are cheap and {@link #compareTo} is the byte-wise unsigned order the spanning tree uses
 * to pick the root (smallest address wins).
 */
public final class NodeAddr implements Comparable<NodeAddr> {
    /** Encoded size in bytes. */
    public static final int SIZE = 16;
    /** The all-zero address. */
    public static final NodeAddr ZERO = new NodeAddr(0, 0);

    private final long hi;
    private final long lo;

    private NodeAddr(final long hi, final long lo) {
        this.hi = hi;
        this.lo = lo;
    }

    /** The address whose big-endian halves are {@code hi} (bytes 0-7) and {@code lo} (bytes 8-15). */
    public static NodeAddr of(final long hi, final long lo) {
        return new NodeAddr(hi, lo);
    }

    /** @return bytes 0-7 as a big-endian long (the more significant half in the tree's order) */
    public long hi() {
        return hi;
    }

    /** @return bytes 8-15 as a big-endian long */
    public long lo() {
        return lo;
    }

    /** The address whose bytes are {@code bytes[off..off+16)}. */
    public static NodeAddr of(final byte[] bytes, final int off) {
        final MemorySegment s = MemorySegment.ofArray(bytes);
        return read(s, off);
    }

    /** The address of exactly 16 bytes. */
    public static NodeAddr of(final byte[] bytes) {
        if (bytes.length != SIZE) {
            throw new IllegalArgumentException("node_addr must be 16 bytes, got " + bytes.length);
        }
        return of(bytes, 0);
    }

    /** Parses 32 hex digits. */
    public static NodeAddr ofHex(final String hex) {
        return of(HexFormat.of().parseHex(hex));
    }

    /** Reads 16 bytes at {@code off} (the caller has checked the bounds). */
    public static NodeAddr read(final MemorySegment seg, final long off) {
        return new NodeAddr(seg.get(Reader.U64_BE, off), seg.get(Reader.U64_BE, off + 8));
    }

    /** Writes the 16 bytes at {@code off}. */
    public void writeTo(final MemorySegment seg, final long off) {
        seg.set(Reader.U64_BE, off, hi);
        seg.set(Reader.U64_BE, off + 8, lo);
    }

    /** Writes the 16 bytes at {@code off}. */
    public void writeTo(final byte[] dst, final int off) {
        writeTo(MemorySegment.ofArray(dst), off);
    }

    /** A fresh copy of the 16 bytes. */
    public byte[] toBytes() {
        final byte[] b = new byte[SIZE];
        writeTo(b, 0);
        return b;
    }

    /** True when this address equals the 16 bytes at {@code off} of {@code seg}, without allocating. */
    public boolean matches(final MemorySegment seg, final long off) {
        return seg.get(Reader.U64_BE, off) == hi && seg.get(Reader.U64_BE, off + 8) == lo;
    }

    /** The first 4 bytes in lower-case hex followed by {@code "..."}: the short form the reference logs. */
    public String shortHex() {
        return String.format("%08x...", (int) (hi >>> 32));
    }

    @Override
    public int compareTo(final NodeAddr o) {
        final int c = Long.compareUnsigned(hi, o.hi);
        return c != 0 ? c : Long.compareUnsigned(lo, o.lo);
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof NodeAddr n && n.hi == hi && n.lo == lo;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(hi * 31 + lo);
    }

    /** Lower-case hex of the 16 bytes. */
    @Override
    public String toString() {
        return HexFormat.of().formatHex(toBytes());
    }
}
