package net.fips.control.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.Random;

import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.control.identity.TestIdentities;

/** Two (or more) conductors over {@link PairedDataPlanes}, with deterministic identities and randomness. */
final class LinkFixture {
    final PairedDataPlanes net = new PairedDataPlanes();

    /** One node: identity, epoch, data plane and conductor. */
    static final class Node {
        final NodeIdentity id;
        final PeerIdentity peer;
        final byte[] epoch;
        final PairedDataPlanes.Side side;
        final LinkConductor conductor;

        Node(final NodeIdentity id, final byte[] epoch, final PairedDataPlanes.Side side,
             final LinkConductor conductor) {
            this.id = id;
            this.peer = id.toPeer();
            this.epoch = epoch;
            this.side = side;
            this.conductor = conductor;
        }

        LinkSnapshot snap() {
            return conductor.snapshot();
        }

        long count(final LinkCounter c) {
            return conductor.snapshot().counter(c);
        }

        int peers() {
            return conductor.snapshot().peers().size();
        }

        PeerSnapshot peer(final Node other) {
            return conductor.snapshot().peer(other.peer.npub());
        }
    }

    Node node(final String name, final long seed, final LinkConfig config, final PeerFilter filter) {
        return node(name, TestIdentities.seeded(seed), seed * 31 + 7, config, filter, 2121 + (int) (seed & 0xFF));
    }

    Node node(final String name, final NodeIdentity id, final long randomSeed, final LinkConfig config,
              final PeerFilter filter, final int port) {
        final Random r = new Random(randomSeed);
        final byte[] epoch = new byte[8];
        r.nextBytes(epoch);
        final PairedDataPlanes.Side side = net.newSide(name, port);
        final LinkConductor c = new LinkConductor(id, epoch, side, side::stats, r, config, filter, net.now);
        c.setConnectionCloser((transport, at) -> side.closeConnection(at));
        side.conductor = c;
        return new Node(id, epoch, side, c);
    }

    /** Two nodes, "a" (seed 1) and "b" (seed 2), with the same settings and no ACL. */
    Node[] pair(final LinkConfig cfg) {
        return new Node[] {node("a", 1, cfg, PeerFilter.ALLOW_ALL), node("b", 2, cfg, PeerFilter.ALLOW_ALL)};
    }

    /** Both sides hold exactly one link whose indices mirror each other. */
    static void assertLinked(final Node x, final Node y) {
        assertEquals(1, x.peers(), x.side.name + " peers");
        assertEquals(1, y.peers(), y.side.name + " peers");
        final PeerSnapshot xy = x.peer(y);
        final PeerSnapshot yx = y.peer(x);
        assertNotNull(xy);
        assertNotNull(yx);
        assertEquals(xy.ourIndex(), yx.theirIndex());
        assertEquals(xy.theirIndex(), yx.ourIndex());
        assertEquals(1, x.side.links.size());
        assertEquals(1, y.side.links.size());
    }

    /** Sends {@code n} data messages each way and checks that all of them arrive. */
    void assertTraffic(final Node x, final Node y, final int n) {
        final int xBefore = y.side.datagrams.size();
        final int yBefore = x.side.datagrams.size();
        for (int i = 0; i < n; i++) {
            x.side.sendData(x.side.onlyLink().linkId, i);
            y.side.sendData(y.side.onlyLink().linkId, i);
        }
        net.deliverAll();
        assertEquals(xBefore + n, y.side.datagrams.size(), "x->y data");
        assertEquals(yBefore + n, x.side.datagrams.size(), "y->x data");
    }

    /** Replaces a node by a restarted process: same identity and address, new epoch, empty state. */
    Node restart(final Node old, final long randomSeed, final LinkConfig config) {
        net.sides.remove(old.side.address);
        return node(old.side.name + "'", old.id, randomSeed, config, PeerFilter.ALLOW_ALL,
                0, old.side.address);
    }

    private Node node(final String name, final NodeIdentity id, final long randomSeed, final LinkConfig config,
                      final PeerFilter filter, final int port, final TransportAddr address) {
        final Random r = new Random(randomSeed);
        final byte[] epoch = new byte[8];
        r.nextBytes(epoch);
        final PairedDataPlanes.Side side = net.new Side(name, address);
        net.sides.put(address, side);
        final LinkConductor c = new LinkConductor(id, epoch, side, side::stats, r, config, filter, net.now);
        c.setConnectionCloser((transport, at) -> side.closeConnection(at));
        side.conductor = c;
        return new Node(id, epoch, side, c);
    }
}
