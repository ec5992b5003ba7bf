package net.fips.gateway;

import static net.fips.gateway.VirtualPoolTest.v6;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import net.fips.control.dns.DnsCodec;
import net.fips.control.dns.DnsFormatException;
import net.fips.control.dns.DnsQuery;

/**
 * The gateway's DNS proxy (discovery-gateway.md §4.2) against a stand-in for the daemon's responder on loopback:
 * answers, NODATA with SOA, REFUSED, SERVFAIL on silence and on a non-mesh answer, the upstream's RCODE passed on,
 * and the listener that shares a port held by a wildcard socket (ADR 0050).
 */
class DnsProxyTest {
    private static final String NAME = "npub1abc.fips";
    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<String> allocated = new CopyOnWriteArrayList<>();
    private final ByteArrayOutputStream logText = new ByteArrayOutputStream();
    private final Log log = new Log(new PrintStream(logText, true, StandardCharsets.UTF_8), Log.Level.DEBUG);

    @AfterEach
    void closeAll() throws Exception {
        for (final AutoCloseable c : open) {
            c.close();
        }
    }

    /** A responder on [::1]:random answering each query with reply(query) (null: silence). */
    private InetSocketAddress upstream(final Function<byte[], byte[]> reply) throws IOException {
        final DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET6);
        ch.bind(new InetSocketAddress("::1", 0));
        open.add(ch);
        Thread.ofVirtual().start(() -> {
            final ByteBuffer buf = ByteBuffer.allocate(4096);
            while (ch.isOpen()) {
                try {
                    buf.clear();
                    final var from = ch.receive(buf);
                    final byte[] q = Arrays.copyOf(buf.array(), buf.position());
                    final byte[] r = reply.apply(q);
                    if (r != null) {
                        ch.send(ByteBuffer.wrap(r), from);
                    }
                } catch (final IOException e) {
                    return;
                }
            }
        });
        return (InetSocketAddress) ch.getLocalAddress();
    }

    /** The daemon's own reply encoder, answering AAAA with addr. */
    private static byte[] daemonReply(final byte[] query, final int rcode, final String addr) {
        try {
            final DnsQuery q = DnsCodec.decode(query, 0, query.length);
            final byte[] out = new byte[512];
            final int n = DnsCodec.encodeResponse(q, rcode, addr == null ? null : v6(addr).getAddress(), 300, out, 0);
            return Arrays.copyOf(out, n);
        } catch (final Exception e) {
            throw new AssertionError(e);
        }
    }

    private DnsProxy proxy(final InetSocketAddress listen, final InetSocketAddress up) throws GatewayException {
        final DnsProxy p = DnsProxy.start(listen, up, 60, (mesh, name) -> {
            allocated.add(Addresses.text(mesh) + " " + name);
            return v6("fd01::7");
        }, Duration.ofMillis(500), () -> 1_700_000_000L, log);
        open.add(p);
        return p;
    }

    /** @return "name TYPE" of a query */
    private static String asked(final byte[] q) {
        try {
            final DnsQuery d = DnsCodec.decode(q, 0, q.length);
            final int t = d.questions().getFirst().qtype();
            return d.questions().getFirst().nameText() + (t == DnsCodec.TYPE_AAAA ? " AAAA" : " " + t);
        } catch (final Exception e) {
            throw new AssertionError(e);
        }
    }

    private static int u16(final byte[] b, final int at) {
        return (b[at] & 0xFF) << 8 | b[at + 1] & 0xFF;
    }

    @Test
    void aaaaOfAFipsNameIsAnsweredWithAPoolAddress() throws Exception {
        final List<String> asked = new CopyOnWriteArrayList<>();
        final InetSocketAddress up = upstream(q -> {
            asked.add(asked(q));
            return daemonReply(q, 0, "fd12:3456::1");
        });
        final DnsProxy p = proxy(new InetSocketAddress("::1", 0), up);
        final byte[] r = p.handle(DnsCodec.encodeQuery(0x4242, true, "NPUB1abc.fips.", DnsCodec.TYPE_AAAA, 1232));
        assertEquals(0x4242, u16(r, 0));
        assertEquals(DnsCodec.FLAG_QR | DnsCodec.FLAG_RA, u16(r, 2));
        assertEquals(1, u16(r, 4));
        assertEquals(1, u16(r, 6));
        assertEquals(0, u16(r, 8));
        assertArrayEquals(v6("fd01::7").getAddress(), DnsCodec.firstAaaaAnswer(r, 0, r.length));
        // TTL 60 before the RDLENGTH and the 16 address bytes
        assertEquals(60, u16(r, r.length - 22) << 16 | u16(r, r.length - 20));
        assertEquals(List.of("fd12:3456::1 npub1abc.fips"), allocated);
        assertEquals(List.of("npub1abc.fips AAAA"), asked);
        assertEquals(1, p.counters().answered());
    }

    @Test
    void otherTypesGetNodataWithAnSoa() throws Exception {
        final List<String> asked = new CopyOnWriteArrayList<>();
        final InetSocketAddress up = upstream(q -> {
            asked.add(asked(q));
            return daemonReply(q, 0, "fd12:3456::1");
        });
        final DnsProxy p = proxy(new InetSocketAddress("::1", 0), up);
        final byte[] r = p.handle(DnsCodec.encodeQuery(7, true, NAME, DnsCodec.TYPE_A, -1));
        assertEquals(DnsCodec.FLAG_QR | DnsCodec.FLAG_RA, u16(r, 2));
        assertEquals(0, u16(r, 6));
        assertEquals(1, u16(r, 8));
        assertNull(DnsCodec.firstAaaaAnswer(r, 0, r.length));
        final String text = new String(r, StandardCharsets.ISO_8859_1);
        assertTrue(text.contains("gateway"), "SOA mname");
        assertTrue(text.contains("nobody"), "SOA rname");
        // minimum, expire, retry, refresh = ttl; serial = the clock
        assertEquals(60, u16(r, r.length - 2));
        assertEquals(1_700_000_000L, (long) u16(r, r.length - 20) << 16 | u16(r, r.length - 18));
        assertEquals(List.of("npub1abc.fips AAAA"), asked, "the upstream is always asked for AAAA");
        assertEquals(1, p.counters().noData());
    }

    @Test
    void otherNamesAreRefusedWithoutAskingUpstream() throws Exception {
        final List<String> asked = new CopyOnWriteArrayList<>();
        final DnsProxy p = proxy(new InetSocketAddress("::1", 0), upstream(q -> {
            asked.add("x");
            return null;
        }));
        for (final String name : List.of("example.com", "fips", "fips.example")) {
            final byte[] r = p.handle(DnsCodec.encodeQuery(9, true, name, DnsCodec.TYPE_AAAA, -1));
            assertEquals(DnsCodec.FLAG_QR | DnsCodec.FLAG_RA | DnsCodec.RCODE_REFUSED, u16(r, 2), name);
            assertEquals(1, u16(r, 4), "question echoed");
        }
        assertEquals(List.of(), asked);
        assertEquals(3, p.counters().refused());
    }

    @Test
    void silenceOrAnswersOutsideTheMeshAreServfail() throws Exception {
        final InetSocketAddress silent = upstream(q -> null);
        final DnsProxy p = proxy(new InetSocketAddress("::1", 0), silent);
        byte[] r = p.handle(DnsCodec.encodeQuery(1, true, NAME, DnsCodec.TYPE_AAAA, -1));
        assertEquals(DnsCodec.RCODE_SERVFAIL, u16(r, 2) & 0xF);

        final DnsProxy q = proxy(new InetSocketAddress("::1", 0), upstream(x -> daemonReply(x, 0, "2001:db8::1")));
        r = q.handle(DnsCodec.encodeQuery(1, true, NAME, DnsCodec.TYPE_AAAA, -1));
        assertEquals(DnsCodec.RCODE_SERVFAIL, u16(r, 2) & 0xF);

        final DnsProxy s = proxy(new InetSocketAddress("::1", 0), upstream(x -> daemonReply(x, 0, null)));
        r = s.handle(DnsCodec.encodeQuery(1, true, NAME, DnsCodec.TYPE_AAAA, -1));
        assertEquals(DnsCodec.RCODE_SERVFAIL, u16(r, 2) & 0xF);
        assertEquals(List.of(), allocated);
    }

    @Test
    void theUpstreamsErrorIsPassedOn() throws Exception {
        final DnsProxy p = proxy(new InetSocketAddress("::1", 0),
                upstream(q -> daemonReply(q, DnsCodec.RCODE_NXDOMAIN, null)));
        final byte[] r = p.handle(DnsCodec.encodeQuery(3, true, NAME, DnsCodec.TYPE_AAAA, -1));
        assertEquals(DnsCodec.RCODE_NXDOMAIN, u16(r, 2) & 0xF);
        assertEquals(1, p.counters().upstreamErrors());
    }

    @Test
    void aReplyWithAnotherIdIsIgnored() throws Exception {
        final DnsProxy p = proxy(new InetSocketAddress("::1", 0), upstream(q -> {
            final byte[] wrong = daemonReply(q, 0, "fd99::1");
            wrong[1] ^= 1;
            return wrong;
        }));
        final byte[] r = p.handle(DnsCodec.encodeQuery(3, true, NAME, DnsCodec.TYPE_AAAA, -1));
        assertEquals(DnsCodec.RCODE_SERVFAIL, u16(r, 2) & 0xF);
        assertEquals(List.of(), allocated);
    }

    @Test
    void mutatedQueriesAndUpstreamRepliesNeverEscapeAsExceptions() throws Exception {
        // Deterministic: a fixed seed; every mutated upstream reply is read by the same code the proxy runs.
        final Random rnd = new Random(20261205);
        final byte[] good = daemonReply(DnsCodec.encodeQuery(5, true, NAME, DnsCodec.TYPE_AAAA, -1), 0, "fd12::1");
        final DnsProxy p = proxy(new InetSocketAddress("::1", 0), upstream(q -> {
            final byte[] r = q.clone();
            if (r.length > 3) {
                r[2] |= (byte) 0x80; // a response with the query's id, the rest as sent: no AAAA
            }
            return r;
        }));
        for (int i = 0; i < 3000; i++) {
            final byte[] m = good.clone();
            for (int k = 1 + rnd.nextInt(4); k > 0; k--) {
                m[rnd.nextInt(m.length)] = (byte) rnd.nextInt(256);
            }
            final byte[] cut = Arrays.copyOf(m, rnd.nextInt(m.length + 1));
            try {
                DnsCodec.firstAaaaAnswer(cut, 0, cut.length);
            } catch (final DnsFormatException e) {
                // expected for broken input
            }
            final byte[] query = DnsCodec.encodeQuery(i, true, i % 2 == 0 ? NAME : "x.example", DnsCodec.TYPE_AAAA,
                    -1);
            query[rnd.nextInt(query.length)] = (byte) rnd.nextInt(256);
            p.handle(Arrays.copyOf(query, rnd.nextInt(query.length + 1)));
        }
        final DnsProxy.Counters c = p.counters();
        assertTrue(c.malformed() + c.refused() + c.servfail() + c.upstreamErrors() > 0, c::toString);
        assertEquals(List.of(), allocated, "no mutated exchange produced a mapping");
    }

    @Test
    void malformedDatagramsGetNoReply() throws Exception {
        final DnsProxy p = proxy(new InetSocketAddress("::1", 0), upstream(q -> null));
        assertNull(p.handle(new byte[] {1, 2, 3}));
        assertEquals(1, p.counters().malformed());
    }

    @Test
    void overTheSocketAndSharingAPortHeldByAWildcardSocket() throws Exception {
        // The stand-in for an mDNS responder: [::]:P with SO_REUSEADDR, as avahi and JmDNS bind 5353.
        final DatagramChannel mdns = DatagramChannel.open(StandardProtocolFamily.INET6);
        open.add(mdns);
        mdns.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        mdns.bind(new InetSocketAddress("::", 0));
        final int port = ((InetSocketAddress) mdns.getLocalAddress()).getPort();
        final DnsProxy p = proxy(new InetSocketAddress("::1", port),
                upstream(q -> daemonReply(q, 0, "fd12:3456::1")));
        assertTrue(p.sharedPort());
        assertTrue(logText.toString(StandardCharsets.UTF_8).contains("sharing it with SO_REUSEADDR"),
                logText::toString);
        try (DatagramChannel client = DatagramChannel.open(StandardProtocolFamily.INET6)) {
            client.connect(new InetSocketAddress("::1", port));
            client.write(ByteBuffer.wrap(DnsCodec.encodeQuery(0x77, true, NAME, DnsCodec.TYPE_AAAA, -1)));
            client.socket().setSoTimeout(5000);
            final ByteBuffer in = ByteBuffer.allocate(512);
            client.read(in);
            final byte[] r = Arrays.copyOf(in.array(), in.position());
            assertEquals(0x77, u16(r, 0));
            assertArrayEquals(v6("fd01::7").getAddress(), DnsCodec.firstAaaaAnswer(r, 0, r.length));
        }
        // a wildcard listener on the same port cannot share: a clear error
        final GatewayException e = assertThrows(GatewayException.class,
                () -> proxy(new InetSocketAddress("::", port), upstream(q -> null)));
        assertTrue(e.getMessage().startsWith("gateway.dns.listen [::]:" + port + ": address already in use"),
                e.getMessage());
    }

    @Test
    void aHolderThatDoesNotShareGivesAClearError() throws Exception {
        final DatagramChannel other = DatagramChannel.open(StandardProtocolFamily.INET6);
        open.add(other);
        other.bind(new InetSocketAddress("::", 0));
        final int port = ((InetSocketAddress) other.getLocalAddress()).getPort();
        final GatewayException e = assertThrows(GatewayException.class,
                () -> proxy(new InetSocketAddress("::1", port), upstream(q -> null)));
        assertTrue(e.getMessage().contains("address already in use, even shared with SO_REUSEADDR"), e.getMessage());
        assertTrue(e.getMessage().contains("set gateway.dns.listen to a free port"), e.getMessage());
    }
}
