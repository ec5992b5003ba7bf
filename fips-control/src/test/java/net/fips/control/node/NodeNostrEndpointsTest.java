package net.fips.control.node;

import static net.fips.control.node.NodeTestSupport.describe;
import static net.fips.control.node.NodeTestSupport.linked;
import static net.fips.control.node.NodeTestSupport.load;
import static net.fips.testing.Await.until;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.fips.control.identity.Nip19;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.nat.TestStunResponder;
import net.fips.control.nostr.NostrEvent;
import net.fips.control.nostr.OverlayAdvert;
import net.fips.control.nostr.TestRelay;
import net.fips.testing.FreePorts;

/**
 * The advert endpoints a node learns rather than reads from its config (discovery-gateway.md §1.8), end to end with
 * the in-test relay on loopback: B's public UDP transport bound to {@code 0.0.0.0} advertises the IP the in-test
 * STUN responder reports with its bound port, and A, knowing only B's npub, links to it; B's Tor transport in
 * directory mode advertises {@code <onion>:<advertised_port>}, and A dials that onion endpoint (§1.10) through its
 * Tor transport's SOCKS5 proxy, which reaches B's onion listener.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NodeNostrEndpointsTest {
    private static final String ONION = "vww6ybal4bd7szmgncyruucpgfkqahzddi37ktceo3ah7ngmcopnpyyd.onion";

    @TempDir
    Path dir;

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (final AutoCloseable c : closing.reversed()) {
            c.close();
        }
    }

    private static String head(final NodeIdentity self, final Path socket, final String relayUrl,
            final boolean advertise, final String nostrExtra) {
        return "node:\n  identity:\n    nsec: \"" + self.nsec() + "\"\n"
                + "  control:\n    enabled: true\n    socket_path: \"" + socket + "\"\n"
                + "  rate_limit:\n    handshake_timeout_secs: 2\n"
                + "  retry:\n    base_interval_secs: 1\n    max_backoff_secs: 2\n"
                + "  discovery:\n    nostr:\n      enabled: true\n      advertise: " + advertise + "\n"
                + "      advert_relays: [\"" + relayUrl + "\"]\n      dm_relays: [\"" + relayUrl + "\"]\n"
                + nostrExtra + "dns:\n  enabled: false\n";
    }

    private static String npubOnly(final NodeIdentity peer) {
        return "peers:\n  - npub: \"" + peer.npub() + "\"\n    alias: \"b\"\n    via_nostr: true\n";
    }

    private Node start(final String yaml) throws Exception {
        final Node n = Node.start(load(yaml), new NodeOptions().aclDirectory(dir.resolve("acl"))
                .nostrLoopbackEndpoints(true).ipv6Sink(new NodeTestSupport.Collector()::sink));
        closing.add(n::close);
        return n;
    }

    private TestRelay relay() throws Exception {
        final TestRelay relay = new TestRelay(() -> System.currentTimeMillis() / 1000);
        closing.add(relay);
        return relay;
    }

    private static String advertOf(final TestRelay relay, final NodeIdentity who) {
        return relay.stored().stream().filter(e -> e.kind() == OverlayAdvert.KIND)
                .filter(e -> who.npub().equals(Nip19.encodeNpub(e.pubkeyBytes()))).map(NostrEvent::content)
                .reduce((first, second) -> second).orElse(null);
    }

    @Test
    void aWildcardBoundPublicUdpNodeIsReachedAtItsStunLearnedAddress() throws Exception {
        final TestStunResponder stun = new TestStunResponder(new InetSocketAddress("127.0.0.1", 0), 0, false);
        closing.add(stun);
        final TestRelay relay = relay();
        final String url = relay.url().toString();
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final int portB = FreePorts.udp();
        final Node b = start(head(idB, dir.resolve("b.sock"), url, true,
                "      stun_servers: [\"stun:127.0.0.1:" + stun.address().getPort() + "\"]\n")
                + "transports:\n  udp:\n    bind_addr: \"0.0.0.0:" + portB + "\"\n"
                + "    advertise_on_nostr: true\n    public: true\npeers: []\n");
        final Node a = start(head(idA, dir.resolve("a.sock"), url, false, "")
                + "transports:\n  udp:\n    bind_addr: \"127.0.0.1:" + FreePorts.udp() + "\"\n" + npubOnly(idB));
        until(Duration.ofSeconds(40), () -> linked(a, b), () -> "A links to B at its STUN-learned endpoint: A "
                + describe(a) + " " + a.controlApi().showNostr() + " B " + b.controlApi().showNostr());
        // STUN saw 127.0.0.1; the advert pairs it with the bound listen port, not the STUN socket's.
        assertEquals("{\"identifier\":\"fips-overlay-v1\",\"version\":1,\"endpoints\":[{\"transport\":\"udp\","
                + "\"addr\":\"127.0.0.1:" + portB + "\"}]}", advertOf(relay, idB));
        assertEquals(1, stun.requests(), "one observation, cached");
    }

    @Test
    void anOnionEndpointIsAdvertisedAndDialledThroughTheTorTransport() throws Exception {
        final TestRelay relay = relay();
        final String url = relay.url().toString();
        final NodeIdentity idA = NodeIdentity.generate();
        final NodeIdentity idB = NodeIdentity.generate();
        final int listenB = FreePorts.tcp();
        final Path hostname = Files.writeString(dir.resolve("hostname"), ONION + "\n");
        // Tor's part: the onion's virtual port 9001 reaches B's directory_service listener.
        final OnionSocks5Proxy socks = new OnionSocks5Proxy(Map.of(ONION + ":9001",
                new InetSocketAddress("127.0.0.1", listenB)));
        closing.add(socks);
        final Node b = start(head(idB, dir.resolve("b.sock"), url, true, "")
                + "transports:\n  tor:\n    mode: directory\n    socks5_addr: \"" + socks.address() + "\"\n"
                + "    advertise_on_nostr: true\n    advertised_port: 9001\n    directory_service:\n"
                + "      hostname_file: \"" + hostname + "\"\n      bind_addr: \"127.0.0.1:" + listenB + "\"\n"
                + "peers: []\n");
        assertTrue(b.config().warnings().stream().noneMatch(w -> w.contains("advertise")),
                b.config().warnings()::toString);
        final Node a = start(head(idA, dir.resolve("a.sock"), url, false, "")
                + "transports:\n  tor:\n    socks5_addr: \"" + socks.address() + "\"\n" + npubOnly(idB));
        until(Duration.ofSeconds(40), () -> linked(a, b), () -> "A links to B's onion from its advert: A "
                + describe(a) + " " + a.controlApi().showNostr() + " B " + b.controlApi().showNostr()
                + " SOCKS5 CONNECTs " + socks.connects());
        assertEquals("{\"identifier\":\"fips-overlay-v1\",\"version\":1,\"endpoints\":[{\"transport\":\"tor\","
                + "\"addr\":\"" + ONION + ":9001\"}]}", advertOf(relay, idB));
        assertEquals(ONION + ":9001", socks.connects().getFirst(), "dialled by name through the SocksPort");
    }
}
