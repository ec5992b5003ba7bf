package net.fips.control.link;

import java.util.LinkedHashMap;
import java.util.Map;

import net.fips.dataplane.wire.NodeAddr;

/**
 * Restarts detected per peer (its startup epoch changed), kept across the peer's links so {@code show_peers} can
 * report them after the link was replaced. Control thread only. Bounded: the {@value #MAX_PEERS} peers that
 * restarted most recently are remembered.
 */
final class PeerRestarts {
    static final int MAX_PEERS = 4096;

    private final Map<NodeAddr, Long> counts = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(final Map.Entry<NodeAddr, Long> eldest) {
            return size() > MAX_PEERS;
        }
    };

    void record(final NodeAddr peer) {
        counts.merge(peer, 1L, Long::sum);
    }

    long of(final NodeAddr peer) {
        final Long n = counts.get(peer);
        return n == null ? 0 : n;
    }
}
