package net.fips.bench.dataplane;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The flow control of the windowed throughput benchmarks: after each batch the sender waits until no more than
 * {@link #WINDOW} packets are in flight, so it measures the path rather than queue overflow. A window that makes no
 * progress for {@link #STALL_NS} is written off as lost (counted) instead of hanging the benchmark. One thread.
 */
final class DeliveryWindow {
    /** Packets in flight before the sender waits. */
    static final int WINDOW = 1024;
    /** A window that makes no progress for this long is written off as lost. */
    static final long STALL_NS = TimeUnit.MILLISECONDS.toNanos(50);

    private final AtomicLong delivered;
    private long sent;
    private long lost;

    /** @param delivered what the receiving side counts */
    DeliveryWindow(final AtomicLong delivered) {
        this.delivered = delivered;
    }

    /**
     * Records {@code batch} more packets sent, then waits for the window to open.
     *
     * @return the delivered count seen last
     */
    long sentAndWait(final int batch) {
        sent += batch;
        long seen = delivered.get();
        long since = System.nanoTime();
        while (sent - lost - seen > WINDOW) {
            Thread.onSpinWait();
            final long now = delivered.get();
            if (now != seen) {
                seen = now;
                since = System.nanoTime();
            } else if (System.nanoTime() - since > STALL_NS) {
                lost = sent - seen;
            }
        }
        return seen;
    }

    /** @return packets offered so far */
    long sent() {
        return sent;
    }

    /** @return packets written off after a stall */
    long lost() {
        return lost;
    }
}
