package net.fips.dataplane.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicLong;

import net.fips.dataplane.LocalDelivery;

/**
 * Test datagrams and a checking {@link LocalDelivery}: a datagram is {@code 0x00 || seq u64 LE || pattern}, the
 * pattern derived from the sequence number, so content, order and count are all verified on delivery.
 */
final class Deliveries implements LocalDelivery {
    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    final AtomicLong delivered = new AtomicLong();
    final AtomicLong corrupt = new AtomicLong();
    final AtomicLong outOfOrder = new AtomicLong();
    private volatile long lastSeq = -1;

    /** Writes datagram {@code seq} of {@code length} bytes at {@code seg[0]}. */
    static void write(final MemorySegment seg, final long seq, final int length) {
        seg.set(ValueLayout.JAVA_BYTE, 0, (byte) 0);
        seg.set(U64, 1, seq);
        for (int i = 9; i < length; i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, (byte) (seq * 13 + i));
        }
    }

    /** @return a datagram as bytes */
    static byte[] bytes(final long seq, final int length) {
        final byte[] b = new byte[length];
        write(MemorySegment.ofArray(b), seq, length);
        return b;
    }

    @Override
    public void deliver(final long linkId, final MemorySegment segment, final long offset, final int length) {
        if (length < 9 || segment.get(ValueLayout.JAVA_BYTE, offset) != 0) {
            corrupt.incrementAndGet();
            return;
        }
        final long seq = segment.get(U64, offset + 1);
        for (int i = 9; i < length; i++) {
            if (segment.get(ValueLayout.JAVA_BYTE, offset + i) != (byte) (seq * 13 + i)) {
                corrupt.incrementAndGet();
                return;
            }
        }
        if (seq <= lastSeq) {
            outOfOrder.incrementAndGet();
        }
        lastSeq = seq;
        delivered.incrementAndGet();
    }

    long lastSeq() {
        return lastSeq;
    }
}
