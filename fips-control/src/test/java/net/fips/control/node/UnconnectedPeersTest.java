package net.fips.control.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import net.fips.control.config.PeerConfig;
import net.fips.control.ctl.UnconnectedPeer;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.link.DialSnapshot;
import net.fips.control.link.LinkCounter;
import net.fips.control.link.LinkSnapshot;
import net.fips.control.link.PeerSnapshot;
import net.fips.control.link.RetrySnapshot;

/** {@code show_peers.not_connected}: every configured peer that is not up, with what the node is doing about it. */
class UnconnectedPeersTest {
    private static final PeerIdentity UP = NodeIdentity.generate().toPeer();
    private static final PeerIdentity DIALLING = NodeIdentity.generate().toPeer();
    private static final PeerIdentity WAITING = NodeIdentity.generate().toPeer();
    private static final PeerIdentity IDLE = NodeIdentity.generate().toPeer();

    private static PeerConfig configured(final PeerIdentity id, final String alias, final String addr) {
        return new PeerConfig(id.npub(), id, Optional.of(alias), List.of(new PeerConfig.Address("udp", addr, 100)),
                PeerConfig.ConnectPolicy.AUTO_CONNECT, true, false);
    }

    private static PeerSnapshot established(final PeerIdentity id) {
        return new PeerSnapshot(id.npub(), id.nodeAddr().toString(), "connected", "outbound", 1, 0, "192.0.2.1:2121",
                1, 2, 0, -1, false, false, 0, 10, 10, -1, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, null, null, null,
                null, null, null);
    }

    @Test
    void configuredPeersThatAreDownAreListedWithTheirState() {
        final List<PeerConfig> peers = List.of(configured(UP, "up", "192.0.2.1:2121"),
                configured(DIALLING, "dialling", "192.0.2.2:2121"), configured(WAITING, "waiting", "192.0.2.3:2121"),
                configured(IDLE, "idle", "192.0.2.4:2121"));
        final LinkSnapshot snap = new LinkSnapshot(0, List.of(established(UP)), 1,
                List.of(new DialSnapshot(DIALLING.npub(), 0, "192.0.2.2:2121", 7, 2_500, 2)), 1,
                new long[LinkCounter.values().length],
                List.of(new RetrySnapshot(WAITING.nodeAddr().toString(), WAITING.npub(), 3, 11_200, true)));

        final List<UnconnectedPeer> down = NodeControlApi.unconnected(peers, snap, id -> id == 0 ? "udp" : null,
                npub -> npub.equals(DIALLING.npub()) ? "dialling" : npub.equals(WAITING.npub()) ? "waiting" : "idle");

        assertEquals(List.of(
                new UnconnectedPeer(DIALLING.npub(), "dialling", DIALLING.nodeAddr().toString(), "connecting", "udp",
                        "192.0.2.2:2121", null, null),
                new UnconnectedPeer(WAITING.npub(), "waiting", WAITING.nodeAddr().toString(), "retrying", "udp",
                        "192.0.2.3:2121", 11_200L, 3),
                new UnconnectedPeer(IDLE.npub(), "idle", IDLE.nodeAddr().toString(), "disconnected", "udp",
                        "192.0.2.4:2121", null, null)), down);
    }

    @Test
    void aRetryThatIsDueShowsZeroAndNoConfiguredPeerMeansNone() {
        final LinkSnapshot snap = new LinkSnapshot(0, List.of(), 0, List.of(), 1,
                new long[LinkCounter.values().length],
                List.of(new RetrySnapshot(WAITING.nodeAddr().toString(), WAITING.npub(), 1, -40, true)));
        assertEquals(0L, NodeControlApi.unconnected(List.of(configured(WAITING, "w", "192.0.2.3:2121")), snap,
                id -> "udp", n -> "w").get(0).retryInMs());
        assertEquals(List.of(), NodeControlApi.unconnected(List.of(), snap, id -> "udp", n -> "w"));
    }
}
