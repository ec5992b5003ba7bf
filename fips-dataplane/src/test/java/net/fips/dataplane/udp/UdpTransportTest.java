package net.fips.dataplane.udp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import net.fips.dataplane.transport.Transport;
import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.Syscalls;

/** Loopback-only tests of the FFM UDP transport: real sockets, real kernel, content-checked. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UdpTransportTest {
    private static final int SLOT = 2048;
    private static final int BATCH = 32;

    private static UdpTransport open(final String bind, final boolean gso, final boolean gro) throws Exception {
        return UdpTransport.open(new UdpTransportConfig().bindAddress(bind).gso(gso).gro(gro).mtuBytes(1400));
    }

    /** A receive batch over {@code n} slots of {@code slotSize} bytes in one region. */
    private static ReceiveBatch slots(final Arena arena, final int n, final int slotSize) {
        final MemorySegment region = arena.allocate((long) n * slotSize, 64);
        final ReceiveBatch rb = new ReceiveBatch(arena, n);
        for (int i = 0; i < n; i++) {
            rb.slot(i, region, (long) i * slotSize, slotSize);
        }
        rb.offer(n);
        return rb;
    }

    /** Receives until {@code expected} datagrams arrived or a 2 s wait gives nothing; returns them verified. */
    private static List<int[]> drain(final UdpTransport rx, final ReceiveBatch rb, final int expected) {
        final List<int[]> got = new ArrayList<>();
        while (got.size() < expected) {
            final int n = rx.receive(rb, 2000);
            if (n == 0) {
                break;
            }
            for (int k = 0; k < n; k++) {
                final long seq = TestPackets.verify(rb.segment(k), rb.offset(k), rb.length(k));
                got.add(new int[]{(int) seq, rb.length(k)});
            }
        }
        return got;
    }

    @ParameterizedTest(name = "{0} gso={1} gro={2}")
    @CsvSource({"127.0.0.1:0, false, false", "127.0.0.1:0, true, false", "127.0.0.1:0, true, true",
            "'[::1]:0', true, false"})
    void transfers100kPacketsIntact(final String bind, final boolean gso, final boolean gro) throws Exception {
        final int total = 100_000;
        try (Arena arena = Arena.ofConfined();
             UdpTransport tx = open(bind, gso, false);
             UdpTransport rx = open(bind, false, gro)) {
            final UdpDestination dst = tx.destination(rx.localAddress());
            final MemorySegment out = arena.allocate((long) BATCH * 1400, 64);
            final SendBatch sb = new SendBatch(BATCH);
            final ReceiveBatch rb = slots(arena, BATCH, SLOT);
            final BitSet seen = new BitSet(total);
            long sentBytes = 0;
            int accepted = 0;
            int corrupt = 0;
            int duplicates = 0;
            int received = 0;
            int seq = 0;
            while (seq < total) {
                sb.clear();
                for (int t = 0; t < BATCH && seq < total; t++, seq++) {
                    // GSO-shaped batches (all 1200 but a shorter last one) or varied sizes for sendmmsg.
                    final int size = gso ? (t == BATCH - 1 ? 100 + seq % 1100 : 1200) : 20 + (seq * 37) % 1381;
                    TestPackets.write(out, (long) t * 1400, seq, size);
                    sb.add(out, (long) t * 1400, size, dst);
                    sentBytes += size;
                }
                accepted += tx.send(sb);
                // Pace: drain what this batch delivered before sending the next, so loopback does not drop.
                while (received < accepted) {
                    final int n = rx.receive(rb, 200);
                    if (n == 0) {
                        break;
                    }
                    for (int k = 0; k < n; k++) {
                        final long s = TestPackets.verify(rb.segment(k), rb.offset(k), rb.length(k));
                        if (s < 0 || s >= total) {
                            corrupt++;
                        } else if (seen.get((int) s)) {
                            duplicates++;
                        } else {
                            seen.set((int) s);
                        }
                        received++;
                    }
                }
            }
            final UdpCounters txc = tx.counters();
            final UdpCounters rxc = rx.counters();
            System.out.println(bind + " gso=" + gso + " gro=" + gro + ": received " + received + " of " + total
                    + "; tx " + txc + "; rx " + rxc);
            assertEquals(0, corrupt, "corrupt packets");
            assertEquals(0, duplicates, "duplicate packets");
            assertTrue(received >= total * 0.99, "received only " + received + " of " + total);
            assertEquals(total, accepted + txc.sendDrops() + txc.sendErrors());
            assertEquals(accepted, txc.packetsOut());
            if (accepted == total) {
                assertEquals(sentBytes, txc.bytesOut());
            }
            assertEquals(received, rxc.packetsIn());
            if (gso) {
                assertTrue(txc.gsoSends() > 0 && txc.gsoPackets() > total / 2, txc.toString());
                assertEquals(0, txc.gsoFallbacks());
            } else {
                assertEquals(0, txc.gsoSends());
            }
            if (gro) {
                assertTrue(rx.groActive(), rx.groProblem());
                assertTrue(rxc.groTrains() > 0, "GRO on loopback should coalesce GSO trains: " + rxc);
            }
            final InetSocketAddress src = rb.sourceAddress(0);
            assertEquals(tx.localAddress(), src);
        }
    }

    @Test
    void gsoTrainArrivesAsIndividualSegments() throws Exception {
        try (Arena arena = Arena.ofConfined();
             UdpTransport tx = open("127.0.0.1:0", true, false);
             UdpTransport rx = open("127.0.0.1:0", false, false)) {
            final UdpDestination dst = tx.destination(rx.localAddress());
            final MemorySegment out = arena.allocate(11L * 1400);
            final SendBatch sb = new SendBatch(BATCH);
            for (int i = 0; i < 11; i++) {
                final int size = i < 10 ? 1000 : 500;
                TestPackets.write(out, i * 1400L, i, size);
                sb.add(out, i * 1400L, size, dst);
            }
            assertEquals(11, tx.send(sb));
            assertEquals(1, tx.counters().gsoSends(), "one sendmsg for the whole train");
            assertEquals(11, tx.counters().gsoPackets());
            assertEquals(10 * 1000 + 500, tx.counters().bytesOut());
            final List<int[]> got = drain(rx, slots(arena, BATCH, SLOT), 11);
            assertEquals(11, got.size());
            for (int i = 0; i < 11; i++) {
                assertEquals(i, got.get(i)[0], "segments arrive in order and intact");
                assertEquals(i < 10 ? 1000 : 500, got.get(i)[1]);
            }
            assertEquals(11, rx.counters().packetsIn());
            assertEquals(10500, rx.counters().bytesIn());
        }
    }

    /**
     * A batch for three destinations, interleaved: a 12-segment train, a 3-segment train and one datagram leave in
     * one sendmmsg (as a transit's batch for both its neighbours does), each destination's packets in order.
     */
    @Test
    void oneCallCarriesTrainsAndDatagramsForSeveralDestinations() throws Exception {
        try (Arena arena = Arena.ofConfined();
             UdpTransport tx = open("127.0.0.1:0", true, false);
             UdpTransport rx1 = open("127.0.0.1:0", false, false);
             UdpTransport rx2 = open("127.0.0.1:0", false, false);
             UdpTransport rx3 = open("127.0.0.1:0", false, false)) {
            final UdpDestination d1 = tx.destination(rx1.localAddress());
            final UdpDestination d2 = tx.destination(rx2.localAddress());
            final UdpDestination d3 = tx.destination(rx3.localAddress());
            final MemorySegment out = arena.allocate(16L * 1400);
            final SendBatch sb = new SendBatch(BATCH);
            int p = 0;
            long bytes = 0;
            for (int i = 0; i < 12; i++) {
                final int size = i < 11 ? 1000 : 600;
                TestPackets.write(out, p * 1400L, 100 + i, size);
                sb.add(out, p++ * 1400L, size, d1);
                bytes += size;
                if (i % 4 == 1) {
                    final int size2 = i < 9 ? 300 : 200;
                    TestPackets.write(out, p * 1400L, 200 + i, size2);
                    sb.add(out, p++ * 1400L, size2, d2);
                    bytes += size2;
                }
                if (i == 6) {
                    TestPackets.write(out, p * 1400L, 300, 77);
                    sb.add(out, p++ * 1400L, 77, d3);
                    bytes += 77;
                }
            }
            assertEquals(16, p);
            assertEquals(16, tx.send(sb));
            assertEquals(1, tx.counters().sendCalls(), "one system call for the whole batch");
            assertEquals(2, tx.counters().gsoSends(), "two trains");
            assertEquals(15, tx.counters().gsoPackets());
            assertEquals(16, tx.counters().packetsOut());
            assertEquals(bytes, tx.counters().bytesOut());
            final List<int[]> got1 = drain(rx1, slots(arena, BATCH, SLOT), 12);
            assertEquals(12, got1.size());
            for (int i = 0; i < 12; i++) {
                assertEquals(100 + i, got1.get(i)[0], "in order and intact");
                assertEquals(i < 11 ? 1000 : 600, got1.get(i)[1]);
            }
            final List<int[]> got2 = drain(rx2, slots(arena, BATCH, SLOT), 3);
            assertEquals(List.of(201, 205, 209), got2.stream().map(g -> g[0]).toList());
            assertEquals(List.of(300, 300, 200), got2.stream().map(g -> g[1]).toList());
            final List<int[]> got3 = drain(rx3, slots(arena, BATCH, SLOT), 1);
            assertEquals(1, got3.size());
            assertEquals(300, got3.get(0)[0]);
            assertEquals(77, got3.get(0)[1]);
        }
    }

    /** 100 equal datagrams to one destination: two trains (64 + 36 segments), one call, in order. */
    @Test
    void moreSegmentsThanOneTrainHoldsStillTakeOneCall() throws Exception {
        try (Arena arena = Arena.ofConfined();
             UdpTransport tx = open("127.0.0.1:0", true, false);
             UdpTransport rx = open("127.0.0.1:0", false, false)) {
            final UdpDestination dst = tx.destination(rx.localAddress());
            final MemorySegment out = arena.allocate(100L * 512);
            final SendBatch sb = new SendBatch(128);
            for (int i = 0; i < 100; i++) {
                TestPackets.write(out, i * 512L, i, 500);
                sb.add(out, i * 512L, 500, dst);
            }
            assertEquals(100, tx.send(sb));
            assertEquals(1, tx.counters().sendCalls());
            assertEquals(2, tx.counters().gsoSends());
            assertEquals(100, tx.counters().gsoPackets());
            final List<int[]> got = drain(rx, slots(arena, BATCH, SLOT), 100);
            assertEquals(100, got.size());
            for (int i = 0; i < 100; i++) {
                assertEquals(i, got.get(i)[0]);
            }
        }
    }

    /**
     * More messages than one call takes (the transport's batch, 32): 40 datagrams of unequal sizes, no train, leave in
     * two calls, all of them, in order.
     */
    @Test
    void moreMessagesThanOneCallTakesGoInSeveralCallsInOrder() throws Exception {
        try (Arena arena = Arena.ofConfined();
             UdpTransport tx = open("127.0.0.1:0", true, false);
             UdpTransport rx = open("127.0.0.1:0", false, false)) {
            final UdpDestination dst = tx.destination(rx.localAddress());
            final MemorySegment out = arena.allocate(40L * 1400);
            final SendBatch sb = new SendBatch(64);
            for (int i = 0; i < 40; i++) {
                final int size = 100 + (i * 131) % 1200;
                TestPackets.write(out, i * 1400L, i, size);
                sb.add(out, i * 1400L, size, dst);
            }
            assertEquals(40, tx.send(sb));
            assertEquals(2, tx.counters().sendCalls(), "32 messages, then 8");
            assertEquals(0, tx.counters().gsoSends());
            final List<int[]> got = drain(rx, slots(arena, BATCH, SLOT), 40);
            assertEquals(40, got.size());
            for (int i = 0; i < 40; i++) {
                assertEquals(i, got.get(i)[0], "in order and intact");
                assertEquals(100 + (i * 131) % 1200, got.get(i)[1]);
            }
        }
    }

    @Test
    void groTrainIsSplitIntoSlotsAcrossCalls() throws Exception {
        try (Arena arena = Arena.ofConfined();
             UdpTransport tx = open("127.0.0.1:0", true, false);
             UdpTransport rx = open("127.0.0.1:0", false, true)) {
            assertTrue(rx.groActive(), rx.groProblem());
            final UdpDestination dst = tx.destination(rx.localAddress());
            final MemorySegment out = arena.allocate(21L * 1400);
            final SendBatch sb = new SendBatch(BATCH);
            for (int i = 0; i < 21; i++) {
                final int size = i < 20 ? 1200 : 300;
                TestPackets.write(out, i * 1400L, i, size);
                sb.add(out, i * 1400L, size, dst);
            }
            assertEquals(21, tx.send(sb));
            // Only 8 slots per call: the 21-segment train must be handed out over three calls.
            final ReceiveBatch rb = slots(arena, 8, SLOT);
            final List<int[]> got = new ArrayList<>();
            int calls = 0;
            while (got.size() < 21) {
                final int n = rx.receive(rb, 2000);
                assertTrue(n > 0, "missing segments after " + got.size());
                calls++;
                for (int k = 0; k < n; k++) {
                    got.add(new int[]{(int) TestPackets.verify(rb.segment(k), rb.offset(k), rb.length(k)),
                            rb.length(k)});
                    assertEquals(tx.localAddress(), rb.sourceAddress(k));
                }
            }
            assertEquals(3, calls);
            for (int i = 0; i < 21; i++) {
                assertEquals(i, got.get(i)[0]);
                assertEquals(i < 20 ? 1200 : 300, got.get(i)[1]);
            }
            assertEquals(1, rx.counters().groTrains(), "loopback delivers the GSO train whole to a GRO socket");
            assertEquals(21, rx.counters().packetsIn());
        }
    }

    @Test
    void gsoRefusedByKernelFallsBackPermanently() throws Exception {
        try (Arena arena = Arena.ofConfined();
             UdpTransport tx = open("127.0.0.1:0", true, false);
             UdpTransport rx = open("127.0.0.1:0", false, false)) {
            // A socket sending without UDP checksums cannot use GSO: the kernel answers EINVAL.
            Syscalls.setsockoptInt(tx.fileDescriptor(), Linux.SOL_SOCKET, Linux.SO_NO_CHECK, 1, "SO_NO_CHECK");
            final UdpDestination dst = tx.destination(rx.localAddress());
            final MemorySegment out = arena.allocate(10L * 1400);
            final SendBatch sb = new SendBatch(BATCH);
            for (int round = 0; round < 2; round++) {
                sb.clear();
                for (int i = 0; i < 10; i++) {
                    TestPackets.write(out, i * 1400L, round * 10 + i, 1000);
                    sb.add(out, i * 1400L, 1000, dst);
                }
                assertEquals(10, tx.send(sb));
                final List<int[]> got = drain(rx, slots(arena, BATCH, SLOT), 10);
                assertEquals(10, got.size());
                for (int i = 0; i < 10; i++) {
                    assertEquals(round * 10 + i, got.get(i)[0]);
                }
            }
            assertFalse(tx.gsoActive());
            assertEquals(Errno.EINVAL, tx.gsoDisabledErrno());
            assertEquals(1, tx.counters().gsoFallbacks(), "refused once, then never tried again");
            assertEquals(0, tx.counters().gsoSends());
            assertEquals(20, tx.counters().packetsOut());
            // Round 1: the combined call and the train alone are refused, the datagrams go in one call; round 2:
            // one call of ten datagrams.
            assertEquals(4, tx.counters().sendCalls());
        }
    }

    @Test
    void emptySocketCountsEagainAndPollTimesOut() throws Exception {
        try (Arena arena = Arena.ofConfined(); UdpTransport rx = open("127.0.0.1:0", false, false)) {
            final ReceiveBatch rb = slots(arena, 4, SLOT);
            assertEquals(0, rx.receive(rb, 0));
            assertEquals(1, rx.counters().recvEagain());
            final long t0 = System.nanoTime();
            assertEquals(0, rx.receive(rb, 50));
            assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(40), "waited in poll");
            assertEquals(2, rx.counters().recvEagain());
            rx.wakeup();
            final long t1 = System.nanoTime();
            assertEquals(0, rx.receive(rb, 60_000));
            assertTrue(System.nanoTime() - t1 < TimeUnit.SECONDS.toNanos(30), "wakeup ends the wait");
            assertEquals(0, rx.counters().recvErrors());
        }
    }

    @Test
    void oversizeAndTruncatedPacketsAreCounted() throws Exception {
        try (Arena arena = Arena.ofConfined();
             UdpTransport tx = open("127.0.0.1:0", false, false);
             UdpTransport rx = open("127.0.0.1:0", false, false)) {
            final UdpDestination dst = tx.destination(rx.localAddress());
            final MemorySegment out = arena.allocate(2000);
            final SendBatch sb = new SendBatch(4);
            sb.add(out, 0, 1401, dst);   // above the 1400 MTU: refused
            TestPackets.write(out, 0, 7, 200);
            sb.add(out, 0, 200, dst);
            assertEquals(1, tx.send(sb));
            assertEquals(1, tx.counters().mtuExceeded());
            final ReceiveBatch rb = slots(arena, 2, 100);   // too small for 200 bytes
            final int n = rx.receive(rb, 2000);
            assertEquals(0, n);
            assertEquals(1, rx.counters().recvTruncated());
        }
    }

    @Test
    void portInUseNamesTheAddress() throws Exception {
        try (UdpTransport first = UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0")
                .reusePort(false))) {
            final String where = "127.0.0.1:" + first.localAddress().getPort();
            final ErrnoException e = assertThrows(ErrnoException.class,
                    () -> UdpTransport.open(new UdpTransportConfig().bindAddress(where).reusePort(false)));
            assertEquals(Errno.EADDRINUSE, e.errno());
            assertTrue(e.getMessage().contains("bind UDP " + where), e.getMessage());
            assertTrue(e.getMessage().contains("Address already in use"), e.getMessage());
        }
        try (UdpTransport a = open("127.0.0.1:0", false, false);
             UdpTransport b = UdpTransport.open(new UdpTransportConfig()
                     .bindAddress("127.0.0.1:" + a.localAddress().getPort()))) {
            assertEquals(a.localAddress(), b.localAddress(), "SO_REUSEPORT lets both bind");
        }
    }

    @Test
    void unusableAddressesAreExplained() {
        final String[][] cases = {
                {"nonsense", "has no host:port"},
                {"1.2.3.4:99999", "out of range"},
                {"1.2.3.4:abc", "is not a number"},
                {"::1:80", "brackets"},
                {"[::1]80", "[ipv6]:port"},
                {"[127.0.0.1]:80", "not IPv6"},
                {"", "empty"},
        };
        for (final String[] c : cases) {
            final UdpTransportException e = assertThrows(UdpTransportException.class,
                    () -> UdpTransport.open(new UdpTransportConfig().bindAddress(c[0])), c[0]);
            assertTrue(e.getMessage().contains(c[1]), e.getMessage());
        }
        final UdpTransportException notLocal = assertThrows(UdpTransportException.class,
                () -> UdpTransport.open(new UdpTransportConfig().bindAddress("192.0.2.1:0")));
        assertTrue(notLocal.getMessage().contains("192.0.2.1:0"), notLocal.getMessage());
        assertTrue(notLocal.getMessage().contains("not configured"), notLocal.getMessage());
        assertThrows(UdpTransportException.class,
                () -> UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0").batch(0)));
    }

    @Test
    void dualStackSocketTalksToIpv4Peers() throws Exception {
        try (Arena arena = Arena.ofConfined();
             UdpTransport dual = open("[::]:0", false, false);
             UdpTransport v4 = open("127.0.0.1:0", false, false)) {
            assertTrue(dual.isIpv6());
            final MemorySegment out = arena.allocate(200);
            final SendBatch sb = new SendBatch(1);
            TestPackets.write(out, 0, 1, 100);
            sb.add(out, 0, 100, v4.destination("127.0.0.1:" + dual.localAddress().getPort()));
            assertEquals(1, v4.send(sb));
            final ReceiveBatch rb = slots(arena, 4, SLOT);
            assertEquals(1, dual.receive(rb, 2000));
            final InetSocketAddress src = rb.sourceAddress(0);
            assertInstanceOf(Inet4Address.class, src.getAddress(), "IPv4-mapped source reported as IPv4");
            assertEquals(v4.localAddress(), src);
            // And back: an IPv4 destination on the dual-stack socket is sent IPv4-mapped.
            sb.clear();
            TestPackets.write(out, 0, 2, 120);
            sb.add(out, 0, 120, dual.destination(src));
            assertEquals(1, dual.send(sb));
            assertEquals(1, v4.receive(rb, 2000));
            assertEquals(2, TestPackets.verify(rb.segment(0), rb.offset(0), rb.length(0)));
            assertThrows(UdpTransportException.class, () -> v4.destination("[::1]:9"));
        }
    }

    @Test
    void agentsDriveItAndItSaysWhichFamiliesItReaches() throws Exception {
        try (UdpTransport dual = open("[::]:0", false, false);
             UdpTransport v4 = open("127.0.0.1:0", false, false)) {
            assertEquals(Transport.Drive.DATA_PLANE_AGENTS, v4.drive());
            assertSame(v4, UdpTransport.agentDriven(v4));
            final InetSocketAddress four = new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 9);
            final InetSocketAddress six = new InetSocketAddress(InetAddress.getByName("2001:db8::1"), 9);
            assertTrue(v4.datagramReaches(four));
            assertFalse(v4.datagramReaches(six), "an IPv4 socket cannot send to IPv6");
            assertTrue(dual.datagramReaches(four));
            assertTrue(dual.datagramReaches(six));
        }
    }

    @Test
    void grantedBufferSizesAreReadBack() throws Exception {
        final int req = 2 * 1024 * 1024;
        try (UdpTransport t = UdpTransport.open(new UdpTransportConfig().bindAddress("127.0.0.1:0")
                .receiveBufferBytes(req).sendBufferBytes(req))) {
            // Linux clamps the request to net.core.[rw]mem_max and then doubles it.
            // (Files.readString truncates procfs files on JDK 25: it trusts their zero size; read lines instead.)
            final long rmemMax = Long.parseLong(Files.readAllLines(Path.of("/proc/sys/net/core/rmem_max")).get(0));
            final long wmemMax = Long.parseLong(Files.readAllLines(Path.of("/proc/sys/net/core/wmem_max")).get(0));
            assertEquals(2 * Math.min(req, rmemMax), t.receiveBufferBytes());
            assertEquals(2 * Math.min(req, wmemMax), t.sendBufferBytes());
        }
    }

    @Test
    void localAddressIsTheBoundPort() throws Exception {
        try (UdpTransport t = open("127.0.0.1:0", false, false)) {
            assertEquals(InetAddress.getLoopbackAddress(), t.localAddress().getAddress());
            assertTrue(t.localAddress().getPort() > 0);
        }
    }
}
