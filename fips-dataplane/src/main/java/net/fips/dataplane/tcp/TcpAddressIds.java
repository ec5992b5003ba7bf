package net.fips.dataplane.tcp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import net.fips.dataplane.transport.TransportAddr;

/**
 * The source bytes of a {@link TcpTransport}: a 4-byte id per distinct pool key (handed out on first use, never
 * reused), so a link's {@link TcpDestination} recognises its own connection with one int compare, whatever the
 * address text. Thread-safe.
 */
final class TcpAddressIds {
    /** Source bytes per received packet. */
    static final int SOURCE_BYTES = 4;
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final ConcurrentHashMap<TransportAddr, Integer> idOf = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, TransportAddr> addressOf = new ConcurrentHashMap<>();
    private final AtomicInteger next = new AtomicInteger(1);

    /** @return the id of {@code address}, handing out a new one on first use */
    int id(final TransportAddr address) {
        final Integer known = idOf.get(address);
        if (known != null) {
            return known;
        }
        return idOf.computeIfAbsent(address, a -> {
            final int id = next.getAndIncrement();
            addressOf.put(id, a);
            return id;
        });
    }

    /** @return the address whose id the source bytes hold, or null */
    TransportAddr address(final MemorySegment source, final long offset, final int length) {
        if (length != SOURCE_BYTES) {
            return null;
        }
        return addressOf.get(source.get(INT_LE, offset));
    }

    /** Writes {@code id} as source bytes at {@code source[0..3]}. */
    static void write(final MemorySegment source, final int id) {
        source.set(INT_LE, 0, id);
    }

    /** @return whether the source bytes hold {@code id} (allocation-free) */
    static boolean matches(final MemorySegment source, final long offset, final int length, final int id) {
        return length == SOURCE_BYTES && source.get(INT_LE, offset) == id;
    }
}
