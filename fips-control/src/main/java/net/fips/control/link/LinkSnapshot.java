package net.fips.control.link;

import java.util.List;

/**
 * An immutable picture of the link layer, published by the control thread after every change and every tick so any
 * thread can read it without locking.
 *
 * @param takenAtNanos     the control clock when it was taken
 * @param peers            established peers, sorted by node_addr
 * @param pendingOutbound  dials waiting for msg2
 * @param dials            those dials, oldest first
 * @param pendingRetries   peers with a scheduled reconnect
 * @param counters         counter values indexed by {@link LinkCounter#ordinal()}
 * @param retries          those scheduled reconnects
 */
public record LinkSnapshot(long takenAtNanos, List<PeerSnapshot> peers, int pendingOutbound,
                           List<DialSnapshot> dials, int pendingRetries, long[] counters, List<RetrySnapshot> retries) {

    /** Copies the lists. */
    public LinkSnapshot {
        peers = List.copyOf(peers);
        dials = List.copyOf(dials);
        retries = List.copyOf(retries);
        counters = counters.clone();
    }

    /** @return a copy of the counters */
    @Override
    public long[] counters() {
        return counters.clone();
    }

    /**
     * @param counter which
     * @return its value when the snapshot was taken
     */
    public long counter(final LinkCounter counter) {
        return counters[counter.ordinal()];
    }

    /**
     * @param npub a peer's npub
     * @return that peer, or null
     */
    public PeerSnapshot peer(final String npub) {
        for (final PeerSnapshot p : peers) {
            if (p.npub().equals(npub)) {
                return p;
            }
        }
        return null;
    }
}
