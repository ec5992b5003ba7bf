package net.fips.dataplane.tor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The Tor counter set of show_transports (transports.md §1.8): the TCP set plus socks5_errors, control_errors. */
class TorCountersTest {
    @Test
    void mergedIntoTheTcpSetInTheReferenceOrder() {
        final TorCounters c = new TorCounters();
        c.record(Socks5Failure.CONNECTION_REFUSED);
        c.record(Socks5Failure.TIMEOUT);
        c.record(Socks5Failure.TIMEOUT);
        c.record(Socks5Failure.HOST_UNREACHABLE);
        c.record(Socks5Failure.PROXY_UNREACHABLE);
        c.recordControlError();
        final Map<String, Long> tcp = new LinkedHashMap<>();
        for (final String k : List.of("packets_sent", "bytes_sent", "packets_recv", "bytes_recv", "send_errors",
                "recv_errors", "mtu_exceeded", "connections_established", "connections_accepted",
                "connections_rejected", "connect_timeouts", "connect_refused", "pool_inbound", "pool_outbound")) {
            tcp.put(k, 1L);
        }
        final Map<String, Long> tor = c.merge(tcp);
        assertEquals(TorCounters.TOR_STATS_ORDER, List.copyOf(tor.keySet()));
        assertEquals(3L, tor.get("connect_timeouts"));
        assertEquals(2L, tor.get("connect_refused"));
        assertEquals(2L, tor.get("socks5_errors"));
        assertEquals(1L, tor.get("control_errors"));
        assertEquals(1L, tor.get("pool_outbound"));
        assertEquals(Map.of("connect_timeouts", 2L, "connect_refused", 1L, "socks5_errors", 2L, "control_errors", 1L),
                c.snapshot());
    }
}
