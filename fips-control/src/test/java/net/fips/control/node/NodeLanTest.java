package net.fips.control.node;

import static net.fips.testing.Await.until;
import static net.fips.control.node.NodeTestSupport.describe;
import static net.fips.control.node.NodeTestSupport.linked;
import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.control.node.NodeTestSupport.peerOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.MulticastSocket;
import java.net.NetworkInterface;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.fips.control.ctl.ControlException;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.node.NodeTestSupport.Collector;
import net.fips.testing.FreePorts;

/**
 * LAN discovery wired into real nodes, with mDNS on the loopback interface only (so nothing leaves the host) and a
 * service type of this run's own ({@code _fipstest-<8 hex>._udp.local.}, as the reference's tests do, so parallel
 * runs do not see each other): two nodes with no peers configured find each other and link; a third node in another
 * scope is ignored by both; {@code show_lan} reports it; a reload that turns discovery off and closing the nodes end
 * every JmDNS thread. Skipped where loopback cannot carry multicast.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NodeLanTest {
    private static final String TYPE = "_fipstest-" + HexFormat.of().toHexDigits(new Random().nextInt())
            + "._udp.local.";

    @TempDir
    Path dir;

    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void closeAll() {
        nodes.forEach(Node::close);
    }

    private static String nodeExtra(final boolean lan, final String scope) {
        return "  retry:\n    base_interval_secs: 1\n    max_backoff_secs: 2\n"
                + "  discovery:\n    lan:\n      enabled: " + lan + "\n      service_type: \"" + TYPE + "\"\n"
                + (scope == null ? "" : "      scope: \"" + scope + "\"\n")
                + "dns:\n  enabled: false\n";
    }

    private String yaml(final NodeIdentity id, final int port, final String extra) {
        return NodeTestSupport.yaml(id, port, dir.resolve(id.npub().substring(5, 15) + ".sock"), extra);
    }

    private Node start(final NodeIdentity id, final int port, final String extra) throws Exception {
        final Node n = Node.start(load(yaml(id, port, extra)), new NodeOptions().aclDirectory(dir.resolve("acl"))
                .ipv6Sink(new Collector()::sink)
                .lanAddresses(() -> List.of(InetAddress.getLoopbackAddress())));
        nodes.add(n);
        return n;
    }

    @Test
    void twoNodesWithoutPeersFindEachOtherAndAnotherScopeIsIgnored() throws Exception {
        assumeTrue(loopbackMulticast(), "loopback cannot join the mDNS group here");
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final NodeIdentity idC = NodeIdentity.generate();
        final int portA = FreePorts.udp();
        final int portB = FreePorts.udp();
        final Node a = start(idA, portA, nodeExtra(true, null));
        final Node b = start(idB, portB, nodeExtra(true, null));
        final Node c = start(idC, FreePorts.udp(), nodeExtra(true, "elsewhere"));

        until(Duration.ofSeconds(30), () -> linked(a, b),
                () -> "LAN link: A " + describe(a) + " B " + describe(b) + "\nA lan " + lan(a) + "\nB lan " + lan(b));
        // C announces too: once A and B have each refused an announcement (C's is the only one they refuse) and C
        // has refused some, nobody dialled across scopes.
        until(Duration.ofSeconds(30),
                () -> lan(a).get("announcements_refused").asLong() >= 1
                        && lan(b).get("announcements_refused").asLong() >= 1
                        && lan(c).get("announcements_refused").asLong() >= 1,
                () -> "A and B refuse C, C refuses them: A " + lan(a) + "\nB " + lan(b) + "\nC " + lan(c));
        assertNull(peerOf(a, c), "A never links C (another scope)");
        assertNull(peerOf(b, c), "B never links C");
        assertEquals(0, c.linkSnapshot().peers().size(), describe(c));
        assertEquals(0, lan(c).get("peers").size(), "C accepts nobody: " + lan(c));

        // Whichever dialled first, each also resolves the other's announcement (the browse re-queries).
        until(Duration.ofSeconds(30), () -> lan(a).get("peers").size() == 1 && lan(b).get("peers").size() == 1,
                () -> "each lists the other: A " + lan(a) + "\nB " + lan(b));
        final JsonNode la = lan(a);
        assertTrue(la.get("enabled").asBoolean() && la.get("running").asBoolean(), la.toString());
        assertEquals(TYPE, la.get("service_type").asText());
        assertEquals("fips-overlay-v1", la.get("scope").asText(), "the reference's default scope");
        assertEquals("fips-" + idA.npub().substring(0, 16), la.get("instance_name").asText());
        assertEquals(1, la.get("peers").size(), "A lists B only: " + la);
        final JsonNode pb = la.get("peers").get(0);
        assertEquals(idB.npub(), pb.get("npub").asText());
        assertEquals("127.0.0.1:" + portB, pb.get("address").asText());
        assertTrue(pb.get("present").asBoolean());
        assertTrue(la.get("dials_started").asLong() + lan(b).get("dials_started").asLong() >= 1,
                "one of them dialled: " + la + " " + lan(b));

        // A reload that turns LAN discovery off stops it; closing the others ends every JmDNS thread.
        assertFalse(jmdnsThreads().isEmpty(), "the check below sees JmDNS's threads while they run");
        final Node.Reload r = a.reload(load(yaml(idA, portA, nodeExtra(false, null))), l -> "log level " + l);
        assertTrue(r.reloaded().contains("LAN discovery stopped"), r.summary());
        assertFalse(lan(a).get("running").asBoolean());
        assertTrue(linked(a, b), "the link stays: discovery only dials");
        b.close();
        c.close();
        until(Duration.ofSeconds(10), () -> jmdnsThreads().isEmpty(), () -> "JmDNS threads left: " + jmdnsThreads());
    }

    @Test
    void enabledWithoutUdpTransportSaysWhyItDoesNotRun() throws Exception {
        final NodeIdentity id = NodeIdentity.generate();
        final String yaml = "node:\n  identity:\n    nsec: \"" + id.nsec() + "\"\n  control:\n    enabled: false\n"
                + "  discovery:\n    lan:\n      enabled: true\n      service_type: \"" + TYPE + "\"\n"
                + "dns:\n  enabled: false\ntransports:\n  tcp:\n    mtu: 1400\npeers: []\n";
        final Node n = Node.start(load(yaml), new NodeOptions().aclDirectory(dir.resolve("acl"))
                .ipv6Sink(new Collector()::sink));
        nodes.add(n);
        final JsonNode l = lan(n);
        assertTrue(l.get("enabled").asBoolean());
        assertFalse(l.get("running").asBoolean());
        assertEquals("no UDP transport with a bound port to announce", l.get("problem").asText());
        assertTrue(l.get("port").isNull(), "no port is announced");
        assertTrue(jmdnsThreads().isEmpty(), "nothing started: " + jmdnsThreads());
    }

    private static JsonNode lan(final Node n) {
        try {
            return n.controlApi().showLan();
        } catch (final ControlException e) {
            throw new AssertionError(e);
        }
    }

    /** @return the names of live JmDNS threads (its timers, socket listener and executors) */
    static List<String> jmdnsThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.contains("JmDNS") || n.startsWith("SocketListener")).toList();
    }

    /** @return whether a socket can join the mDNS group on loopback (not every sandbox allows it) */
    private static boolean loopbackMulticast() {
        try (MulticastSocket s = new MulticastSocket(0)) {
            final NetworkInterface lo = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
            s.joinGroup(new InetSocketAddress(InetAddress.getByName("224.0.0.251"), 0), lo);
            return true;
        } catch (final IOException | RuntimeException e) {
            return false;
        }
    }
}
