package net.fips.control.node;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

import net.fips.control.config.FipsConfig;
import net.fips.control.config.UdpConfig;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.link.DialSnapshot;
import net.fips.control.link.LinkConductor;
import net.fips.control.link.LinkSnapshot;
import net.fips.control.link.PeerSnapshot;
import net.fips.control.nat.NatAdopter;
import net.fips.control.nat.PunchFailure;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportTypes;
import net.fips.dataplane.udp.TraversalSocket;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The adoption slots of NAT traversal (discovery-gateway.md §2.6, ADR 0046): with {@code node.discovery.nostr}
 * enabled, {@link #SLOTS} UDP transports named {@code nostr-nat} whose descriptors wait, vacant, for punched sockets.
 * They take the ids after every configured transport, as the reference's runtime bootstrap transports do. Settings
 * are inherited as the reference does: the UDP instance named {@code nostr-nat}, else the single unnamed one, else
 * the defaults (MTU, buffers, {@code accept_connections}; never the bind address).
 *
 * <p>{@link Slots#adopt} (any thread) refuses a connected peer, a node at {@code max_peers}, and a peer with a
 * handshake in flight when our node_addr is the higher (the reference's dual cross-init rule, §2.6); else it puts the
 * socket in a vacant slot and queues the dial; the control-loop tick
 * dials it ({@link LinkConductor#connect}: msg1 leaves from the punched socket) and vacates a slot that no peer or
 * dial has used for {@link #IDLE_GRACE_NANOS}, closing the socket. Slots are excluded from dial selection
 * ({@link Transport#bootstrapOnly()}).
 */
final class NatAdoptionFactory implements TransportFactory {
    private static final System.Logger LOG = System.getLogger(NatAdoptionFactory.class.getName());
    /** How many punched sockets can carry links at once. */
    static final int SLOTS = 4;
    /** A slot no peer or dial refers to for this long is vacated. */
    static final long IDLE_GRACE_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** The instance name of adopted transports (the reference's). */
    static final String INSTANCE = "nostr-nat";

    @Override
    public String type() {
        return TransportTypes.UDP;
    }

    @Override
    public Opened open(final FipsConfig cfg, final NodeOptions options) throws NodeStartException {
        if (!cfg.nostr().enabled()) {
            return new Plain(List.of());
        }
        final UdpTransportConfig c = inherited(cfg.udp());
        final List<UdpTransport> out = new ArrayList<>();
        try {
            for (int i = 0; i < SLOTS; i++) {
                out.add(UdpTransport.openAdoptionSlot(c));
            }
        } catch (final IOException | RuntimeException e) {
            out.forEach(Transport::close);
            throw new NodeStartException("cannot open the NAT traversal adoption slots: " + e.getMessage(), false, e);
        }
        return new Slots(out, cfg.node().limits().maxPeers());
    }

    /** @return the settings of adopted sockets: the {@code nostr-nat} UDP config, the single unnamed one, defaults */
    static UdpTransportConfig inherited(final List<UdpConfig> udp) {
        Optional<UdpConfig> pick = udp.stream().filter(u -> u.name().filter(INSTANCE::equals).isPresent())
                .findFirst();
        if (pick.isEmpty()) {
            final List<UdpConfig> unnamed = udp.stream().filter(u -> u.name().isEmpty()).toList();
            pick = unnamed.size() == 1 ? Optional.of(unnamed.get(0)) : Optional.empty();
        }
        final UdpTransportConfig c = new UdpTransportConfig().bindAddress("0.0.0.0:0").reusePort(false)
                .instanceName(INSTANCE);
        pick.ifPresent(u -> c.mtuBytes(u.mtu()).receiveBufferBytes(u.recvBufSize()).sendBufferBytes(u.sendBufSize())
                .acceptConnections(!u.outboundOnly() && u.acceptConnections()));
        return c;
    }

    /** The opened slots: the node's {@link NatAdopter}. */
    static final class Slots implements Opened, NatAdopter {
        private record Dial(PeerIdentity peer, int slot, InetSocketAddress remote) {
        }

        private final List<UdpTransport> slots;
        private final int maxPeers;
        private final long[] lastUsed;
        /** The peer each slot's socket was adopted for, null while vacant (guarded by the slot's transport). */
        private final String[] adoptedFor;
        private final ConcurrentLinkedQueue<Dial> dials = new ConcurrentLinkedQueue<>();
        private volatile int firstId = -1;
        private volatile LinkConductor conductor;
        private volatile NodeAddr self;

        Slots(final List<UdpTransport> slots, final int maxPeers) {
            this.slots = List.copyOf(slots);
            this.maxPeers = maxPeers;
            this.lastUsed = new long[slots.size()];
            this.adoptedFor = new String[slots.size()];
        }

        @Override
        public List<Transport> transports() {
            return List.copyOf(slots);
        }

        @Override
        public LongConsumer attach(final int first, final NodeIdentity identity, final LinkConductor c) {
            this.firstId = first;
            this.self = identity.nodeAddr();
            this.conductor = c;
            return this::tick;
        }

        @Override
        public int adopt(final String npub, final TraversalSocket socket, final InetSocketAddress remote)
                throws PunchFailure {
            final LinkConductor c = conductor;
            if (c == null) {
                throw new PunchFailure("adoption-refused", "the node is not running");
            }
            final PeerIdentity peer;
            try {
                peer = PeerIdentity.parse(npub);
            } catch (final IdentityFormatException e) {
                throw new PunchFailure("adoption-refused", "invalid npub " + npub + ": " + e.getMessage());
            }
            final LinkSnapshot snap = c.snapshot();
            if (snap.peer(npub) != null) {
                throw new PunchFailure("adoption-refused", "peer " + peer.shortNpub() + " is already connected");
            }
            if (snap.peers().size() >= maxPeers) {
                throw new PunchFailure("adoption-refused", "at capacity (max_peers " + maxPeers + ")");
            }
            // A handshake to the peer already in flight (§2.6): the higher node_addr keeps it and drops the socket;
            // the lower adopts (its dial through the slot then meets the peer's crossing one, crypto-link.md §5.9).
            final boolean dialling = snap.dials().stream().anyMatch(d -> d.npub().equals(npub));
            if (dialling && self.compareTo(peer.nodeAddr()) >= 0) {
                throw new PunchFailure("adoption-refused", "a handshake to " + peer.shortNpub()
                        + " is in flight and our node_addr is the higher");
            }
            for (int i = 0; i < slots.size(); i++) {
                final UdpTransport s = slots.get(i);
                synchronized (s) {
                    if (!s.isVacant()) {
                        continue;
                    }
                    try {
                        s.adopt(socket);
                    } catch (final IOException e) {
                        throw new PunchFailure("adoption-failed", e.getMessage());
                    }
                    adoptedFor[i] = npub;
                }
                dials.add(new Dial(peer, i, remote));
                return firstId + i;
            }
            throw new PunchFailure("adoption-refused", "all " + slots.size() + " NAT adoption slots are in use");
        }

        @Override
        public Optional<String> peerOn(final int transportId) {
            final int i = transportId - firstId;
            if (firstId < 0 || i < 0 || i >= slots.size()) {
                return Optional.empty();
            }
            synchronized (slots.get(i)) {
                return Optional.ofNullable(adoptedFor[i]);
            }
        }

        /** Control thread: dials queued adoptions, vacates idle slots. */
        void tick(final long now) {
            final LinkConductor c = conductor;
            for (Dial d = dials.poll(); d != null; d = dials.poll()) {
                lastUsed[d.slot()] = now;
                final LinkConductor.ConnectResult r = c.connect(d.peer(), firstId + d.slot(),
                        TransportAddr.ofInet(d.remote()));
                LOG.log(Level.INFO, "NAT traversal: adopted {0} as transport {1}, dialling {2} at {3}: {4}",
                        slots.get(d.slot()).localAddress(), firstId + d.slot(), d.peer().shortNpub(), d.remote(),
                        r);
            }
            final LinkSnapshot snap = c.snapshot();
            for (int i = 0; i < slots.size(); i++) {
                final UdpTransport s = slots.get(i);
                if (s.isVacant()) {
                    continue;
                }
                if (uses(snap, firstId + i)) {
                    lastUsed[i] = now;
                } else if (now - lastUsed[i] >= IDLE_GRACE_NANOS) {
                    synchronized (s) {
                        try {
                            adoptedFor[i] = null;
                            s.vacate();
                            LOG.log(Level.INFO, "NAT traversal: transport {0} has no link left; closed", firstId + i);
                        } catch (final IOException e) {
                            LOG.log(Level.WARNING, "NAT traversal: cannot close adopted transport {0}: {1}",
                                    firstId + i, e.getMessage());
                        }
                    }
                }
            }
        }

        private static boolean uses(final LinkSnapshot snap, final int id) {
            for (final PeerSnapshot p : snap.peers()) {
                if (p.transportId() == id) {
                    return true;
                }
            }
            for (final DialSnapshot d : snap.dials()) {
                if (d.transportId() == id) {
                    return true;
                }
            }
            return false;
        }
    }
}
