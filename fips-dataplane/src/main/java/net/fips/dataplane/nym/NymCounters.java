package net.fips.dataplane.nym;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import net.fips.dataplane.tor.Socks5Counters;
import net.fips.dataplane.tor.Socks5Failure;

/**
 * The Nym transport's SOCKS5 counters and its {@code show_transports} stats in the reference's shape (NymStats,
 * transports.md §1.8): the reference has no {@code connect_refused} for Nym, so a CONNECT reply 05 and a refused
 * connect to the proxy are {@code socks5_errors}, a timeout is {@code connect_timeouts}.
 */
public final class NymCounters implements Socks5Counters {
    /** The reference's keys and order of a Nym transport's stats. */
    public static final List<String> NYM_STATS_ORDER = List.of("packets_sent", "bytes_sent", "packets_recv",
            "bytes_recv", "send_errors", "recv_errors", "mtu_exceeded", "connections_established",
            "connect_timeouts", "socks5_errors");

    private final AtomicLong connectTimeouts = new AtomicLong();
    private final AtomicLong socks5Errors = new AtomicLong();

    @Override
    public void record(final Socks5Failure f) {
        if (f.counter() == Socks5Failure.Counter.CONNECT_TIMEOUTS) {
            connectTimeouts.incrementAndGet();
        } else {
            socks5Errors.incrementAndGet();
        }
    }

    /** @return failed SOCKS5 exchanges counted here (without the stream transport's refused connects) */
    public long socks5Errors() {
        return socks5Errors.get();
    }

    /** @return SOCKS5 exchanges counted here as timed out */
    public long connectTimeouts() {
        return connectTimeouts.get();
    }

    /**
     * The Nym stats from the stream transport's counters: the TCP set's first eight keys as they are,
     * {@code connect_timeouts} summed (the stream transport times the whole dial out), and {@code socks5_errors}
     * = the failed exchanges + the stream transport's {@code connect_refused} (a refused connect can only be the
     * proxy's port, as every Nym connect goes to the proxy). The TCP keys the reference's Nym set does not have
     * (pool gauges, accept counters) are left out.
     *
     * @param tcp the stream transport's counters
     * @return the ordered Nym counter map
     */
    public Map<String, Long> merge(final Map<String, Long> tcp) {
        final Map<String, Long> out = new LinkedHashMap<>();
        for (final String k : NYM_STATS_ORDER) {
            out.put(k, tcp.getOrDefault(k, 0L));
        }
        out.merge("connect_timeouts", connectTimeouts.get(), Long::sum);
        out.put("socks5_errors", socks5Errors.get() + tcp.getOrDefault("connect_refused", 0L));
        return out;
    }
}
