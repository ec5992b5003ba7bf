package net.fips.dataplane.nym;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static net.fips.testing.Await.spinUntil;
import static net.fips.dataplane.tcp.StreamTestFrames.awaitHandshake;
import static net.fips.dataplane.tcp.StreamTestFrames.key;
import static net.fips.dataplane.tcp.StreamTestFrames.msg;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.tcp.TcpTransport;
import net.fips.dataplane.tcp.TcpTransportConfig;
import net.fips.dataplane.transport.ConnectionState;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.testing.FreePorts;

/**
 * The Nym transport through {@link MockSocks5Proxy} (no-auth SOCKS5, as {@code nym-socks5-client} speaks it) to a
 * TCP transport's listener, under two real data planes: the exact greeting and CONNECT bytes, FMP frames both ways
 * over the relayed stream, the reference's stats shape, and each failure counted where the reference counts it
 * (reply 05 and a dead proxy port as {@code socks5_errors}, a silent proxy as {@code connect_timeouts}, a proxy
 * that drops an established stream as {@code recv_errors}), followed by a working redial.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NymTransportTest {
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(10);
    private static final Duration DEADLINE = Duration.ofNanos(DEADLINE_NS);
    private final List<DataPlane> planes = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    /** Counts delivered datagrams. */
    static final class Sink implements LocalDelivery {
        final AtomicLong delivered = new AtomicLong();

        @Override
        public void deliver(final long linkId, final MemorySegment segment, final long offset, final int length) {
            delivered.incrementAndGet();
        }
    }

    @AfterEach
    void close() throws Exception {
        planes.forEach(DataPlane::close);
        for (final AutoCloseable c : closeables) {
            c.close();
        }
    }

    private DataPlane plane(final Transport t, final LocalDelivery sink) {
        final DataPlane dp = new DataPlane(new DataPlaneContext().workerCount(2).poolSlots(1024)
                .cipherSupplier(AeadCiphers::create).localDelivery(sink));
        dp.addTransport(t);
        dp.start();
        planes.add(dp);
        return dp;
    }

    private MockSocks5Proxy proxy() throws IOException {
        final MockSocks5Proxy p = new MockSocks5Proxy();
        closeables.add(p);
        return p;
    }

    private static NymTransport nym(final String socks5Addr, final int connectTimeoutMs) throws IOException {
        return NymTransport.open(new TcpTransportConfig().mtu(1400).connectTimeoutMs(connectTimeoutMs),
                socks5Addr);
    }

    private static int port(final TransportAddr a) {
        final String t = a.toString();
        return Integer.parseInt(t.substring(t.lastIndexOf(':') + 1));
    }

    @Test
    void framesCrossTheProxiedStreamBothWays() throws Exception {
        final MockSocks5Proxy proxy = proxy();
        final TcpTransport tb = TcpTransport.open(new TcpTransportConfig().bindAddress("127.0.0.1:0"));
        final NymTransport ta = nym(proxy.address(), 5000);
        final Sink atA = new Sink();
        final Sink atB = new Sink();
        final DataPlane a = plane(ta, atA);
        final DataPlane b = plane(tb, atB);
        final TransportAddr bAddr = tb.localAddr();
        assertEquals("nym", ta.typeName());
        assertFalse(ta.acceptConnections(), "outbound only");
        assertTrue(ta.drainDiscovered().isEmpty());
        assertNull(ta.localAddr());
        assertEquals(1400, ta.mtu());
        assertEquals(1400, ta.linkMtu(bAddr));

        a.sendHandshake(0, bAddr, msg(1));
        spinUntil(DEADLINE, () -> ta.connectionState(bAddr) == ConnectionState.CONNECTED,
                () -> "the proxied connection");
        assertEquals(List.of("050100"), proxy.greetings, "no-auth only (transports.md §6.7)");
        assertEquals(List.of("05010001" + "7f000001" + String.format("%04x", port(bAddr))), proxy.requests,
                "CONNECT by IPv4 address");
        a.sendHandshake(0, bAddr, msg(1));
        final DataPlaneEvent.HandshakeReceived h1 = awaitHandshake(b, DEADLINE);
        assertArrayEquals(msg(1), h1.packet());
        b.sendHandshake(0, h1.from(), msg(2));
        final DataPlaneEvent.HandshakeReceived h2 = awaitHandshake(a, DEADLINE);
        assertArrayEquals(msg(2), h2.packet());
        assertEquals(bAddr, h2.from());

        a.addLink(new LinkSpec(1, 0, bAddr, 0x1111, 0x2222, key(1), key(2), System.nanoTime()));
        b.addLink(new LinkSpec(2, 0, h1.from(), 0x2222, 0x1111, key(2), key(1), System.nanoTime()));
        final MemorySegment buf = MemorySegment.ofArray(new byte[1400]);
        final int total = 500;
        int ab = 0;
        int ba = 0;
        final long start = System.nanoTime();
        while (ab < total || ba < total) {
            if (ab < total && ab - atB.delivered.get() < 128 && a.sendDatagram(1, buf, 0, 100 + ab % 1200)) {
                ab++;
            }
            if (ba < total && ba - atA.delivered.get() < 128 && b.sendDatagram(2, buf, 0, 100 + ba % 1200)) {
                ba++;
            }
            if (System.nanoTime() - start > DEADLINE_NS) {
                fail("stalled at " + ab + "/" + ba + " A " + ta.stats() + " B " + tb.stats());
            }
        }
        spinUntil(DEADLINE, () -> atA.delivered.get() == total && atB.delivered.get() == total, () -> "every datagram");
        final Map<String, Long> s = ta.stats();
        assertEquals(NymCounters.NYM_STATS_ORDER, List.copyOf(s.keySet()), "the reference's NymStats keys");
        assertEquals(1L, s.get("connections_established"));
        assertEquals(0L, s.get("recv_errors"));
        assertEquals(0L, s.get("socks5_errors"));
        assertTrue(s.get("packets_sent") >= total + 1);
        assertTrue(s.get("packets_recv") >= total + 1);
        assertEquals(1, proxy.requests.size(), "one proxied connection carried everything");
    }

    /** A host name goes to the proxy as a domain (ATYP 03), with no dot needed, unlike Tor (transports.md §6.7). */
    @Test
    void aHostNameIsSentAsADomainNameWithoutADot() throws Exception {
        final MockSocks5Proxy proxy = proxy();
        final TcpTransport tb = TcpTransport.open(new TcpTransportConfig().bindAddress("127.0.0.1:0"));
        proxy.domainTarget = new InetSocketAddress(InetAddress.getLoopbackAddress(), port(tb.localAddr()));
        final NymTransport ta = nym(proxy.address(), 5000);
        final DataPlane a = plane(ta, new Sink());
        final DataPlane b = plane(tb, new Sink());
        final TransportAddr peer = TransportAddr.ofText("peer:8443");
        a.sendHandshake(0, peer, msg(1));
        spinUntil(DEADLINE, () -> ta.connectionState(peer) == ConnectionState.CONNECTED,
                () -> "the proxied connection");
        a.sendHandshake(0, peer, msg(1));
        assertArrayEquals(msg(1), awaitHandshake(b, DEADLINE).packet());
        assertEquals(List.of("0501000304" + "70656572" + "20fb (peer)"), proxy.requests);
    }

    @Test
    void aConnectReplyFailureIsASocks5ErrorAndTheConnectFails() throws Exception {
        final MockSocks5Proxy proxy = proxy();
        proxy.mode = MockSocks5Proxy.Mode.REFUSE;
        final NymTransport ta = nym(proxy.address(), 5000);
        plane(ta, new Sink());
        final TransportAddr dest = TransportAddr.ofText("127.0.0.1:9");
        for (final int code : new int[] {5, 1}) {
            proxy.replyCode = code;
            final long before = ta.stats().get("socks5_errors");
            ta.connect(dest);
            spinUntil(DEADLINE,
                    () -> ta.connectionState(dest) == ConnectionState.FAILED
                            && ta.stats().get("socks5_errors") == before + 1,
                    () -> "failed connect (reply " + code + ")");
        }
        assertEquals(2L, ta.stats().get("socks5_errors"), "reply 05 too: Nym has no connect_refused");
        assertFalse(ta.stats().containsKey("connect_refused"));
        assertEquals(0L, ta.stats().get("connections_established"));
    }

    @Test
    void aProxyPortWithNothingListeningIsOneSocks5ErrorPerAttempt() throws Exception {
        final NymTransport ta = nym("127.0.0.1:" + FreePorts.tcp(), 5000);
        plane(ta, new Sink());
        final TransportAddr dest = TransportAddr.ofText("127.0.0.1:9");
        for (int i = 1; i <= 2; i++) {
            final long want = i;
            ta.connect(dest);
            spinUntil(DEADLINE,
                    () -> ta.connectionState(dest) == ConnectionState.FAILED && ta.stats().get("socks5_errors") >= want,
                    () -> "refused connect " + want);
        }
        assertEquals(2L, ta.stats().get("socks5_errors"));
    }

    @Test
    void aProxyThatNeverAnswersIsAConnectTimeout() throws Exception {
        final MockSocks5Proxy proxy = proxy();
        proxy.mode = MockSocks5Proxy.Mode.SILENT;
        final NymTransport ta = nym(proxy.address(), 300);
        plane(ta, new Sink());
        final TransportAddr dest = TransportAddr.ofText("127.0.0.1:9");
        ta.connect(dest);
        spinUntil(DEADLINE, () -> ta.connectionState(dest) == ConnectionState.FAILED, () -> "the connect timeout");
        assertEquals(1L, ta.stats().get("connect_timeouts"));
        assertEquals(0L, ta.stats().get("socks5_errors"));
    }

    /** The proxy dies under an established stream: counted, the connection is gone, and a redial works. */
    @Test
    void aProxyDroppingAnEstablishedStreamIsARecvErrorAndARedialWorks() throws Exception {
        final MockSocks5Proxy proxy = proxy();
        final TcpTransport tb = TcpTransport.open(new TcpTransportConfig().bindAddress("127.0.0.1:0"));
        final NymTransport ta = nym(proxy.address(), 5000);
        final DataPlane a = plane(ta, new Sink());
        final DataPlane b = plane(tb, new Sink());
        final TransportAddr bAddr = tb.localAddr();
        ta.connect(bAddr);
        spinUntil(DEADLINE, () -> ta.connectionState(bAddr) == ConnectionState.CONNECTED,
                () -> "the proxied connection");
        proxy.killConnections();
        spinUntil(DEADLINE, () -> ta.connectionState(bAddr) == ConnectionState.NONE, () -> "the drop noticed");
        assertEquals(1L, ta.stats().get("recv_errors"));

        a.sendHandshake(0, bAddr, msg(1));
        spinUntil(DEADLINE, () -> ta.connectionState(bAddr) == ConnectionState.CONNECTED, () -> "the redial");
        a.sendHandshake(0, bAddr, msg(1));
        assertArrayEquals(msg(1), awaitHandshake(b, DEADLINE).packet());
        assertEquals(2L, ta.stats().get("connections_established"));
        assertEquals(2, proxy.requests.size());
    }

    /**
     * A datagram whose frame would exceed the transport's mtu never reaches the stream: the data plane refuses it
     * against the link MTU ({@code drop_mtu}), before the transport's own {@code mtu_exceeded} check, as for TCP.
     */
    @Test
    void aDatagramTooLargeForTheMtuIsRefusedBeforeTheStream() throws Exception {
        final MockSocks5Proxy proxy = proxy();
        final TcpTransport tb = TcpTransport.open(new TcpTransportConfig().bindAddress("127.0.0.1:0"));
        final NymTransport ta = NymTransport.open(new TcpTransportConfig().mtu(1280).connectTimeoutMs(5000),
                proxy.address());
        final Sink atB = new Sink();
        final DataPlane a = plane(ta, new Sink());
        final DataPlane b = plane(tb, atB);
        final TransportAddr bAddr = tb.localAddr();
        a.sendHandshake(0, bAddr, msg(1));
        spinUntil(DEADLINE, () -> ta.connectionState(bAddr) == ConnectionState.CONNECTED,
                () -> "the proxied connection");
        a.sendHandshake(0, bAddr, msg(1));
        final DataPlaneEvent.HandshakeReceived h1 = awaitHandshake(b, DEADLINE);
        a.addLink(new LinkSpec(1, 0, bAddr, 0x1111, 0x2222, key(1), key(2), System.nanoTime()));
        b.addLink(new LinkSpec(2, 0, h1.from(), 0x2222, 0x1111, key(2), key(1), System.nanoTime()));
        final MemorySegment buf = MemorySegment.ofArray(new byte[1400]);
        final long sent = ta.stats().get("packets_sent");
        assertTrue(a.sendDatagram(1, buf, 0, 1300));
        spinUntil(DEADLINE, () -> a.counter(DataPlaneCounter.DROP_MTU) == 1, () -> "the refusal");
        assertTrue(a.sendDatagram(1, buf, 0, 1000));
        spinUntil(DEADLINE, () -> atB.delivered.get() == 1, () -> "the datagram that fits");
        assertEquals(sent + 1, ta.stats().get("packets_sent"), "only the one that fits went on the stream");
        assertEquals(0L, ta.stats().get("mtu_exceeded"));
    }

    @Test
    void aBindAddressIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> NymTransport.open(new TcpTransportConfig()
                .bindAddress("127.0.0.1:0"), "127.0.0.1:1080"));
    }
}
