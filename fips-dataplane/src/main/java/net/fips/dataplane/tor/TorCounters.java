package net.fips.dataplane.tor;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.List;

/**
 * The counters a Tor transport adds to the TCP set in {@code show_transports} (transports.md §1.8, §6.3):
 * {@code connect_timeouts}, {@code connect_refused}, {@code socks5_errors} for the dial and {@code control_errors}
 * for the control-port client. Written by connect tasks and the monitoring thread, read by snapshots.
 */
public final class TorCounters implements Socks5Counters {
    private final AtomicLong connectTimeouts = new AtomicLong();
    private final AtomicLong connectRefused = new AtomicLong();
    private final AtomicLong socks5Errors = new AtomicLong();
    private final AtomicLong controlErrors = new AtomicLong();

    /**
     * Counts one failed dial under the counter its failure belongs to.
     *
     * @param f the failure
     */
    @Override
    public void record(final Socks5Failure f) {
        switch (f.counter()) {
            case CONNECT_REFUSED -> connectRefused.incrementAndGet();
            case CONNECT_TIMEOUTS -> connectTimeouts.incrementAndGet();
            case SOCKS5_ERRORS -> socks5Errors.incrementAndGet();
        }
    }

    /** Counts one failed control-port operation (connect, authentication, a monitoring snapshot). */
    public void recordControlError() {
        controlErrors.incrementAndGet();
    }

    /** @return {@code connect_timeouts} */
    public long connectTimeouts() {
        return connectTimeouts.get();
    }

    /** @return {@code connect_refused} */
    public long connectRefused() {
        return connectRefused.get();
    }

    /** @return {@code socks5_errors} */
    public long socks5Errors() {
        return socks5Errors.get();
    }

    /** @return {@code control_errors} */
    public long controlErrors() {
        return controlErrors.get();
    }

    /** The reference's order of a Tor transport's {@code show_transports} stats (TorStatsSnapshot). */
    public static final List<String> TOR_STATS_ORDER = List.of("packets_sent", "bytes_sent",
            "packets_recv", "bytes_recv", "send_errors", "recv_errors", "mtu_exceeded", "connections_established",
            "connect_timeouts", "connect_refused", "socks5_errors", "connections_accepted", "connections_rejected",
            "control_errors", "pool_inbound", "pool_outbound");

    /**
     * The Tor stats of {@code show_transports}: the stream transport's counters (the TCP set) with these four
     * added, in the reference's order. {@code connect_timeouts} and {@code connect_refused} are summed (the stream
     * transport counts its own connect step, this object the SOCKS5 dial); a TCP key the reference's Tor set does
     * not have is kept, after the others.
     *
     * @param tcp the stream transport's counters
     * @return the ordered Tor counter map
     */
    public Map<String, Long> merge(final Map<String, Long> tcp) {
        final Map<String, Long> mine = snapshot();
        final Map<String, Long> out = new LinkedHashMap<>();
        for (final String k : TOR_STATS_ORDER) {
            final Long a = tcp.get(k);
            final Long b = mine.get(k);
            if (a != null || b != null) {
                out.put(k, (a == null ? 0 : a) + (b == null ? 0 : b));
            }
        }
        tcp.forEach(out::putIfAbsent);
        return out;
    }

    /** @return the four counters under their {@code show_transports} names, in the reference's order */
    public Map<String, Long> snapshot() {
        final Map<String, Long> m = new LinkedHashMap<>();
        m.put("connect_timeouts", connectTimeouts());
        m.put("connect_refused", connectRefused());
        m.put("socks5_errors", socks5Errors());
        m.put("control_errors", controlErrors());
        return m;
    }
}
