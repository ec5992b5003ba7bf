package net.fips.dataplane.tcp;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The counters of one {@link TcpTransport}: the reference's §1.8 names in its order (transports.md §1.8), then our
 * {@code framing_errors}, which {@code show_transports} does not show. Written by the loop thread alone (opaque
 * stores, no read-modify-write atomics), read by any thread.
 */
final class TcpCounters {
    static final int PACKETS_SENT = 0;
    static final int BYTES_SENT = 1;
    static final int PACKETS_RECV = 2;
    static final int BYTES_RECV = 3;
    static final int SEND_ERRORS = 4;
    static final int RECV_ERRORS = 5;
    static final int MTU_EXCEEDED = 6;
    static final int CONNECTIONS_ESTABLISHED = 7;
    static final int CONNECTIONS_ACCEPTED = 8;
    static final int CONNECTIONS_REJECTED = 9;
    static final int CONNECT_TIMEOUTS = 10;
    static final int CONNECT_REFUSED = 11;
    static final int POOL_INBOUND = 12;
    static final int POOL_OUTBOUND = 13;
    static final int FRAMING_ERRORS = 14;
    private static final String[] NAMES = {"packets_sent", "bytes_sent", "packets_recv", "bytes_recv",
            "send_errors", "recv_errors", "mtu_exceeded", "connections_established", "connections_accepted",
            "connections_rejected", "connect_timeouts", "connect_refused", "pool_inbound", "pool_outbound"};

    private final AtomicLongArray values = new AtomicLongArray(FRAMING_ERRORS + 1);

    /** Loop thread only: adds {@code delta} to counter {@code counter}. */
    void add(final int counter, final long delta) {
        values.setOpaque(counter, values.getPlain(counter) + delta);
    }

    /** @return counter {@code counter} (any thread) */
    long get(final int counter) {
        return values.getOpaque(counter);
    }

    /** @return the shown counters by name, in the reference's order (any thread) */
    Map<String, Long> snapshot() {
        final Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < NAMES.length; i++) {
            m.put(NAMES[i], values.getOpaque(i));
        }
        return m;
    }
}
