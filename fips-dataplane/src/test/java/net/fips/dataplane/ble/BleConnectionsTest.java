package net.fips.dataplane.ble;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.UnixSeqPacket;

/**
 * The BLE connection pool (transports.md §5.3-§5.6) with AF_UNIX SOCK_SEQPACKET standing in for L2CAP: the same
 * poll/accept4/send/recv code, key exchange and tie-break as on a radio.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BleConnectionsTest {
    /** x-only keys of 1G..4G, valid points. */
    private static final byte[][] KEYS = {TestKeys.G_X, TestKeys.TWO_G_X,
        TestKeys.hex("F9308A019258C31049344F85F89D5229B531C845836F99B08601F113BCE036F9"),
        TestKeys.hex("E493DBF1C10D80F3581E4904930B1404CC6C13900EE0758474FA94ABE8C4CD13")};
    private static final String RUN = "fips-ble-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();

    private final List<BleConnections> open = new ArrayList<>();

    /** A node: its pool, its address, and what it received. */
    record Node(BleConnections pool, String address, byte[] key, List<String> received) {
    }

    /** @return the keys ordered by NodeAddr, smallest first */
    private static List<byte[]> keysByNodeAddr() {
        final List<byte[]> ks = new ArrayList<>(List.of(KEYS));
        ks.sort(Comparator.comparing(TestKeys.INSTANCE::nodeAddr));
        return ks;
    }

    private Node node(final String name, final byte[] key, final int sendMtu, final int recvMtu, final int max)
            throws Exception {
        final String address = RUN + "-" + name;
        final List<String> received = new CopyOnWriteArrayList<>();
        final BleConnections c = new BleConnections(new UnixFamily(address, sendMtu, recvMtu),
                new BleConnections.Settings(max, 2048, 2_000, 2_000), key, TestKeys.INSTANCE,
                (from, seg, len) -> received.add(from + " " + java.util.HexFormat.of().formatHex(
                        seg.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE))), System::nanoTime);
        open.add(c);
        c.listen();
        return new Node(c, address, key, received);
    }

    @AfterEach
    void close() {
        open.forEach(BleConnections::close);
    }

    static void await(final BooleanSupplier cond, final String what) {
        final long end = System.nanoTime() + 20_000_000_000L;
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            LockSupport.parkNanos(1_000_000L);
        }
    }

    private static int send(final Node from, final Node to, final byte[] bytes) {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment m = arena.allocate(Math.max(1, bytes.length));
            MemorySegment.copy(bytes, 0, m, ValueLayout.JAVA_BYTE, 0, bytes.length);
            return from.pool().send(to.address(), m, bytes.length);
        }
    }

    @Test
    void connectExchangesKeysCarriesSdusAndNegotiatesTheLinkMtu() throws Exception {
        final List<byte[]> ks = keysByNodeAddr();
        final Node a = node("a", ks.get(0), 1000, 2048, 7); // the smaller NodeAddr dials: its outbound wins
        final Node b = node("b", ks.get(1), 2048, 2048, 7);
        assertEquals(2048, a.pool().linkMtu(b.address()), "not pooled: the configured MTU");
        a.pool().connect(b.address());
        await(() -> a.pool().connectionState(b.address()) == BleConnections.State.CONNECTED
                && b.pool().connectionState(a.address()) == BleConnections.State.CONNECTED, "both sides pooled");
        assertEquals(1000, a.pool().linkMtu(b.address()), "min(send, recv)");
        assertEquals(2048, b.pool().linkMtu(a.address()));
        assertArrayEquals(b.key(), a.pool().peerKey(b.address()));
        assertArrayEquals(a.key(), b.pool().peerKey(a.address()));
        final List<BleConnections.Discovered> da = a.pool().drainDiscovered();
        assertEquals(1, da.size());
        assertEquals(b.address(), da.get(0).address());
        assertArrayEquals(b.key(), da.get(0).xOnlyKey());

        final byte[] fmp = new byte[114];
        fmp[0] = 0x01;
        fmp[113] = 0x7F;
        assertEquals(114, send(a, b, fmp));
        assertEquals(3, send(b, a, new byte[] {0x00, 0x01, 0x02}));
        await(() -> b.received().size() == 1 && a.received().size() == 1, "one SDU each way");
        assertEquals(a.address() + " " + java.util.HexFormat.of().formatHex(fmp), b.received().get(0));
        assertEquals(b.address() + " 000102", a.received().get(0));

        assertEquals(BleConnections.MTU_EXCEEDED, send(a, b, new byte[1001]));
        assertEquals(1000, send(a, b, new byte[1000]));
        await(() -> b.received().size() == 2, "the full-MTU SDU");
        final Map<String, Long> sa = a.pool().stats();
        assertEquals(2, sa.get("packets_sent"));
        assertEquals(1114, sa.get("bytes_sent"));
        assertEquals(1, sa.get("mtu_exceeded"));
        assertEquals(1, sa.get("connections_established"));
        assertEquals(1, b.pool().stats().get("connections_accepted"));
        assertEquals(1, b.pool().stats().get("packets_sent"));
    }

    @Test
    void crossedConnectsLeaveExactlyTheSmallerNodesConnection() throws Exception {
        final List<byte[]> ks = keysByNodeAddr();
        final Node small = node("s", ks.get(0), 2048, 2048, 7);
        final Node large = node("l", ks.get(1), 2048, 2048, 7);
        small.pool().connect(large.address());
        large.pool().connect(small.address());
        await(() -> small.pool().stats().get("connections_established") == 1
                && large.pool().stats().get("connections_accepted") == 1
                && small.pool().stats().get("connections_rejected") == 1
                && large.pool().connectionState(small.address()) != BleConnections.State.CONNECTING,
                "the tie-break on both sides");
        assertEquals(0, large.pool().stats().get("connections_established"), "the larger node's outbound lost");
        assertEquals(List.of(large.address()), small.pool().pooled());
        assertEquals(List.of(small.address()), large.pool().pooled());
        assertTrue(large.pool().drainDiscovered().stream().anyMatch(d -> d.address().equals(small.address())),
                "the losing outbound still reports the peer");
    }

    @Test
    void theLargerNodesOutboundIsDroppedByBothEnds() throws Exception {
        final List<byte[]> ks = keysByNodeAddr();
        final Node small = node("s2", ks.get(0), 2048, 2048, 7);
        final Node large = node("l2", ks.get(1), 2048, 2048, 7);
        large.pool().connect(small.address());
        await(() -> small.pool().stats().get("connections_rejected") == 1
                && large.pool().connectionState(small.address()) == BleConnections.State.NONE, "both dropped it");
        assertEquals(List.of(), small.pool().pooled());
        assertEquals(List.of(), large.pool().pooled());
        assertEquals(1, large.pool().drainDiscovered().size());
        assertEquals(1, small.pool().drainDiscovered().size(), "the accepting side learnt the key too");
    }

    @Test
    void aFullPoolEvictsTheOldest() throws Exception {
        final List<byte[]> ks = keysByNodeAddr();
        final Node a = node("p", ks.get(0), 2048, 2048, 2);
        final List<Node> peers = List.of(node("p1", ks.get(1), 2048, 2048, 7), node("p2", ks.get(2), 2048, 2048, 7),
                node("p3", ks.get(3), 2048, 2048, 7));
        for (final Node p : peers) {
            a.pool().connect(p.address());
            await(() -> a.pool().connectionState(p.address()) == BleConnections.State.CONNECTED, p.address());
        }
        assertEquals(1, a.pool().stats().get("pool_evictions"));
        assertEquals(2, a.pool().pooled().size());
        assertTrue(!a.pool().pooled().contains(peers.get(0).address()), "the oldest went");
        await(() -> peers.get(0).pool().pooled().isEmpty(), "the evicted peer saw the close");
    }

    @Test
    void sendToAnUnpooledAddressFailsFastAndDials() throws Exception {
        final List<byte[]> ks = keysByNodeAddr();
        final Node a = node("f", ks.get(0), 2048, 2048, 7);
        final Node b = node("g", ks.get(1), 2048, 2048, 7);
        assertEquals(BleConnections.NOT_CONNECTED, send(a, b, new byte[10]));
        await(() -> a.pool().connectionState(b.address()) == BleConnections.State.CONNECTED, "the background dial");
        assertEquals(10, send(a, b, new byte[10]));
    }

    @Test
    void refusedConnectIsFailedWithAReason() throws Exception {
        final Node a = node("r", keysByNodeAddr().get(0), 2048, 2048, 7);
        a.pool().connect(RUN + "-nobody");
        await(() -> a.pool().connectionState(RUN + "-nobody") == BleConnections.State.FAILED, "the refusal");
        assertTrue(a.pool().lastFailure(RUN + "-nobody").contains("refused"), a.pool().lastFailure(RUN + "-nobody"));
    }

    @Test
    void aBadHelloIsRejectedAndClosed() throws Exception {
        final Node a = node("h", keysByNodeAddr().get(0), 2048, 2048, 7);
        final int fd = UnixSeqPacket.open();
        try (Arena arena = Arena.ofConfined()) {
            UnixSeqPacket.connect(fd, a.address());
            final MemorySegment m = arena.allocate(5);
            assertEquals(5, Syscalls.send(CallState.forCurrentThread(), fd, m, 5, 0));
            await(() -> a.pool().stats().get("connections_rejected") == 1, "the rejection");
            // our hello arrives, then end of stream
            final MemorySegment buf = arena.allocate(64);
            await(() -> Syscalls.recv(CallState.forCurrentThread(), fd, buf, 64, 0x40) == 0, "the close");
            assertEquals(List.of(), a.pool().pooled());
        } finally {
            Syscalls.closeQuietly(fd);
        }
    }
}
