package net.fips.control.node;

import java.lang.System.Logger.Level;
import java.util.Arrays;
import java.util.List;

import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.link.LinkConductor;
import net.fips.dataplane.ethernet.EthernetTransport;
import net.fips.dataplane.transport.DiscoveredPeer;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;

/**
 * Discovery on the media other than Ethernet (transports.md §1.6; today BLE, whose probes end in a pubkey
 * exchange), run on the control thread's tick: each transport's discovered peers are drained; with
 * {@code auto_connect} those with a key hint (not our own, a valid point) are dialled through the normal path, at
 * most {@value #DIALS_PER_TICK} per transport and tick (the conductor ignores peers already linked or being
 * dialled, and the ACL applies as to any dial); without it they are dropped. Ethernet has its own beacon path
 * (the node's {@code EthernetDiscovery}, which drains the same buffer) and is skipped here.
 */
final class MediumDiscovery {
    /** Dials started per transport and tick, at most. */
    static final int DIALS_PER_TICK = 8;
    private static final System.Logger LOG = System.getLogger(MediumDiscovery.class.getName());

    /** The conductor's connect. */
    @FunctionalInterface
    interface Dialer {
        LinkConductor.ConnectResult connect(PeerIdentity peer, int transportId, TransportAddr address);
    }

    private final List<Transport> transports;
    private final byte[] selfKey;
    private final Dialer dialer;
    private long invalidKeys;

    /**
     * @param transports the node's transports, by id
     * @param selfKey    our x-only public key (a peer that reports it is ourselves)
     * @param dialer     the link layer's connect
     */
    MediumDiscovery(final List<Transport> transports, final byte[] selfKey, final Dialer dialer) {
        this.transports = List.copyOf(transports);
        this.selfKey = selfKey.clone();
        this.dialer = dialer;
    }

    /** One tick: drain every transport but Ethernet, dial what auto_connect asks for. */
    void tick(final long now) {
        for (int id = 0; id < transports.size(); id++) {
            final Transport t = transports.get(id);
            if (t instanceof EthernetTransport) {
                continue;
            }
            final List<DiscoveredPeer> found = t.drainDiscovered();
            if (found.isEmpty() || !t.autoConnect()) {
                continue;
            }
            int dials = 0;
            for (final DiscoveredPeer p : found) {
                if (p.xOnlyPubkey() == null || Arrays.equals(p.xOnlyPubkey(), selfKey)) {
                    continue;
                }
                final PeerIdentity peer;
                try {
                    peer = PeerIdentity.fromPublicKey(p.xOnlyPubkey());
                } catch (final IdentityFormatException e) {
                    invalidKeys++;
                    LOG.log(Level.DEBUG, "{0}: the key discovered at {1} is not a valid point; ignored",
                            t.typeName(), p.address());
                    continue;
                }
                if (dials++ >= DIALS_PER_TICK) {
                    break;
                }
                final LinkConductor.ConnectResult r = dialer.connect(peer, id, p.address());
                LOG.log(r == LinkConductor.ConnectResult.STARTED ? Level.INFO : Level.DEBUG,
                        "{0}: discovered {1} at {2}: {3}", t.typeName(), peer.shortNpub(), p.address(), r);
            }
        }
    }

    /** @return discovered keys that were not valid points, so far */
    long invalidKeys() {
        return invalidKeys;
    }
}
