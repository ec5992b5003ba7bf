package net.fips.control.nat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.dataplane.udp.TraversalSocket;

/** Punch attempts over real loopback sockets (discovery-gateway.md §2.5, §7.3 step 2). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PunchRunnerTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 0);
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(10);

    private static PunchRunner runner() {
        return new PunchRunner(System::nanoTime, System::currentTimeMillis);
    }

    /** Each runner on a thread of its own (the common pool may have a single thread on a small machine). */
    private static void ownThread(final Runnable r) {
        Thread.ofPlatform().daemon().name("punch-runner").start(r);
    }

    private static CompletableFuture<PunchRunner.Outcome> punch(final TraversalSocket s, final String session,
            final List<InetSocketAddress> targets, final long timeoutNanos) {
        final long start = System.currentTimeMillis() + 50;
        return CompletableFuture.supplyAsync(() -> {
            try {
                return runner().run(DatagramPort.of(s), session, targets, start, 20, 3_000, timeoutNanos, () -> false);
            } catch (final PunchFailure e) {
                throw new IllegalStateException(e.reason(), e);
            }
        }, PunchRunnerTest::ownThread);
    }

    @Test
    void twoRunnersFindEachOtherAndThePathCarriesTraffic() throws Exception {
        try (TraversalSocket a = TraversalSocket.open(LOOPBACK); TraversalSocket b = TraversalSocket.open(LOOPBACK)) {
            final var fa = punch(a, "sess-1", List.of(b.localAddress()), TIMEOUT);
            final var fb = punch(b, "sess-1", List.of(a.localAddress()), TIMEOUT);
            assertEquals(b.localAddress(), fa.get(20, TimeUnit.SECONDS).remote());
            assertEquals(a.localAddress(), fb.get(20, TimeUnit.SECONDS).remote());
            a.send(new byte[]{7, 7}, 2, b.localAddress());
            final byte[] in = new byte[64];
            TraversalSocket.Received r;
            do {
                r = b.receive(in, 2_000);   // late punch packets may come first
            } while (r != null && PunchPacket.parse(in, r.length()) != null);
            assertNotNull(r);
            assertArrayEquals(new byte[]{7, 7}, Arrays.copyOf(in, r.length()));
        }
    }

    @Test
    void aPeerReflexiveSourceWinsEvenWhenNoTargetMatches() throws Exception {
        try (TraversalSocket a = TraversalSocket.open(LOOPBACK); TraversalSocket b = TraversalSocket.open(LOOPBACK);
             TraversalSocket nowhere = TraversalSocket.open(LOOPBACK)) {
            // a probes an address b is not at; b probes a. a still succeeds, with b's real address.
            final var fa = punch(a, "sess-2", List.of(nowhere.localAddress()), TIMEOUT);
            final var fb = punch(b, "sess-2", List.of(a.localAddress()), TIMEOUT);
            assertEquals(b.localAddress(), fa.get(20, TimeUnit.SECONDS).remote());
            assertEquals(a.localAddress(), fb.get(20, TimeUnit.SECONDS).remote());
        }
    }

    @Test
    void anotherSessionsProbesAreIgnoredAndTheAttemptTimesOutWithBoundedProbes() throws Exception {
        try (TraversalSocket a = TraversalSocket.open(LOOPBACK); TraversalSocket b = TraversalSocket.open(LOOPBACK)) {
            final long shortTimeout = TimeUnit.MILLISECONDS.toNanos(600);
            final var fa = punch(a, "sess-3", List.of(b.localAddress()), shortTimeout);
            final var fb = punch(b, "other", List.of(a.localAddress()), shortTimeout);
            for (final var f : List.of(fa, fb)) {
                final var e = assertThrows(Exception.class, () -> f.get(20, TimeUnit.SECONDS));
                assertEquals("PunchTimeout", e.getCause().getMessage());
            }
        }
        // bounded: a lone attempt sends at most one probe per target per 20 ms over its 600 ms
        try (TraversalSocket a = TraversalSocket.open(LOOPBACK);
             TraversalSocket sink = TraversalSocket.open(LOOPBACK)) {
            final var f = punch(a, "sess-4", List.of(sink.localAddress()), TimeUnit.MILLISECONDS.toNanos(600));
            assertThrows(Exception.class, () -> f.get(20, TimeUnit.SECONDS));
            int probes = 0;
            final byte[] in = new byte[64];
            while (sink.receive(in, 0) != null) {
                probes++;
            }
            assertTrue(probes >= 1 && probes <= 600 / (int) PunchAttempt.MIN_INTERVAL_MS + 1, probes + " probes");
        }
    }

    @Test
    void probeIsAckedThreeTimesAndTheNextDatagramIsLeftForTheDataPlane() throws Exception {
        try (TraversalSocket a = TraversalSocket.open(LOOPBACK);
             TraversalSocket peer = TraversalSocket.open(LOOPBACK)) {
            final byte[] hash = PunchPacket.sessionHash("sess-5");
            // a's own probes start late, so the peer's probe is what decides
            final var fa = CompletableFuture.supplyAsync(() -> {
                try {
                    return runner().run(DatagramPort.of(a), "sess-5", List.of(peer.localAddress()),
                            System.currentTimeMillis() + 60_000, 200, 1_000, TIMEOUT, () -> false);
                } catch (final PunchFailure e) {
                    throw new IllegalStateException(e);
                }
            }, PunchRunnerTest::ownThread);
            final byte[] probe = new PunchPacket(false, 9, hash).encode();
            final byte[] msg1 = {1, 2, 3, 4, 5};
            final byte[] in = new byte[64];
            // until a answers (its runner may not be reading yet), then send what a data plane would read
            TraversalSocket.Received r = null;
            while (r == null) {
                peer.send(probe, probe.length, a.localAddress());
                r = peer.receive(in, 200);
            }
            peer.send(msg1, msg1.length, a.localAddress());
            assertEquals(peer.localAddress(), fa.get(20, TimeUnit.SECONDS).remote());
            int acks = 1;
            assertEquals(new PunchPacket(true, 9, hash), PunchPacket.parse(in, r.length()));
            while (peer.receive(in, 300) != null) {
                assertEquals(new PunchPacket(true, 9, hash), PunchPacket.parse(in, PunchPacket.BYTES));
                acks++;
            }
            assertEquals(PunchAttempt.ACKS, acks, "ADR 0040: three acks, 50 ms apart");
            final TraversalSocket.Received left = a.receive(in, 2_000);
            assertNotNull(left, "the datagram after the probe stayed queued for the adopting transport");
            assertArrayEquals(msg1, Arrays.copyOf(in, left.length()));
        }
    }
}
