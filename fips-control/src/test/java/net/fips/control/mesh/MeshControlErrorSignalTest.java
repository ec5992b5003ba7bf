package net.fips.control.mesh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.control.identity.NodeIdentity;
import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.CoordsRequired;
import net.fips.dataplane.wire.MtuExceeded;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.PathBroken;
import net.fips.dataplane.wire.SessionDatagram;
import net.fips.control.identity.TestIdentities;

/**
 * The error signal a transit originates for a routing failure reported by the data plane (routing-session §4.5):
 * a new SessionDatagram from us to the failed datagram's source, ttl 64 and path_mtu 65535 (the reference's
 * {@code SessionDatagram::new}; only later hops fold it), carrying PathBroken when the coordinate cache holds the
 * destination at that moment, else CoordsRequired. With no route back to the source, the signal goes to the peer the
 * dropped datagram came from (ADR 0064), where the reference drops it.
 */
class MeshControlErrorSignalTest {
    private static final int LINK_MTU = 1280;
    private static final NodeAddr FAR = NodeAddr.of(0x7777_0000_0000_0000L, 1);

    private record Sent(NodeAddr peer, byte[] message) {
    }

    private final NodeIdentity self = TestIdentities.filled((byte) 0x11);
    private final NodeIdentity origin = TestIdentities.filled((byte) 0x22);
    private final NodeIdentity previousHop = TestIdentities.filled((byte) 0x33);
    private final NodeIdentity otherPeer = TestIdentities.filled((byte) 0x44);
    private final List<Sent> sent = new ArrayList<>();
    private final MeshControl mesh = new MeshControl(self, MeshSettings.defaults(),
            (peer, msg) -> sent.add(new Sent(peer, msg)), MeshControl.TablePublisher.NONE, new Random(1),
            () -> 1_784_470_000_000L, (k, d, sig) -> false, transport -> LINK_MTU, 0);

    private SessionDatagram lastDatagramTo(final NodeAddr peer) {
        for (int i = sent.size() - 1; i >= 0; i--) {
            final Sent s = sent.get(i);
            if (s.peer().equals(peer) && s.message().length > 0 && s.message()[0] == 0x00) {
                return SessionDatagram.decode(s.message(), 0, s.message().length).valueOrNull();
            }
        }
        throw new AssertionError("no SessionDatagram sent to " + peer);
    }

    @Test
    void errorDatagramStartsWithFullPathMtuAndDefaultTtl() {
        final long t = 1_000_000_000L;
        mesh.onPeerUp(origin.toPeer(), 1, 0, t);
        mesh.onRoutingEvent(new DataPlaneEvent.RoutingError(origin.nodeAddr(), FAR,
                DataPlaneEvent.RoutingErrorKind.COORDS_REQUIRED), t);

        final SessionDatagram dg = lastDatagramTo(origin.nodeAddr());
        assertEquals(self.nodeAddr(), dg.src());
        assertEquals(origin.nodeAddr(), dg.dest());
        assertEquals(64, dg.ttl());
        // Not folded with our link MTU: the reference sends the error with u16::MAX.
        assertEquals(0xFFFF, dg.pathMtu());
        final CoordsRequired cr = CoordsRequired.decode(dg.payload(), 0, dg.payload().length).valueOrNull();
        assertEquals(FAR, cr.destAddr());
        assertEquals(self.nodeAddr(), cr.reporter());
    }

    @Test
    void pathBrokenWheneverTheCacheHoldsTheDestination() {
        final long t = 1_000_000_000L;
        mesh.onPeerUp(origin.toPeer(), 1, 0, t);
        final Coords farCoords = Coords.of(FAR, NodeAddr.of(0, 5));
        mesh.warm(FAR, farCoords, t);
        // The worker's view did not have the entry yet; the reference decides on the cache when it signals.
        mesh.onRoutingEvent(new DataPlaneEvent.RoutingError(origin.nodeAddr(), FAR,
                DataPlaneEvent.RoutingErrorKind.COORDS_REQUIRED), t);

        final SessionDatagram dg = lastDatagramTo(origin.nodeAddr());
        final PathBroken pb = assertInstanceOf(PathBroken.class,
                PathBroken.decode(dg.payload(), 0, dg.payload().length).valueOrNull());
        assertEquals(FAR, pb.destAddr());
        assertEquals(farCoords, pb.lastKnownCoords());
        assertEquals(1, mesh.errorSignals("path_broken"));
    }

    @Test
    void forwardMtuExceededBecomesAnMtuExceededSignalToTheSourceCarryingTheMtu() {
        final long t = 1_000_000_000L;
        mesh.onPeerUp(origin.toPeer(), 1, 0, t);
        mesh.onRoutingEvent(new DataPlaneEvent.ForwardMtuExceeded(origin.nodeAddr(), FAR, 600), t);

        final SessionDatagram dg = lastDatagramTo(origin.nodeAddr());
        assertEquals(self.nodeAddr(), dg.src());
        assertEquals(origin.nodeAddr(), dg.dest());
        assertEquals(64, dg.ttl());
        assertEquals(0xFFFF, dg.pathMtu());
        // FSP prefix, then 0x22 ‖ 0 ‖ dest ‖ reporter ‖ mtu u16 LE: 40 bytes in all.
        assertEquals(40, dg.payload().length);
        final MtuExceeded me = MtuExceeded.decode(dg.payload(), 0, dg.payload().length).valueOrNull();
        assertEquals(FAR, me.destAddr());
        assertEquals(self.nodeAddr(), me.reporter());
        assertEquals(600, me.mtu());
        assertEquals(600, (dg.payload()[38] & 0xFF) | (dg.payload()[39] & 0xFF) << 8, "mtu little-endian last");
        assertEquals(1, mesh.errorSignals("mtu_exceeded"));
        assertEquals(0, mesh.errorSignals("coords_required") + mesh.errorSignals("path_broken"));
    }

    @Test
    void anMtuExceededWithNoRouteBackIsDroppedAndCountedAsSuch() {
        mesh.onRoutingEvent(new DataPlaneEvent.ForwardMtuExceeded(origin.nodeAddr(), FAR, 600), 1_000_000_000L);
        assertEquals(0, sent.size());
        assertEquals(0, mesh.errorSignals("mtu_exceeded"));
        assertEquals(1, mesh.errorSignals("no_route_back"));
    }

    /**
     * The chaos runs' lock-out (docs/benchmarks.md, 2026-12-06): a transit restarted with an empty coordinate cache
     * gets an established session's datagrams (no coordinates on them) from a neighbour and knows neither the
     * destination nor the source. The reference drops its CoordsRequired for want of a route back, so the source
     * never re-warms the path; we send it to the peer the datagram came from, addressed to the source.
     */
    @Test
    void withNoRouteBackTheSignalGoesToThePeerTheDatagramCameFrom() {
        final long t = 1_000_000_000L;
        mesh.onPeerUp(otherPeer.toPeer(), 6, 0, t);
        mesh.onPeerUp(previousHop.toPeer(), 7, 0, t);
        mesh.onRoutingEvent(new DataPlaneEvent.RoutingError(origin.nodeAddr(), FAR,
                DataPlaneEvent.RoutingErrorKind.COORDS_REQUIRED, 7), t);

        final SessionDatagram dg = lastDatagramTo(previousHop.nodeAddr());
        assertEquals(self.nodeAddr(), dg.src());
        assertEquals(origin.nodeAddr(), dg.dest(), "addressed to the source, handed to the previous hop");
        assertEquals(64, dg.ttl());
        final CoordsRequired cr = CoordsRequired.decode(dg.payload(), 0, dg.payload().length).valueOrNull();
        assertEquals(FAR, cr.destAddr());
        assertEquals(self.nodeAddr(), cr.reporter());
        assertEquals(1, mesh.errorSignals("coords_required"));
        assertEquals(1, mesh.errorSignals("via_arrival_link"));
        assertEquals(0, mesh.errorSignals("no_route_back"));
        assertEquals(0, sent.stream().filter(s -> s.peer().equals(otherPeer.nodeAddr())
                && s.message().length > 0 && s.message()[0] == 0x00).count(), "not to any other peer");
    }

    /** A route back wins over the arrival link: the signal follows the table as in the reference. */
    @Test
    void aRouteBackIsPreferredToTheArrivalLink() {
        final long t = 1_000_000_000L;
        mesh.onPeerUp(origin.toPeer(), 6, 0, t);
        mesh.onPeerUp(previousHop.toPeer(), 7, 0, t);
        mesh.onRoutingEvent(new DataPlaneEvent.RoutingError(origin.nodeAddr(), FAR,
                DataPlaneEvent.RoutingErrorKind.COORDS_REQUIRED, 7), t);

        assertEquals(origin.nodeAddr(), lastDatagramTo(origin.nodeAddr()).dest());
        assertEquals(0, sent.stream().filter(s -> s.peer().equals(previousHop.nodeAddr())
                && s.message().length > 0 && s.message()[0] == 0x00).count());
        assertEquals(0, mesh.errorSignals("via_arrival_link"));
    }

    /** An unknown or vanished arrival link leaves nothing to send to: dropped and counted as no route back. */
    @Test
    void withNoRouteBackAndNoKnownArrivalPeerTheSignalIsDropped() {
        final long t = 1_000_000_000L;
        mesh.onPeerUp(previousHop.toPeer(), 7, 0, t);
        mesh.onRoutingEvent(new DataPlaneEvent.RoutingError(origin.nodeAddr(), FAR,
                DataPlaneEvent.RoutingErrorKind.COORDS_REQUIRED, 9), t);
        mesh.onRoutingEvent(new DataPlaneEvent.RoutingError(origin.nodeAddr(), FAR,
                DataPlaneEvent.RoutingErrorKind.COORDS_REQUIRED), t);

        assertEquals(0, sent.stream().filter(s -> s.message().length > 0 && s.message()[0] == 0x00).count());
        assertEquals(2, mesh.errorSignals("no_route_back"));
        assertEquals(0, mesh.errorSignals("coords_required"));
    }
}
