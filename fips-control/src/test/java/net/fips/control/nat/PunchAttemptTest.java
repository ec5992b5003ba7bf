package net.fips.control.nat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;

/**
 * One punch attempt per side on a simulated network with a manual clock: two NATs that drop unsolicited inbound
 * (a packet from X to Y passes only once Y has sent to X), 5 ms one way, optional loss.
 */
class PunchAttemptTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long WALL0 = 1_700_000_000_000L;
    private static final InetSocketAddress A = addr("198.18.1.1", 40000);
    private static final InetSocketAddress B = addr("198.18.2.1", 50000);

    /** A datagram in flight. */
    private record Flight(long at, byte[] bytes, InetSocketAddress from, InetSocketAddress to) {
    }

    /** The network: NAT filtering, latency, loss. */
    private static final class Net {
        final List<Flight> inFlight = new ArrayList<>();
        final Set<String> opened = new HashSet<>();
        Predicate<Flight> lose = f -> false;
        long now;
        int delivered;

        PunchAttempt.Sender from(final InetSocketAddress self) {
            return (bytes, to) -> {
                opened.add(self + ">" + to);
                inFlight.add(new Flight(now + 5 * MS, bytes.clone(), self, to));
            };
        }

        void deliver(final PunchAttempt a, final PunchAttempt b) {
            for (final Flight f : List.copyOf(inFlight)) {
                if (f.at() > now) {
                    continue;
                }
                inFlight.remove(f);
                // The receiving side's NAT passes it only if that side has sent to the sender before.
                if (!opened.contains(f.to() + ">" + f.from()) || lose.test(f)) {
                    continue;
                }
                delivered++;
                (f.to().equals(A) ? a : b).onDatagram(f.bytes(), f.bytes().length, f.from(), now);
            }
        }
    }

    @Test
    void twoSidesBehindFilteringNatsBothEstablishWithEachOthersAddress() {
        final Net net = new Net();
        final PunchAttempt a = new PunchAttempt("sess-1", List.of(B), WALL0 + 2000, 200, 10_000, 10_000 * MS, 0,
                net.from(A));
        // B starts 30 ms later (one relay round trip), as the responder does.
        final PunchAttempt b = new PunchAttempt("sess-1", List.of(A), WALL0 + 2030, 200, 10_000, 10_000 * MS, 0,
                net.from(B));
        run(net, a, b, 12_000);
        assertEquals(PunchAttempt.State.ESTABLISHED, a.state());
        assertEquals(PunchAttempt.State.ESTABLISHED, b.state());
        assertEquals(B, a.remote());
        assertEquals(A, b.remote());
        assertTrue(a.done() && b.done());
        assertTrue(a.probesSent() <= 2 && b.probesSent() <= 2, "probing stops once established: " + a.probesSent()
                + "/" + b.probesSent());
    }

    @Test
    void withoutAPeerTheAttemptProbesForItsDurationAndTimesOutAtItsDeadline() {
        final Net net = new Net();
        final PunchAttempt a = new PunchAttempt("sess-1", List.of(B, addr("192.168.1.20", 63000)), WALL0 + 2000, 200,
                8_000, 10_000 * MS, 0, net.from(A));
        long now = 0;
        while (a.state() == PunchAttempt.State.RUNNING) {
            final long next = a.nextWakeNanos(now, WALL0 + now / MS);
            assertTrue(next > now || next == now && now == 0, "no busy loop: " + next + " at " + now);
            now = Math.max(now, next);
            a.poll(now, WALL0 + now / MS);
        }
        assertEquals(PunchAttempt.State.TIMED_OUT, a.state());
        assertEquals(10_000 * MS, now, "times out exactly at its deadline");
        assertEquals(2 * 40, a.probesSent(), "40 rounds of 200 ms from 2 s to 10 s, two targets each");
    }

    @Test
    void theFirstToHearAProbeAcksThreeTimesSoOneLostAckIsNotTheEnd() {
        final Net net = new Net();
        // A's probes reach B; B's probes never reach A (lost), and the first of B's acks is lost too.
        final int[] acksFromB = {0};
        net.lose = f -> {
            if (!f.from().equals(B)) {
                return false;
            }
            final PunchPacket p = PunchPacket.parse(f.bytes(), f.bytes().length);
            return !p.ack() || acksFromB[0]++ == 0;
        };
        final PunchAttempt a = new PunchAttempt("sess-1", List.of(B), WALL0 + 2000, 200, 10_000, 10_000 * MS, 0,
                net.from(A));
        final List<Long> ackTimes = new ArrayList<>();
        final PunchAttempt.Sender bSocket = net.from(B);
        final PunchAttempt b = new PunchAttempt("sess-1", List.of(A), WALL0 + 1000, 200, 10_000, 10_000 * MS, 0,
                (bytes, to) -> {
                    if (PunchPacket.parse(bytes, bytes.length).ack()) {
                        ackTimes.add(net.now / MS);
                    }
                    bSocket.send(bytes, to);
                });
        run(net, a, b, 12_000);
        assertEquals(PunchAttempt.State.ESTABLISHED, b.state(), "B heard A's first probe");
        assertEquals(PunchAttempt.State.ESTABLISHED, a.state(), "A heard B's second ack");
        assertEquals(3, ackTimes.size(), "B acked three times: " + ackTimes);
        assertEquals(List.of(0L, 50L, 100L), ackTimes.stream().map(t -> t - ackTimes.get(0)).toList(), "50 ms apart");
    }

    @Test
    void packetsOfAnotherAttemptAreIgnored() {
        final Net net = new Net();
        final PunchAttempt a = new PunchAttempt("sess-1", List.of(B), WALL0, 200, 1_000, 2_000 * MS, 0, net.from(A));
        final byte[] other = new PunchPacket(false, 0, PunchPacket.sessionHash("sess-2")).encode();
        assertFalse(a.onDatagram(other, other.length, B, 0));
        assertFalse(a.onDatagram(new byte[] {1, 2, 3}, 3, B, 0));
        assertEquals(PunchAttempt.State.RUNNING, a.state());
    }

    private static void run(final Net net, final PunchAttempt a, final PunchAttempt b, final long untilMs) {
        for (net.now = 0; net.now <= untilMs * MS && !(a.done() && b.done()); net.now += MS) {
            net.deliver(a, b);
            a.poll(net.now, WALL0 + net.now / MS);
            b.poll(net.now, WALL0 + net.now / MS);
        }
    }

    private static InetSocketAddress addr(final String ip, final int port) {
        return new InetSocketAddress(InetAddress.ofLiteral(ip), port);
    }
}
