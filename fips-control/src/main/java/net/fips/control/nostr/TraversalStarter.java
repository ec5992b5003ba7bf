package net.fips.control.nostr;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicLong;

import net.fips.control.identity.PeerIdentity;

/**
 * Where a dial that needs NAT traversal goes (discovery-gateway.md §1.10-§1.11): the node calls it for a peer whose
 * advert offers only the UDP {@code nat} endpoint. The offer/answer exchange, STUN and punching live behind it;
 * the node's implementation is {@code node.NatTraversal}; {@link #unavailable()} is what is left without one.
 */
@FunctionalInterface
public interface TraversalStarter {
    /**
     * Starts a traversal towards {@code peer} (asynchronously; must not block the control thread).
     *
     * @param peer   the peer
     * @param advert its cached advert (its {@code signalRelays} and {@code stunServers} are set)
     * @return whether an attempt was started (false: not available, or one is in flight already)
     */
    boolean start(PeerIdentity peer, AdvertCache.Cached advert);

    /** @return the default, one per node: no traversal; each call is logged at DEBUG and counted */
    static TraversalStarter unavailable() {
        return new Unavailable();
    }

    /** @return calls refused for lack of a traversal engine ({@link #unavailable()} only; 0 for others) */
    default long unavailableCount() {
        return 0;
    }

    /** The default implementation. */
    final class Unavailable implements TraversalStarter {
        private static final System.Logger LOG = System.getLogger(TraversalStarter.class.getName());
        private final AtomicLong refused = new AtomicLong();

        @Override
        public boolean start(final PeerIdentity peer, final AdvertCache.Cached advert) {
            refused.incrementAndGet();
            LOG.log(Level.DEBUG, "nostr: {0} advertises only a nat endpoint; NAT traversal is not available",
                    peer.shortNpub());
            return false;
        }

        @Override
        public long unavailableCount() {
            return refused.get();
        }
    }
}
