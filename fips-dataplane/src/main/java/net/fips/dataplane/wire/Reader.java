package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Bounds-checked little-endian cursor over a window of a {@link MemorySegment}. Every read checks the remaining
 * length first and raises the shared {@link WireException} for {@link WireError#TRUNCATED}, so a record decoder is a
 * straight sequence of reads with no chance of an out-of-bounds exception.
 */
final class Reader {
    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong U64_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final MemorySegment seg;
    private final long end;
    private long pos;

    private Reader(final MemorySegment seg, final long off, final long len) {
        this.seg = seg;
        this.pos = off;
        this.end = off + len;
    }

    /** True when {@code [off, off+len)} lies inside a buffer of {@code size} bytes. */
    static boolean windowOk(final long size, final long off, final long len) {
        return off >= 0 && len >= 0 && off <= size - len;
    }

    /**
     * The check every flyweight's {@code wrap} starts with: {@link WireError#BAD_LENGTH} when {@code [off, off+len)}
     * is not inside {@code seg}, {@link WireError#TRUNCATED} when it is shorter than {@code minLen}, else null.
     */
    static WireError viewError(final MemorySegment seg, final long off, final long len, final long minLen) {
        if (!windowOk(seg.byteSize(), off, len)) {
            return WireError.BAD_LENGTH;
        }
        return len < minLen ? WireError.TRUNCATED : null;
    }

    static Reader of(final MemorySegment seg, final long off, final long len) throws WireException {
        if (!windowOk(seg.byteSize(), off, len)) {
            throw WireException.of(WireError.BAD_LENGTH);
        }
        return new Reader(seg, off, len);
    }

    static Reader of(final byte[] bytes, final int off, final int len) throws WireException {
        return of(MemorySegment.ofArray(bytes), off, len);
    }

    long remaining() {
        return end - pos;
    }

    void need(final long n) throws WireException {
        if (end - pos < n) {
            throw WireException.of(WireError.TRUNCATED);
        }
    }

    int u8() throws WireException {
        need(1);
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, pos++));
    }

    int u16() throws WireException {
        need(2);
        final int v = Short.toUnsignedInt(seg.get(U16, pos));
        pos += 2;
        return v;
    }

    int i32() throws WireException {
        need(4);
        final int v = seg.get(U32, pos);
        pos += 4;
        return v;
    }

    long u32() throws WireException {
        return Integer.toUnsignedLong(i32());
    }

    long u64() throws WireException {
        need(8);
        final long v = seg.get(U64, pos);
        pos += 8;
        return v;
    }

    NodeAddr addr() throws WireException {
        need(NodeAddr.SIZE);
        final NodeAddr a = NodeAddr.read(seg, pos);
        pos += NodeAddr.SIZE;
        return a;
    }

    byte[] bytes(final long n) throws WireException {
        need(n);
        final byte[] out = new byte[(int) n];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, pos, out, 0, (int) n);
        pos += n;
        return out;
    }

    byte[] rest() throws WireException {
        return bytes(remaining());
    }

    void skip(final long n) throws WireException {
        need(n);
        pos += n;
    }

    void expectEnd() throws WireException {
        if (pos != end) {
            throw WireException.of(WireError.TRAILING);
        }
    }

    /** Reads a coordinate list ({@code count u16 LE ‖ count × node_addr}); an empty one only when allowed. */
    Coords coords(final boolean allowEmpty) throws WireException {
        final int count = u16();
        need((long) count * NodeAddr.SIZE);
        if (count == 0 && !allowEmpty) {
            throw WireException.of(WireError.EMPTY_COORDINATES);
        }
        final NodeAddr[] addrs = new NodeAddr[count];
        for (int i = 0; i < count; i++) {
            addrs[i] = addr();
        }
        return Coords.of(addrs);
    }

    /** A body decoder that reads from a {@link Reader}. */
    @FunctionalInterface
    interface Body<T> {
        T read(Reader r) throws WireException;
    }

    /** Runs {@code body} over the window and turns a raised {@link WireException} into an error result. */
    static <T> WireResult<T> run(final MemorySegment seg, final long off, final long len, final Body<T> body) {
        try {
            return WireResult.ok(body.read(of(seg, off, len)));
        } catch (final WireException e) {
            return WireResult.err(e.error());
        }
    }

    /** As {@link #run(MemorySegment, long, long, Body)} over a byte array. */
    static <T> WireResult<T> run(final byte[] bytes, final int off, final int len, final Body<T> body) {
        return run(MemorySegment.ofArray(bytes), off, len, body);
    }
}
