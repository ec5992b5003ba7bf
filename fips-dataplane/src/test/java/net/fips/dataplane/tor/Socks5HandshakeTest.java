package net.fips.dataplane.tor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import net.fips.testing.Hex;

/**
 * The SOCKS5 exchange byte for byte (transports.md §6.3) against a scripted fake proxy on loopback, every failure
 * as its typed value and counter, and the state machine alone fed in fragments.
 */
class Socks5HandshakeTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(10);
    private static final String ONION_ADDR = TorAddressTest.ONION + ":443";

    private static String len(final String ascii) {
        return String.format("%02x", ascii.length());
    }

    /** Greeting, auth, CONNECT as the reference sends them for an onion address, then the relayed stream. */
    private static ScriptedSocks5Server torUpToConnect(final ScriptedSocks5Server s) {
        return s.expect("05 02 00 02").send("05 02")
                .expect("01 04" + Hex.ofAscii("fips") + len(ONION_ADDR) + Hex.ofAscii(ONION_ADDR)).send("01 00")
                .expect("05 01 00 03" + len(TorAddressTest.ONION) + Hex.ofAscii(TorAddressTest.ONION) + "01bb");
    }

    private static Socks5Dialer.Outcome dial(final ScriptedSocks5Server s, final Socks5Handshake hs) {
        return Socks5Dialer.dial(s.address(), hs, TIMEOUT, System::nanoTime);
    }

    @Test
    void torOnionDialIsByteExactAndThenRelaysTheStream() throws Exception {
        try (ScriptedSocks5Server s = torUpToConnect(new ScriptedSocks5Server())
                .send("05 00 00 01 7f000001 2382" + Hex.ofAscii("EARLY")).echo().start()) {
            final Socks5Dialer.Outcome o = dial(s, Socks5Handshake.tor(TorAddress.parse(ONION_ADDR)));
            final Socks5Dialer.Connected c = assertInstanceOf(Socks5Dialer.Connected.class, o, o::toString);
            try (var ch = c.channel()) {
                assertEquals(0x2382, c.boundPort());
                assertEquals("EARLY", StandardCharsets.US_ASCII.decode(c.early()).toString());
                ch.write(ByteBuffer.wrap("ping".getBytes(StandardCharsets.US_ASCII)));
                final ByteBuffer back = ByteBuffer.allocate(4);
                while (back.hasRemaining()) {
                    assertTrue(ch.read(back) > 0);
                }
                assertEquals("ping", new String(back.array(), StandardCharsets.US_ASCII));
            }
            assertEquals("ok", s.outcome());
        }
    }

    @Test
    void aProxyThatPicksNoAuthGetsTheConnectStraightAway() throws Exception {
        try (ScriptedSocks5Server s = new ScriptedSocks5Server().expect("05 02 00 02").send("05 00")
                .expect("05 01 00 01 c0000207 20fb").send("05 00 00 01 00000000 0000").hangUp().start()) {
            assertInstanceOf(Socks5Dialer.Connected.class,
                    dial(s, Socks5Handshake.tor(TorAddress.parse("192.0.2.7:8443"))));
            assertEquals("ok", s.outcome());
        }
    }

    @Test
    void ipv6AndHostnameTargetsUseAtyp04And03() throws Exception {
        try (ScriptedSocks5Server s = new ScriptedSocks5Server().expect("05 02 00 02").send("05 00")
                .expect("05 01 00 04 20010db8000000000000000000000001 01bb")
                .send("05 00 00 04 00000000000000000000000000000001 0050").hangUp().start()) {
            final Socks5Dialer.Connected c = assertInstanceOf(Socks5Dialer.Connected.class,
                    dial(s, Socks5Handshake.tor(TorAddress.parse("[2001:db8::1]:443"))));
            assertEquals(80, c.boundPort());
            c.channel().close();
            assertEquals("ok", s.outcome());
        }
        final String host = "peer.example.com";
        try (ScriptedSocks5Server s = new ScriptedSocks5Server().expect("05 02 00 02").send("05 02")
                .expect("01 04" + Hex.ofAscii("fips") + len(host + ":8443") + Hex.ofAscii(host + ":8443")).send("01 00")
                .expect("05 01 00 03" + len(host) + Hex.ofAscii(host) + "20fb")
                .send("05 00 00 03 09" + Hex.ofAscii("bound.net") + "1234").hangUp().start()) {
            final Socks5Dialer.Connected c = assertInstanceOf(Socks5Dialer.Connected.class,
                    dial(s, Socks5Handshake.tor(TorAddress.parse(host + ":8443"))));
            assertEquals(0x1234, c.boundPort());
            c.channel().close();
            assertEquals("ok", s.outcome());
        }
    }

    @Test
    void nymGreetsWithNoAuthOnly() throws Exception {
        try (ScriptedSocks5Server s = new ScriptedSocks5Server().expect("05 01 00").send("05 00")
                .expect("05 01 00 01 7f000001 0050").send("05 00 00 01 7f000001 0050").hangUp().start()) {
            assertInstanceOf(Socks5Dialer.Connected.class,
                    dial(s, Socks5Handshake.noAuth(TorAddress.parse("127.0.0.1:80"))));
            assertEquals("ok", s.outcome());
        }
        try (ScriptedSocks5Server s = new ScriptedSocks5Server().expect("05 01 00").send("05 02").hold().start()) {
            final Socks5Dialer.Failed f = assertInstanceOf(Socks5Dialer.Failed.class,
                    dial(s, Socks5Handshake.noAuth(TorAddress.parse("127.0.0.1:80"))));
            assertEquals(Socks5Failure.UNEXPECTED_METHOD, f.failure());
        }
    }

    @Test
    void everyReplyCodeIsItsOwnFailureAndOnlyRefusedCountsAsConnectRefused() throws Exception {
        final TorCounters counters = new TorCounters();
        for (int rep = 1; rep <= 10; rep++) {
            try (ScriptedSocks5Server s = torUpToConnect(new ScriptedSocks5Server())
                    .send(String.format("05 %02x 00 01 00000000 0000", rep)).hold().start()) {
                final Socks5Dialer.Failed f = assertInstanceOf(Socks5Dialer.Failed.class,
                        dial(s, Socks5Handshake.tor(TorAddress.parse(ONION_ADDR))));
                assertEquals(rep <= 8 ? rep : -1, f.failure().replyCode());
                assertEquals(rep <= 8 ? Socks5Failure.ofReply(rep) : Socks5Failure.UNKNOWN_REPLY, f.failure());
                assertTrue(f.detail().contains(String.format("0x%02x", rep)), f.detail());
                counters.record(f.failure());
            }
        }
        assertEquals(1, counters.connectRefused());
        assertEquals(9, counters.socks5Errors());
        assertEquals(0, counters.connectTimeouts());
        assertEquals(Socks5Failure.HOST_UNREACHABLE, Socks5Failure.ofReply(4));
    }

    @Test
    void protocolViolationsAreSocks5Errors() throws Exception {
        assertFailure(new ScriptedSocks5Server().expect("05 02 00 02").send("05 ff").hold(),
                Socks5Failure.NO_ACCEPTABLE_METHOD);
        assertFailure(new ScriptedSocks5Server().expect("05 02 00 02").send("04 00").hold(),
                Socks5Failure.BAD_VERSION);
        assertFailure(new ScriptedSocks5Server().expect("05 02 00 02").send("05 01").hold(),
                Socks5Failure.UNEXPECTED_METHOD);
        assertFailure(new ScriptedSocks5Server().expect("05 02 00 02").send("05 02")
                .expect("01 04" + Hex.ofAscii("fips") + len(ONION_ADDR) + Hex.ofAscii(ONION_ADDR)).send("01 01").hold(),
                Socks5Failure.AUTH_FAILED);
        assertFailure(new ScriptedSocks5Server().expect("05 02 00 02").send("05 02")
                .expect("01 04" + Hex.ofAscii("fips") + len(ONION_ADDR) + Hex.ofAscii(ONION_ADDR)).send("05 00").hold(),
                Socks5Failure.BAD_AUTH_VERSION);
        assertFailure(torUpToConnect(new ScriptedSocks5Server()).send("04 00 00 01 00000000 0000").hold(),
                Socks5Failure.BAD_VERSION);
        assertFailure(torUpToConnect(new ScriptedSocks5Server()).send("05 00 01 01 00000000 0000").hold(),
                Socks5Failure.BAD_RESERVED);
        assertFailure(torUpToConnect(new ScriptedSocks5Server()).send("05 00 00 07 00000000 0000").hold(),
                Socks5Failure.BAD_ADDRESS_TYPE);
        assertFailure(torUpToConnect(new ScriptedSocks5Server()).send("05 00 00").hangUp(),
                Socks5Failure.PROXY_CLOSED);
        assertFailure(new ScriptedSocks5Server().hangUp(), Socks5Failure.PROXY_CLOSED);
    }

    @Test
    void aSilentProxyTimesOutWithinTheBudget() throws Exception {
        try (ScriptedSocks5Server s = new ScriptedSocks5Server().expect("05 02 00 02").hold().start()) {
            final long t0 = System.nanoTime();
            final Socks5Dialer.Failed f = assertInstanceOf(Socks5Dialer.Failed.class, Socks5Dialer.dial(
                    s.address(), Socks5Handshake.tor(TorAddress.parse(ONION_ADDR)),
                    TimeUnit.MILLISECONDS.toNanos(300), System::nanoTime));
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5));
            assertEquals(Socks5Failure.TIMEOUT, f.failure());
            assertEquals(Socks5Failure.Counter.CONNECT_TIMEOUTS, f.failure().counter());
        }
    }

    @Test
    void anUnreachableProxyIsASocks5Error() throws Exception {
        final InetSocketAddress closed;
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = (InetSocketAddress) ss.getLocalSocketAddress();
        }
        final Socks5Dialer.Failed f = assertInstanceOf(Socks5Dialer.Failed.class,
                Socks5Dialer.dial(closed, Socks5Handshake.tor(TorAddress.parse(ONION_ADDR)), TIMEOUT,
                        System::nanoTime));
        assertEquals(Socks5Failure.PROXY_UNREACHABLE, f.failure());
        assertEquals(Socks5Failure.Counter.SOCKS5_ERRORS, f.failure().counter());
        assertNotNull(f.detail());
    }

    /** One byte at a time, and the stream bytes after the CONNECT reply are never consumed. */
    @Test
    void theStateMachineConsumesExactlyEachReply() throws Exception {
        final Socks5Handshake hs = Socks5Handshake.tor(TorAddress.parse("peer.example.com:8443"));
        final ByteBuffer out = ByteBuffer.allocate(Socks5Handshake.MAX_REQUEST_BYTES);
        final ByteArrayOutputStream wire = new ByteArrayOutputStream();
        assertEquals(Socks5Handshake.Status.WRITE, hs.start(out));
        wire.write(out.array(), 0, out.position());
        out.clear();
        final byte[] proxy = HEX.parseHex("0502" + "0100" + "050000030162" + "0001" + "0000dead");
        Socks5Handshake.Status st = null;
        int i = 0;
        while (i < proxy.length && st != Socks5Handshake.Status.CONNECTED) {
            final ByteBuffer one = ByteBuffer.wrap(proxy, i, 1);
            st = hs.onReceive(one, out);
            assertEquals(0, one.remaining());
            i++;
            if (st == Socks5Handshake.Status.WRITE) {
                wire.write(out.array(), 0, out.position());
                out.clear();
            } else if (st != Socks5Handshake.Status.CONNECTED) {
                assertEquals(Socks5Handshake.Status.NEED_MORE, st);
            }
        }
        assertEquals(Socks5Handshake.Status.CONNECTED, st);
        assertEquals(0, hs.wanted());
        assertEquals(proxy.length - 4, i, "the 4 stream bytes after the reply are left alone");
        assertEquals(1, hs.boundPort());
        final String pw = "peer.example.com:8443";
        assertArrayEquals(HEX.parseHex("05020002" + "0104" + Hex.ofAscii("fips") + len(pw) + Hex.ofAscii(pw)
                + "05010003" + len("peer.example.com") + Hex.ofAscii("peer.example.com") + "20fb"), wire.toByteArray());

        // The whole rest in one buffer: consumption stops at the end of the reply.
        final Socks5Handshake h2 = Socks5Handshake.noAuth(TorAddress.parse("127.0.0.1:1"));
        h2.start(out.clear());
        out.clear();
        assertEquals(Socks5Handshake.Status.WRITE, h2.onReceive(ByteBuffer.wrap(HEX.parseHex("0500")), out));
        final ByteBuffer rest = ByteBuffer.wrap(HEX.parseHex("05000001000000000000" + "00112233"));
        assertEquals(Socks5Handshake.Status.CONNECTED, h2.onReceive(rest, out.clear()));
        assertEquals(4, rest.remaining());
    }

    /** Reading exactly {@code wanted()} bytes at a time walks every message without over-reading. */
    @Test
    void wantedIsExactlyTheRestOfEachMessage() throws Exception {
        final byte[] proxy = HEX.parseHex("0502" + "0100" + "05000003 09" .replace(" ", "") + Hex.ofAscii("bound.net")
                + "1234" + "ffff");
        final Socks5Handshake hs = Socks5Handshake.tor(TorAddress.parse(ONION_ADDR));
        final ByteBuffer out = ByteBuffer.allocate(Socks5Handshake.MAX_REQUEST_BYTES);
        hs.start(out);
        assertEquals(2, hs.wanted());
        int pos = 0;
        final List<Integer> reads = new ArrayList<>();
        Socks5Handshake.Status st = Socks5Handshake.Status.NEED_MORE;
        while (st != Socks5Handshake.Status.CONNECTED) {
            final int n = hs.wanted();
            reads.add(n);
            final ByteBuffer in = ByteBuffer.wrap(proxy, pos, n);
            st = hs.onReceive(in, out.clear());
            assertEquals(0, in.remaining());
            pos += n;
        }
        assertEquals(List.of(2, 2, 4, 1, 9 + 2), reads);
        assertEquals(proxy.length - 2, pos);
        final Socks5Handshake v6 = Socks5Handshake.noAuth(TorAddress.parse("[::1]:1"));
        v6.start(out.clear());
        v6.onReceive(ByteBuffer.wrap(HEX.parseHex("0500")), out.clear());
        v6.onReceive(ByteBuffer.wrap(HEX.parseHex("05000004")), out.clear());
        assertEquals(18, v6.wanted());
    }

    private static void assertFailure(final ScriptedSocks5Server script, final Socks5Failure expected)
            throws Exception {
        try (ScriptedSocks5Server s = script.start()) {
            final Socks5Dialer.Outcome o = dial(s, Socks5Handshake.tor(TorAddress.parse(ONION_ADDR)));
            final Socks5Dialer.Failed f = assertInstanceOf(Socks5Dialer.Failed.class, o, o::toString);
            assertEquals(expected, f.failure(), f.detail());
            assertEquals(Socks5Failure.Counter.SOCKS5_ERRORS, f.failure().counter());
        }
    }
}
