package net.fips.dataplane.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static net.fips.testing.Await.spinUntil;
import static net.fips.dataplane.tcp.StreamTestFrames.awaitHandshake;
import static net.fips.dataplane.tcp.StreamTestFrames.key;
import static net.fips.dataplane.tcp.StreamTestFrames.msg;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.LinkSpec;
import net.fips.dataplane.LocalDelivery;
import net.fips.dataplane.crypto.AeadCiphers;
import net.fips.dataplane.engine.DataPlane;
import net.fips.dataplane.engine.DataPlaneContext;
import net.fips.dataplane.transport.ConnectionState;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.testing.FreePorts;

/**
 * The TCP transport on loopback under two real data planes: handshakes and sealed frames both ways over one
 * accepted connection, fail-fast sends that start a connect, refused and capped connections, framing violations
 * that close the connection (counted), and a reconnect after the listening side restarts.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcpTransportTest {
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(10);
    private static final Duration DEADLINE = Duration.ofNanos(DEADLINE_NS);
    private final List<DataPlane> planes = new ArrayList<>();

    /** Counts delivered datagrams and keeps their sizes. */
    static final class Sink implements LocalDelivery {
        final AtomicLong delivered = new AtomicLong();
        final ConcurrentLinkedQueue<byte[]> last = new ConcurrentLinkedQueue<>();

        @Override
        public void deliver(final long linkId, final MemorySegment segment, final long offset, final int length) {
            if (last.size() < 16) {
                last.add(segment.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
            }
            delivered.incrementAndGet();
        }
    }

    @AfterEach
    void close() {
        planes.forEach(DataPlane::close);
    }

    private DataPlane plane(final TcpTransport t, final Sink sink) {
        final DataPlane dp = new DataPlane(new DataPlaneContext().workerCount(2).poolSlots(1024)
                .cipherSupplier(AeadCiphers::create).localDelivery(sink));
        dp.addTransport(t);
        dp.start();
        planes.add(dp);
        return dp;
    }

    private static TcpTransport listener(final String bind) throws IOException {
        return TcpTransport.open(new TcpTransportConfig().bindAddress(bind));
    }

    private static TcpTransport dialer() throws IOException {
        return TcpTransport.open(new TcpTransportConfig().connectTimeoutMs(2000));
    }

    /** Sends msg1 until the connect the first (failed) send started is up and the packet arrives. */
    private static DataPlaneEvent.HandshakeReceived dialAndHandshake(final DataPlane from, final TcpTransport ft,
                                                                     final DataPlane to, final TransportAddr toAddr) {
        from.sendHandshake(0, toAddr, msg(1));
        spinUntil(DEADLINE, () -> ft.connectionState(toAddr) == ConnectionState.CONNECTED,
                () -> "the connection to " + toAddr);
        from.sendHandshake(0, toAddr, msg(1));
        return awaitHandshake(to, DEADLINE);
    }

    @Test
    void handshakesAndFramesCrossOneConnection() throws Exception {
        final TcpTransport tb = listener("127.0.0.1:0");
        final TcpTransport ta = dialer();
        final Sink atA = new Sink();
        final Sink atB = new Sink();
        final DataPlane a = plane(ta, atA);
        final DataPlane b = plane(tb, atB);
        final TransportAddr bAddr = tb.localAddr();
        assertTrue(tb.acceptConnections());
        assertFalse(ta.acceptConnections());
        assertNull(ta.localAddr());

        assertEquals(ConnectionState.NONE, ta.connectionState(bAddr));
        final DataPlaneEvent.HandshakeReceived h1 = dialAndHandshake(a, ta, b, bAddr);
        assertArrayEquals(msg(1), h1.packet());
        assertTrue(ta.stats().get("send_errors") >= 1, "the first send had no connection");
        assertEquals(1L, ta.stats().get("connections_established"));
        assertEquals(1L, ta.stats().get("pool_outbound"));
        assertEquals(1L, tb.stats().get("connections_accepted"));
        assertEquals(1L, tb.stats().get("pool_inbound"));

        // The answer goes back over the accepted connection, keyed by the dialer's address.
        final TransportAddr aAddr = h1.from();
        assertEquals(ConnectionState.CONNECTED, tb.connectionState(aAddr));
        b.sendHandshake(0, aAddr, msg(2));
        final DataPlaneEvent.HandshakeReceived h2 = awaitHandshake(a, DEADLINE);
        assertArrayEquals(msg(2), h2.packet());
        assertEquals(bAddr, h2.from());

        a.addLink(new LinkSpec(1, 0, bAddr, 0x1111, 0x2222, key(1), key(2), System.nanoTime()));
        b.addLink(new LinkSpec(2, 0, aAddr, 0x2222, 0x1111, key(2), key(1), System.nanoTime()));
        final MemorySegment buf = MemorySegment.ofArray(new byte[1300]);
        final int total = 2000;
        int ab = 0;
        int ba = 0;
        final long start = System.nanoTime();
        while (ab < total || ba < total) {
            if (ab < total && ab - atB.delivered.get() < 256 && a.sendDatagram(1, buf, 0, 100 + ab % 1200)) {
                ab++;
            }
            if (ba < total && ba - atA.delivered.get() < 256 && b.sendDatagram(2, buf, 0, 100 + ba % 1200)) {
                ba++;
            }
            if (System.nanoTime() - start > DEADLINE_NS) {
                fail("stalled at " + ab + "/" + ba + " A " + ta.stats() + " B " + tb.stats());
            }
        }
        spinUntil(DEADLINE, () -> atA.delivered.get() == total && atB.delivered.get() == total, () -> "all datagrams");
        assertEquals(0L, ta.stats().get("recv_errors"));
        assertEquals(0L, tb.stats().get("recv_errors"));
        assertEquals(1L, tb.stats().get("connections_accepted"), "one connection carried everything");
        assertTrue(ta.stats().get("packets_sent") >= total);
        assertTrue(tb.stats().get("packets_recv") >= total);
        // The sender counts a write after it returns, the receiver may have delivered it before that.
        spinUntil(DEADLINE, () -> ta.stats().get("bytes_sent").equals(tb.stats().get("bytes_recv")),
                () -> "bytes sent = bytes received");
    }

    /**
     * Plain connects, but a host name is looked up through {@link #answers} and that look-up blocks until the test
     * releases it: a name server that takes its time.
     */
    static final class SlowLookups implements StreamConnector {
        final DirectConnector direct = new DirectConnector();
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger started = new AtomicInteger();
        final ConcurrentHashMap<String, TransportAddr> answers = new ConcurrentHashMap<>();
        volatile Thread lookupThread;

        @Override
        public Dial open(final TransportAddr address, final TcpSocketOptions options) throws IOException {
            return direct.open(address, options);
        }

        @Override
        public boolean needsLookup(final TransportAddr address) {
            return direct.needsLookup(address);
        }

        @Override
        public TransportAddr lookup(final TransportAddr address) throws IOException {
            lookupThread = Thread.currentThread();
            started.incrementAndGet();
            try {
                release.await();
            } catch (final InterruptedException e) {
                throw new IOException("interrupted");
            }
            final TransportAddr a = answers.get(address.text());
            if (a == null) {
                throw new IOException("host '" + address.text() + "' does not resolve");
            }
            return a;
        }
    }

    @Test
    void aSlowNameLookupDoesNotStallTheOtherConnections() throws Exception {
        final TcpTransport tb = listener("127.0.0.1:0");
        final TcpTransport tc = listener("127.0.0.1:0");
        final SlowLookups lookups = new SlowLookups();
        final TcpTransport ta = TcpTransport.open(new TcpTransportConfig().connectTimeoutMs(30_000)
                .connector(lookups));
        final DataPlane a = plane(ta, new Sink());
        final DataPlane b = plane(tb, new Sink());
        final DataPlane c = plane(tc, new Sink());
        final TransportAddr named = TransportAddr.ofText("peer-c.test:" + parse(tc.localAddr()).getPort());
        lookups.answers.put(named.text(), tc.localAddr());

        ta.connect(named);
        spinUntil(DEADLINE, () -> lookups.started.get() == 1, () -> "the look-up to start");
        assertEquals(ConnectionState.CONNECTING, ta.connectionState(named));
        assertTrue(lookups.lookupThread.getName().startsWith("fips-tcp-"), lookups.lookupThread.getName());
        ta.connect(named);      // asked again while the look-up runs: no second look-up
        // While that name server takes its time, the loop connects and carries frames to a literal address.
        final DataPlaneEvent.HandshakeReceived h = dialAndHandshake(a, ta, b, tb.localAddr());
        assertArrayEquals(msg(1), h.packet());
        assertEquals(ConnectionState.CONNECTING, ta.connectionState(named), "still looking up");
        assertEquals(1, lookups.started.get());

        lookups.release.countDown();
        spinUntil(DEADLINE, () -> ta.connectionState(named) == ConnectionState.CONNECTED,
                () -> "the connection by name");
        a.sendHandshake(0, named, msg(1));
        final DataPlaneEvent.HandshakeReceived hc = awaitHandshake(c, DEADLINE);
        assertArrayEquals(msg(1), hc.packet());
        assertEquals(2L, ta.stats().get("connections_established"));
        assertEquals(1L, tc.stats().get("connections_accepted"));
    }

    @Test
    void aNameThatDoesNotResolveFailsTheConnect() throws Exception {
        final SlowLookups lookups = new SlowLookups();
        lookups.release.countDown();
        final TcpTransport ta = TcpTransport.open(new TcpTransportConfig().connector(lookups));
        plane(ta, new Sink());
        final TransportAddr named = TransportAddr.ofText("nowhere.test:2121");
        ta.connect(named);
        spinUntil(DEADLINE, () -> ta.connectionState(named) == ConnectionState.FAILED, () -> "the failed look-up");
        assertEquals(0L, ta.stats().get("connections_established"));
        assertEquals(0L, ta.stats().get("connect_timeouts"));
        // asked again: a new look-up
        ta.connect(named);
        spinUntil(DEADLINE, () -> lookups.started.get() == 2, () -> "a second look-up");
    }

    @Test
    void aLookupPastTheConnectTimeoutFailsAndItsLateAnswerIsIgnored() throws Exception {
        final TcpTransport tc = listener("127.0.0.1:0");
        final SlowLookups lookups = new SlowLookups();
        final AtomicLong now = new AtomicLong();
        final TcpTransport ta = TcpTransport.open(new TcpTransportConfig().connectTimeoutMs(1000).connector(lookups)
                .nanoClock(now::get));
        plane(ta, new Sink());
        plane(tc, new Sink());
        final TransportAddr named = TransportAddr.ofText("late.test:" + parse(tc.localAddr()).getPort());
        lookups.answers.put(named.text(), tc.localAddr());
        ta.connect(named);
        spinUntil(DEADLINE, () -> lookups.started.get() == 1, () -> "the look-up to start");
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1001));
        ta.wakeup();
        spinUntil(DEADLINE, () -> ta.connectionState(named) == ConnectionState.FAILED, () -> "the timeout");
        assertEquals(1L, ta.stats().get("connect_timeouts"));
        lookups.release.countDown();
        final Thread t = lookups.lookupThread;
        t.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(t.isAlive());
        // The late answer is queued before this connect, which the loop takes in order: once this one is up, the
        // answer has been seen and dropped (a dial would have made the name CONNECTING on the loop at once).
        ta.connect(tc.localAddr());
        spinUntil(DEADLINE, () -> ta.connectionState(tc.localAddr()) == ConnectionState.CONNECTED,
                () -> "the marker connection");
        assertEquals(ConnectionState.FAILED, ta.connectionState(named));
        assertEquals(1L, ta.stats().get("connections_established"), "the marker only");
        assertEquals(1L, ta.stats().get("pool_outbound"));
    }

    @Test
    void refusedConnectIsCountedAndFails() throws Exception {
        final int port = FreePorts.tcp();
        final TcpTransport ta = dialer();
        final DataPlane a = plane(ta, new Sink());
        final TransportAddr nobody = TransportAddr.ofText("127.0.0.1:" + port);
        ta.connect(nobody);
        spinUntil(DEADLINE, () -> ta.connectionState(nobody) == ConnectionState.FAILED, () -> "the refusal");
        assertEquals(1L, ta.stats().get("connect_refused"));
        assertEquals(0L, ta.stats().get("connections_established"));
        assertEquals(Transport.Drive.OWN_LOOP, ta.drive(), "a loop of its own, not the data plane's agents");
        assertFalse(ta.datagramReaches(new InetSocketAddress("127.0.0.1", port)), "no datagram socket");
        // A later send starts over.
        a.sendHandshake(0, nobody, msg(1));
        spinUntil(DEADLINE, () -> ta.stats().get("connect_refused") == 2L, () -> "a second refusal");
    }

    @Test
    void framingViolationsCloseTheConnection() throws Exception {
        final TcpTransport tb = listener("127.0.0.1:0");
        plane(tb, new Sink());
        final InetSocketAddress at = parse(tb.localAddr());
        final byte[][] bad = {
                {0x16, 0x03, 0x01, 0x00, 0x05},                       // a TLS ClientHello record
                {0x01, 0x00, 0x6F, 0x00},                             // msg1 with payload_len 111
                {0x00, 0x00, (byte) 0xFF, (byte) 0xFF},               // established, far above the MTU
                {0x05, 0x00, 0x00, 0x00},                             // phase 5
        };
        int expected = 0;
        for (final byte[] b : bad) {
            try (SocketChannel c = SocketChannel.open(at)) {
                // A good packet first: the violation must still be found after it.
                c.write(ByteBuffer.wrap(msg(1)));
                c.write(ByteBuffer.wrap(b));
                expected++;
                final int want = expected;
                spinUntil(DEADLINE, () -> tb.framingErrors() == want, () -> "the close");
                assertEquals(-1, readUntilClosed(c), "the transport closed the connection");
            }
        }
        assertEquals(4L, tb.stats().get("recv_errors"));
        spinUntil(DEADLINE, () -> tb.stats().get("pool_inbound") == 0L, () -> "pool_inbound back to 0");
    }

    @Test
    void inboundCapRejectsTheThirdConnection() throws Exception {
        final TcpTransport tb = TcpTransport.open(new TcpTransportConfig().bindAddress("127.0.0.1:0")
                .maxInboundConnections(2));
        plane(tb, new Sink());
        final InetSocketAddress at = parse(tb.localAddr());
        try (SocketChannel _ = SocketChannel.open(at); SocketChannel _ = SocketChannel.open(at)) {
            spinUntil(DEADLINE, () -> tb.stats().get("connections_accepted") == 2L, () -> "two accepted");
            try (SocketChannel c3 = SocketChannel.open(at)) {
                spinUntil(DEADLINE, () -> tb.stats().get("connections_rejected") == 1L, () -> "one rejected");
                assertEquals(-1, readUntilClosed(c3));
            }
            assertEquals(2L, tb.stats().get("pool_inbound"));
        }
    }

    @Test
    void reconnectsAfterTheListenerRestarts() throws Exception {
        final TcpTransport tb = listener("127.0.0.1:0");
        final TcpTransport ta = dialer();
        final DataPlane a = plane(ta, new Sink());
        final DataPlane b = plane(tb, new Sink());
        final TransportAddr bAddr = tb.localAddr();
        dialAndHandshake(a, ta, b, bAddr);
        b.close();
        spinUntil(DEADLINE, () -> ta.connectionState(bAddr) == ConnectionState.NONE, () -> "the drop");
        assertEquals(0L, ta.stats().get("pool_outbound"));

        final TcpTransport tb2 = listener(bAddr.toString());
        final DataPlane b2 = plane(tb2, new Sink());
        final DataPlaneEvent.HandshakeReceived h = dialAndHandshake(a, ta, b2, bAddr);
        assertArrayEquals(msg(1), h.packet());
        assertEquals(2L, ta.stats().get("connections_established"));
    }

    /**
     * A peer that reads nothing for a while: frames wait in the connection's pending queue (back-pressure) instead
     * of being lost; whatever is dropped past that is counted; what arrives is whole, in order, never corrupt.
     */
    @Test
    void aSlowReaderGetsEveryFrameInOrderOrACountedDrop() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            final TransportAddr peer = TransportAddr.ofInet((InetSocketAddress) server.getLocalAddress());
            final TcpTransport ta = dialer();
            final DataPlane a = plane(ta, new Sink());
            ta.connect(peer);
            try (SocketChannel raw = server.accept()) {
                spinUntil(DEADLINE, () -> ta.connectionState(peer) == ConnectionState.CONNECTED, () -> "connected");
                a.addLink(new LinkSpec(1, 0, peer, 0x1111, 0x2222, key(1), key(2), System.nanoTime()));
                final MemorySegment buf = MemorySegment.ofArray(new byte[1300]);
                final int total = 4000;
                int sent = 0;
                final long start = System.nanoTime();
                while (sent < total) {
                    if (a.sendDatagram(1, buf, 0, 1300)) {
                        sent++;
                    } else if (System.nanoTime() - start > DEADLINE_NS) {
                        fail("no room for datagram " + sent);
                    } else {
                        Thread.onSpinWait();
                    }
                }
                // Now read everything and cut it with the framer.
                final MemorySegment in = MemorySegment.ofArray(new byte[1 << 16]);
                final ByteBuffer bb = in.asByteBuffer();
                raw.configureBlocking(false);
                long frames = 0;
                long lastCounter = -1;
                int pos = 0;
                final long readStart = System.nanoTime();
                while (true) {
                    final long dropped = ta.stats().get("send_errors")
                            + a.counter(DataPlaneCounter.DROP_TX_RING_FULL);
                    if (frames + dropped == total) {
                        break;
                    }
                    if (System.nanoTime() - readStart > DEADLINE_NS) {
                        fail(frames + " frames, " + dropped + " dropped of " + total + "; " + ta.stats());
                    }
                    bb.limit(bb.capacity()).position(pos);
                    final int r = raw.read(bb);
                    if (r <= 0) {
                        Thread.onSpinWait();
                        continue;
                    }
                    pos += r;
                    int at = 0;
                    int len;
                    while ((len = FmpStreamFramer.next(in, at, pos - at, 1400)) > 0) {
                        assertEquals(32 + 4 + 1300, len, "a whole established frame");
                        final long counter = in.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(
                                ByteOrder.LITTLE_ENDIAN), at + 8);
                        assertTrue(counter > lastCounter, "in order: " + counter + " after " + lastCounter);
                        lastCounter = counter;
                        frames++;
                        at += len;
                    }
                    assertTrue(len == FmpStreamFramer.NEED_MORE, "the stream stays well framed");
                    MemorySegment.copy(in, at, in, 0, pos - at);
                    pos -= at;
                }
                assertTrue(frames > 0);
                assertEquals(frames, ta.stats().get("packets_sent"), "packets_sent counts what went on the stream");
            }
        }
    }

    /** [master] behaviour: an accepted connection that stays silent is closed after the first-frame deadline. */
    @Test
    void aSilentInboundConnectionIsClosedAfterTheFirstFrameDeadline() throws Exception {
        final AtomicLong clock = new AtomicLong(1_000_000_000L);
        final TcpTransport tb = TcpTransport.open(new TcpTransportConfig().bindAddress("127.0.0.1:0")
                .firstFrameTimeoutMs(30_000).nanoClock(clock::get));
        plane(tb, new Sink());
        final InetSocketAddress at = parse(tb.localAddr());
        try (SocketChannel talker = SocketChannel.open(at); SocketChannel silent = SocketChannel.open(at)) {
            talker.write(ByteBuffer.wrap(msg(1)));
            spinUntil(DEADLINE, () -> tb.stats().get("pool_inbound") == 2L && tb.stats().get("packets_recv") == 1L,
                    () -> "both accepted");
            clock.addAndGet(29_000_000_000L);
            tb.wakeup();
            clock.addAndGet(2_000_000_000L);
            spinUntil(DEADLINE, () -> tb.stats().get("pool_inbound") == 1L, () -> "the silent one closed");
            assertEquals(-1, readUntilClosed(silent));
            assertEquals(1L, tb.stats().get("recv_errors"));
            talker.configureBlocking(false);
            assertEquals(0, talker.read(ByteBuffer.allocate(16)), "the one that sent a frame stays open");
        }
    }

    private static int readUntilClosed(final SocketChannel c) throws IOException {
        final ByteBuffer sink = ByteBuffer.allocate(4096);
        int r;
        while ((r = c.read(sink)) >= 0) {
            sink.clear();
        }
        return r;
    }

    private static InetSocketAddress parse(final TransportAddr a) {
        final String t = a.toString();
        final int colon = t.lastIndexOf(':');
        return new InetSocketAddress(t.substring(0, colon), Integer.parseInt(t.substring(colon + 1)));
    }
}
