package net.fips.dataplane.transport;

import java.util.Map;

/**
 * Reads the counters every transport type has from its {@link Transport#stats()} map, whatever the type calls
 * them (Ethernet says {@code frames_*} where the others say {@code packets_*}). Control path: each call takes one
 * stats snapshot.
 */
public final class TransportCounters {
    private TransportCounters() {
    }

    /** @return the counter named {@code name} (or, when absent, {@code alternative}), or -1 when it has neither */
    public static long get(final Map<String, Long> stats, final String name, final String alternative) {
        Long v = stats.get(name);
        if (v == null && alternative != null) {
            v = stats.get(alternative);
        }
        return v == null ? -1 : v;
    }

    /** @return packets (frames) sent, or -1 */
    public static long packetsSent(final Map<String, Long> stats) {
        return get(stats, "packets_sent", "frames_sent");
    }

    /** @return packets (frames) received, or -1 */
    public static long packetsRecv(final Map<String, Long> stats) {
        return get(stats, "packets_recv", "frames_recv");
    }

    /** @return bytes sent, or -1 */
    public static long bytesSent(final Map<String, Long> stats) {
        return get(stats, "bytes_sent", null);
    }

    /** @return bytes received, or -1 */
    public static long bytesRecv(final Map<String, Long> stats) {
        return get(stats, "bytes_recv", null);
    }
}
