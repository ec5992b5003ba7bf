package net.fips.control.dns;

import static net.fips.control.dns.DnsTestSupport.DIG_QUERY;
import static net.fips.control.dns.DnsTestSupport.NPUB_A;
import static net.fips.control.dns.DnsTestSupport.NPUB_B;
import static net.fips.control.dns.DnsTestSupport.peer;
import static net.fips.control.dns.DnsTestSupport.u16;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.net.Inet6Address;
import java.net.NetworkInterface;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import net.fips.control.acl.HostAliases;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.config.DnsConfig;

class DnsServerTest {
    private static final int TIMEOUT_MS = 5_000;

    @TempDir
    Path dir;

    private final LinkedBlockingQueue<PeerIdentity> resolved = new LinkedBlockingQueue<>();
    private DnsServer server;

    @AfterEach
    void close() {
        if (server != null) {
            server.close();
        }
    }

    private static InetAddress loopback() {
        // [::1] where the host has IPv6 loopback, else 127.0.0.1
        try (DatagramSocket _ = new DatagramSocket(new InetSocketAddress(InetAddress.ofLiteral("::1"), 0))) {
            return InetAddress.ofLiteral("::1");
        } catch (final IOException e) {
            return InetAddress.ofLiteral("127.0.0.1");
        }
    }

    private DnsServer start(final HostsFile hosts, final ArrivalFilter filter) throws IOException {
        final DnsResponder responder = new DnsResponder(
                FipsNameResolver.hostsThenNpub(hosts == null ? () -> HostAliases.EMPTY : hosts::aliases), 300,
                resolved::add);
        server = DnsServer.start(new InetSocketAddress(loopback(), 0), responder, hosts, filter);
        return server;
    }

    private static byte[] exchange(final DatagramSocket client, final InetSocketAddress to, final byte[] query)
            throws IOException {
        client.send(new DatagramPacket(query, query.length, to));
        final byte[] buf = new byte[1500];
        final DatagramPacket p = new DatagramPacket(buf, buf.length);
        client.receive(p); // SO_TIMEOUT turns a missing reply into a failure, not a hang
        return Arrays.copyOf(buf, p.getLength());
    }

    private static DatagramSocket client() throws IOException {
        final DatagramSocket s = new DatagramSocket(new InetSocketAddress(loopback(), 0));
        s.setSoTimeout(TIMEOUT_MS);
        return s;
    }

    @Test
    void answersOverLoopbackAndReportsTheIdentity() throws Exception {
        start(null, ArrivalFilter.NONE);
        try (DatagramSocket c = client()) {
            final byte[] reply = exchange(c, server.localAddress(), DIG_QUERY);
            assertEquals(0x8884, u16(reply, 0));
            assertEquals(1, u16(reply, 6));
            assertArrayEquals(peer(NPUB_A).address().toBytes(),
                    Arrays.copyOfRange(reply, reply.length - 16, reply.length));
            assertEquals(peer(NPUB_A), resolved.poll(TIMEOUT_MS, TimeUnit.MILLISECONDS));

            final byte[] nx = exchange(c, server.localAddress(),
                    DnsCodec.encodeQuery(2, true, "example.com", 28, -1));
            assertEquals(3, u16(nx, 2) & 0xF);
        }
        assertEquals(new DnsServer.Counters(2, 1, 0, 1, 0, 0, 0), server.counters());
    }

    @Test
    void malformedDatagramsAreCountedAndTheServerGoesOn() throws Exception {
        start(null, ArrivalFilter.NONE);
        try (DatagramSocket c = client()) {
            final byte[] junk = "not dns".getBytes(StandardCharsets.US_ASCII);
            c.send(new DatagramPacket(junk, junk.length, server.localAddress()));
            final byte[] big = new byte[2000]; // cut to 512 bytes on receive, then a pointer loop
            System.arraycopy(DnsCodec.encodeQuery(5, false, "a.fips", 28, -1), 0, big, 0, 12);
            big[12] = (byte) 0xC0;
            big[13] = 12;
            c.send(new DatagramPacket(big, big.length, server.localAddress()));
            // datagrams are served in order by one thread: once this reply is in, both were counted
            final byte[] reply = exchange(c, server.localAddress(),
                    DnsCodec.encodeQuery(3, false, NPUB_B + ".fips", 1, -1));
            assertEquals(3, u16(reply, 0));
            assertEquals(0, u16(reply, 6), "A for a resolvable name: no answers");
            assertEquals(0, u16(reply, 2) & 0xF);
        }
        assertEquals(new DnsServer.Counters(3, 0, 1, 0, 2, 0, 0), server.counters());
        assertTrue(resolved.isEmpty());
    }

    @Test
    void hostsFileChangesApplyOnTheNextQuery() throws Exception {
        final Path f = dir.resolve("hosts");
        Files.writeString(f, "gateway " + NPUB_A + "\n");
        Files.setLastModifiedTime(f, FileTime.fromMillis(1_000_000));
        start(new HostsFile(f, HostAliases.EMPTY), ArrivalFilter.NONE);
        try (DatagramSocket c = client()) {
            final byte[] q = DnsCodec.encodeQuery(9, true, "server2.fips", 28, 1232);
            assertEquals(3, u16(exchange(c, server.localAddress(), q), 2) & 0xF);
            Files.writeString(f, "gateway " + NPUB_A + "\nserver2 " + NPUB_B + "\n");
            Files.setLastModifiedTime(f, FileTime.fromMillis(2_000_000));
            final byte[] reply = exchange(c, server.localAddress(), q);
            assertEquals(1, u16(reply, 6));
            assertArrayEquals(peer(NPUB_B).address().toBytes(),
                    Arrays.copyOfRange(reply, reply.length - 16, reply.length));
        }
    }

    @Test
    void filteredQueriesGetNoReply() throws Exception {
        try (DatagramSocket blocked = client(); DatagramSocket ok = client()) {
            final int blockedPort = blocked.getLocalPort();
            start(null, (src, ifindex) -> src.getPort() == blockedPort);
            final byte[] q = DnsCodec.encodeQuery(1, true, NPUB_A + ".fips", 28, -1);
            blocked.send(new DatagramPacket(q, q.length, server.localAddress()));
            // served in order: once ok's reply is in, blocked's query was handled (and dropped)
            exchange(ok, server.localAddress(), q);
            assertEquals(new DnsServer.Counters(2, 1, 0, 0, 0, 1, 0), server.counters());
            assertEquals(1, resolved.size(), "the dropped query primed nothing");
        }
    }

    @Test
    void meshInterfaceRuleAsTheReference() throws Exception {
        final InetSocketAddress src = new InetSocketAddress(InetAddress.ofLiteral("fd00::1"), 1000);
        final ArrivalFilter mesh = ArrivalFilter.meshInterface(OptionalInt.of(7));
        assertTrue(mesh.drop(src, 7), "arrived on fips0");
        assertFalse(mesh.drop(src, 1), "arrived on lo");
        assertFalse(mesh.drop(src, ArrivalFilter.UNKNOWN_IFINDEX), "unknown arrival fails open");
        assertFalse(ArrivalFilter.meshInterface(OptionalInt.empty()).drop(src, 7), "no TUN, no filter");

        start(null, mesh);
        final byte[] q = DnsCodec.encodeQuery(1, true, NPUB_A + ".fips", 28, -1);
        assertEquals(DnsResponder.Kind.DROPPED, server.handle(q, q.length, src, 7));
        assertEquals(DnsResponder.Kind.ANSWERED, server.handle(q, q.length,
                new InetSocketAddress(loopback(), 9), 1));
        assertEquals(1, server.counters().dropped());
        assertEquals(1, server.counters().answered());
    }

    @Test
    void bindAddressFromConfigAsTheReferenceParsesIt() throws Exception {
        assertEquals(Optional.of(DnsServer.DEFAULT_BIND),
                DnsServer.bindAddress(DnsConfig.DEFAULTS));
        assertEquals(Optional.of(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 53)),
                DnsServer.bindAddress(new DnsConfig(true, "127.0.0.1", 53, 300)));
        assertEquals(Optional.of(new InetSocketAddress(InetAddress.ofLiteral("::"), 5354)),
                DnsServer.bindAddress(new DnsConfig(true, "::", 5354, 300)));
        for (final String bad : List.of("localhost", "[::1]", "fe80::1%lo", "127.1", "127.0.0.01", "1.2.3.256", "",
                "::g")) {
            assertEquals(Optional.empty(),
                    DnsServer.bindAddress(new DnsConfig(true, bad, 5354, 300)), bad);
        }
    }

    @Test
    void meshInterfaceByNameLooksUpTheIndex() throws Exception {
        final NetworkInterface lo = NetworkInterface.getByName("lo");
        Assumptions.assumeTrue(lo != null, "no interface named lo");
        final InetSocketAddress src = new InetSocketAddress(InetAddress.ofLiteral("::1"), 1);
        assertTrue(ArrivalFilter.meshInterfaceNamed("lo").drop(src, lo.getIndex()));
        assertFalse(ArrivalFilter.meshInterfaceNamed("lo").drop(src, lo.getIndex() + 1));
        assertFalse(ArrivalFilter.meshInterfaceNamed("fips-none-xyz").drop(src, lo.getIndex()));
    }

    @Test
    void queriesArrivingOnTheMeshInterfaceAreDroppedByIfindex() throws Exception {
        // As the reference's own test: treat loopback as "fips0" so that queries from ::1 arrive on it.
        final NetworkInterface lo = NetworkInterface.getByName("lo");
        Assumptions.assumeTrue(lo != null && loopback() instanceof Inet6Address,
                "needs an IPv6 loopback interface named lo");
        final List<Integer> seen = new CopyOnWriteArrayList<>();
        final ArrivalFilter mesh = ArrivalFilter.meshInterface(OptionalInt.of(lo.getIndex()));
        final int[] passPort = {-1};
        start(null, (src, ifindex) -> {
            seen.add(ifindex);
            // the second client's queries pass so that the test can tell when the first one was handled
            return src.getPort() != passPort[0] && mesh.drop(src, ifindex);
        });
        Assumptions.assumeTrue(server.readsArrivalInterface(), "native bindings unavailable");
        try (DatagramSocket probe = client(); DatagramSocket pass = client()) {
            passPort[0] = pass.getLocalPort();
            final byte[] q = DnsCodec.encodeQuery(1, true, NPUB_A + ".fips", 28, -1);
            probe.send(new DatagramPacket(q, q.length, server.localAddress()));
            exchange(pass, server.localAddress(), q);
        }
        assertEquals(List.of(lo.getIndex(), lo.getIndex()), seen, "PKTINFO reported lo for both");
        assertEquals(1, server.counters().dropped());
        assertEquals(1, server.counters().answered());
    }

    @Test
    void ipv4BindUsesThePlainChannel() throws Exception {
        final DnsResponder responder = new DnsResponder(n -> null, 300, p -> { });
        server = DnsServer.start(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0), responder, null,
                ArrivalFilter.NONE);
        assertFalse(server.readsArrivalInterface());
        try (DatagramSocket c = new DatagramSocket(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0))) {
            c.setSoTimeout(TIMEOUT_MS);
            final byte[] reply = exchange(c, server.localAddress(), DIG_QUERY);
            assertEquals(0x8403, u16(reply, 2));
        }
    }

    @Test
    void closeReleasesThePort() throws Exception {
        start(null, ArrivalFilter.NONE);
        final InetSocketAddress bound = server.localAddress();
        server.close();
        server.close();
        try (DatagramSocket again = new DatagramSocket(bound)) {
            assertEquals(bound.getPort(), again.getLocalPort());
        }
        server = null;
    }

    @Test
    void digResolvesAgainstTheServer() throws Exception {
        final Path dig = List.of(Path.of("/usr/bin/dig"), Path.of("/bin/dig")).stream().filter(Files::isExecutable)
                .findFirst().orElse(null);
        Assumptions.assumeTrue(dig != null, "dig not installed (Debian package bind9-dnsutils); skipping");
        final Path f = dir.resolve("hosts");
        Files.writeString(f, "test-us02 " + NPUB_B + "\n");
        start(new HostsFile(f, HostAliases.EMPTY), ArrivalFilter.NONE);
        final String at = server.localAddress().getAddress().getHostAddress();
        final String port = Integer.toString(server.localAddress().getPort());
        assertEquals(peer(NPUB_A).address().toString(), runDig(dig, at, port, "AAAA", NPUB_A + ".fips"));
        assertEquals(peer(NPUB_B).address().toString(), runDig(dig, at, port, "AAAA", "Test-US02.fips."));
        assertEquals("", runDig(dig, at, port, "A", "test-us02.fips"));
        assertEquals(List.of(peer(NPUB_A), peer(NPUB_B)), List.copyOf(resolved));
        final String full = runDigFull(dig, at, port, "AAAA", "nope.fips");
        assertTrue(full.contains("status: NXDOMAIN"), full);
        assertTrue(full.contains("flags: qr aa;"), full);
    }

    private static String runDig(final Path dig, final String at, final String port, final String type,
            final String name) throws Exception {
        return run(List.of(dig.toString(), "+short", "+tries=1", "+time=3", "@" + at, "-p", port, type, name));
    }

    private static String runDigFull(final Path dig, final String at, final String port, final String type,
            final String name) throws Exception {
        return run(List.of(dig.toString(), "+tries=1", "+time=3", "@" + at, "-p", port, type, name));
    }

    private static String run(final List<String> cmd) throws Exception {
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), "dig finished");
        return new String(out, StandardCharsets.UTF_8).strip();
    }
}
