package net.fips.dataplane.nym;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The start-up probe of {@code nym-socks5-client} (transports.md §6.7): on a fake clock, the waits are 1, 2, 4, 8
 * and then 10 s until the startup timeout; a proxy that opens late is found; a real port is probed with real
 * connects.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class Socks5ReadinessTest {
    /** A clock that only the sleeper moves. */
    private static final class FakeTime {
        long now;
        final List<Long> sleeps = new ArrayList<>();

        void sleep(final long nanos) {
            sleeps.add(TimeUnit.NANOSECONDS.toSeconds(nanos));
            now += nanos;
        }
    }

    @Test
    void backsOffFromOneSecondDoublingToTenUntilTheTimeout() {
        final FakeTime t = new FakeTime();
        final int[] probes = {0};
        final Socks5Readiness r = new Socks5Readiness(() -> {
            probes[0]++;
            return false;
        }, () -> t.now, t::sleep);
        assertFalse(r.await(TimeUnit.SECONDS.toNanos(45)));
        assertEquals(List.of(1L, 2L, 4L, 8L, 10L, 10L, 10L), t.sleeps);
        assertEquals(8, probes[0], "one probe at once and one after each wait");
    }

    @Test
    void aZeroTimeoutProbesOnce() {
        final FakeTime t = new FakeTime();
        final int[] probes = {0};
        assertFalse(new Socks5Readiness(() -> probes[0]++ > 0, () -> t.now, t::sleep).await(0));
        assertEquals(1, probes[0]);
        assertEquals(List.of(), t.sleeps);
    }

    @Test
    void aProxyThatOpensLateIsFound() {
        final FakeTime t = new FakeTime();
        // Up at 5 s: probes at 0, 1, 3 fail, the one at 7 s succeeds.
        final Socks5Readiness r = new Socks5Readiness(() -> t.now >= TimeUnit.SECONDS.toNanos(5), () -> t.now,
                t::sleep);
        assertTrue(r.await(TimeUnit.SECONDS.toNanos(120)));
        assertEquals(List.of(1L, 2L, 4L), t.sleeps);
    }

    @Test
    void theTcpProbeConnectsToARealPortAndFailsOnAClosedOne() throws IOException {
        final int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertTrue(Socks5Readiness.tcpConnect("127.0.0.1:" + s.getLocalPort()).reachable());
            closed = s.getLocalPort();
        }
        assertFalse(Socks5Readiness.tcpConnect("127.0.0.1:" + closed).reachable());
        assertFalse(Socks5Readiness.tcpConnect("no-port").reachable());
    }

    /** A port that opens while the real-time wait runs (real clock and sleep, 1 s first delay). */
    @Test
    void aRealPortThatOpensDuringTheWaitIsFound() throws Exception {
        final int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        final Thread opener = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(300); // the proxy process starting up; the probe under test polls, it does not wait
                try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                    s.setSoTimeout(10_000);
                    s.accept().close();
                }
            } catch (final IOException | InterruptedException e) {
                // the assertion below fails
            }
        });
        final Socks5Readiness r = new Socks5Readiness(Socks5Readiness.tcpConnect("127.0.0.1:" + port),
                System::nanoTime, n -> TimeUnit.NANOSECONDS.sleep(n));
        assertTrue(r.await(TimeUnit.SECONDS.toNanos(10)));
        opener.join();
    }
}
