package net.fips.control.link;

import java.util.Random;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.control.crypto.Secp256k1;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;

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

    static NodeIdentity identity(final long seed) {
        final Random r = new Random(seed);
        final byte[] sk = new byte[32];
        do {
            r.nextBytes(sk);
        } while (!Secp256k1.isValidSecret(sk));
        try {
            return NodeIdentity.fromSecret(sk);
        } catch (final IdentityFormatException e) {
            throw new IllegalStateException(e);
        }
    }

    Node node(final String name, final long seed, final LinkConfig config, final PeerFilter filter) {
        return node(name, identity(seed), seed * 31 + 7, config, filter, 2121 + (int) (seed & 0xFF));
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
