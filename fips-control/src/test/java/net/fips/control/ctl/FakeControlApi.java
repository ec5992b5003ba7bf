package net.fips.control.ctl;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.Random;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.mesh.MeshControl;
import net.fips.control.mesh.MeshSettings;
import net.fips.control.mesh.MeshSnapshot;
import net.fips.control.identity.TestIdentities;

/**
 * An in-memory {@link ControlApi} with fixed, realistic values: our node is the reference's snapshot test identity
 * (secret 0xAB repeated), with one connected UDP peer that is our tree parent, one stale TCP peer, one outbound
 * handshake in flight and two transports. {@code connect} validates and queues like a real node would;
 * {@code disconnect} removes a known peer.
 */
public class FakeControlApi implements ControlApi {

    /** Our identity: the reference's snapshot-test secret, 32 bytes of 0xAB. */
    public static final NodeIdentity SELF = TestIdentities.filled((byte) 0xAB);
    /** The connected UDP peer (our parent). */
    public static final NodeIdentity PEER_A = TestIdentities.filled((byte) 0x01);
    /** The stale TCP peer. */
    public static final NodeIdentity PEER_B = TestIdentities.filled((byte) 0x02);
    /** The peer an outbound handshake is under way to. */
    public static final NodeIdentity PEER_C = TestIdentities.filled((byte) 0x03);

    /** Each accepted connect, in order. */
    public final List<ConnectResult> connects = new CopyOnWriteArrayList<>();
    private final List<PeerSnapshot> peers = new CopyOnWriteArrayList<>(List.of(peerA(), peerB()));

    @Override
    public StatusSnapshot showStatus() {
        final ForwardingCounters fwd = new ForwardingCounters(0L, 0L, 4_977_000L, 4977L, 0L, 0L, 336L, 3L, 0L, 0L,
                12_800L, 10L, 5_012_000L, 5012L, 5_100_000L, 5070L, 0L, 0L, 5000L, 2L, 0L, 10L, 0L, 0L);
        final Sparklines spark = new Sparklines(List.of(1838.0, 1840.0), List.of(3.0, 3.0), List.of(2.0, 2.0),
                List.of(812.0, 640.0), List.of(900.0, 702.0), Arrays.asList(0.0, Double.NaN));
        final Map<String, Long> counts = new LinkedHashMap<>();
        counts.put("udp", 1L);
        counts.put("tcp", 1L);
        return new StatusSnapshot("0.1.0-SNAPSHOT (rev 23312cb)", SELF.npub(), SELF.nodeAddr().toString(),
                SELF.address().toString(), NodeState.RUNNING, false, 2, 1, 2, 2, 1, TunState.ACTIVE, "fips0",
                1203, "/run/fips/control.sock", 812, "/usr/bin/java", 3605, 1840L, true,
                PEER_A.nodeAddr().toString(), false, counts, fwd, spark);
    }

    private static PeerSnapshot peerA() {
        return new PeerSnapshot(PEER_A.nodeAddr().toString(), PEER_A.npub(), "test-us01",
                PEER_A.address().toString(), Connectivity.CONNECTED, 3, 1_784_470_000_123L, 1_784_473_600_456L,
                true, true, 41, true, false, "203.0.113.7:2121", LinkDirection.OUTBOUND, "udp", 2, 3.25,
                new TrafficStats(1200, 1185, 210_000, 198_000), 0, 0,
                PeerSnapshot.NostrTraversal.NONE, new PeerSnapshot.NoiseCounters(1200, 1184),
                PeerSnapshot.sessionIndexHex(0x9c3e0a11), false, false, false,
                LinkMmp.of("full", 25.0, 0.0, 1.0, 5200.0, 1.0, 1.0, 0.0, 1.0));
    }

    private static PeerSnapshot peerB() {
        return new PeerSnapshot(PEER_B.nodeAddr().toString(), PEER_B.npub(), PEER_B.toPeer().shortNpub(),
                PEER_B.address().toString(), Connectivity.STALE, 5, 1_784_471_000_000L, 1_784_473_500_000L,
                false, false, 0, false, false, "198.51.100.9:8443", LinkDirection.INBOUND, "tcp", null, null,
                new TrafficStats(40, 38, 5100, 4800), 2, 1,
                new PeerSnapshot.NostrTraversal(3, 1_784_474_000_000L, -1500L), null, null, true, true, true,
                null);
    }

    @Override
    public List<PeerSnapshot> showPeers() {
        return List.copyOf(peers);
    }

    @Override
    public List<LinkSnapshot> showLinks() {
        return List.of(
                new LinkSnapshot(3, 1, "203.0.113.7:2121", LinkDirection.OUTBOUND, LinkState.CONNECTED,
                        1_784_470_000_001L, new LinkSnapshot.Stats(1200, 1185, 210_000, 198_000,
                        1_784_473_600_456L)),
                new LinkSnapshot(5, 2, "198.51.100.9:8443", LinkDirection.INBOUND, LinkState.CONNECTED,
                        1_784_471_000_000L, new LinkSnapshot.Stats(40, 38, 5100, 4800, 1_784_473_500_000L)));
    }

    @Override
    public List<ConnectionSnapshot> showConnections() {
        return List.of(new ConnectionSnapshot(7, LinkDirection.OUTBOUND, HandshakeState.SENT_MSG1,
                1_784_473_599_000L, 1500, 1, PEER_C.npub()),
                new ConnectionSnapshot(8, LinkDirection.INBOUND, HandshakeState.RECEIVED_MSG1,
                        1_784_473_600_000L, 200, 0, null));
    }

    @Override
    public List<TransportSnapshot> showTransports() {
        final ObjectNode tor = ControlJson.MAPPER.createObjectNode();
        tor.put("bootstrap", 100);
        final Map<String, Long> tcpStats = new LinkedHashMap<>();
        tcpStats.put("packets_sent", 40L);
        tcpStats.put("bytes_sent", 5100L);
        tcpStats.put("connections_accepted", 1L);
        return List.of(
                new TransportSnapshot(1, "udp", TransportState.UP, 1472, null, "0.0.0.0:2121", null, null, null,
                        TransportSnapshot.udpStats(1200, 210_000, 1185, 198_000, 0, 0, 0, 0)),
                new TransportSnapshot(2, "tcp", TransportState.UP, 1400, "public", "0.0.0.0:8443", null, null,
                        null, tcpStats));
    }

    @Override
    public AclSnapshot showAcl() {
        return new AclSnapshot("/etc/fips/peers.allow", "/etc/fips/peers.deny", true, "allow_then_deny_all",
                "deny", false, true, List.of("test-us01"), List.of("ALL"), List.of(PEER_A.npub()), List.of());
    }

    /** A lone node's routing state, rendered by the production renderer on a fixed clock. */
    private MeshSnapshot lone() {
        final MeshControl m = new MeshControl(SELF, MeshSettings.defaults(), (peer, msg) -> false,
                MeshControl.TablePublisher.NONE, new Random(7), () -> 1_784_470_000_000L,
                (k, d, sig) -> false, t -> 1280, 0);
        return m.snapshot(a -> a.shortHex(), 0, 1_784_470_000_000L);
    }

    @Override
    public JsonNode showTree() {
        return lone().tree();
    }

    @Override
    public JsonNode showBloom() {
        return lone().bloom();
    }

    @Override
    public JsonNode showCache() {
        return lone().cache();
    }

    @Override
    public JsonNode showRouting() {
        return lone().routing();
    }

    @Override
    public JsonNode showNostr() {
        return ControlJson.MAPPER.createObjectNode().put("enabled", false);
    }

    @Override
    public JsonNode showIdentityCache() {
        return lone().identityCache();
    }

    @Override
    public ConnectResult connect(final String npub, final String address, final String transport)
            throws ControlException {
        try {
            PeerIdentity.fromNpub(npub);
        } catch (final IdentityFormatException e) {
            throw new ControlException("invalid npub '" + npub + "': " + e.getMessage());
        }
        if (!List.of("udp", "tcp", "ethernet", "tor", "nym", "ble").contains(transport)) {
            throw new ControlException("unknown transport type: " + transport);
        }
        final ConnectResult r = new ConnectResult(npub, address, transport);
        connects.add(r);
        return r;
    }

    @Override
    public DisconnectResult disconnect(final String npub) throws ControlException {
        try {
            PeerIdentity.fromNpub(npub);
        } catch (final IdentityFormatException e) {
            throw ControlException.invalidNpub(npub, e.getMessage());
        }
        final List<PeerSnapshot> gone = new ArrayList<>();
        for (final PeerSnapshot p : peers) {
            if (p.npub().equals(npub)) {
                gone.add(p);
            }
        }
        if (gone.isEmpty()) {
            throw ControlException.peerNotFound(npub);
        }
        peers.removeAll(gone);
        return new DisconnectResult(npub);
    }
}
