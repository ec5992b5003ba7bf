package net.fips.control.session;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

import net.fips.dataplane.wire.NodeAddr;

/**
 * The packets waiting for an FSP session, per destination (routing-session §5.1): at most
 * {@link SessionConfig#queuePerDestination()} each (the oldest dropped first) for at most
 * {@link SessionConfig#maxQueuedDestinations()} destinations. Flushed when the session is established, discarded
 * when the handshake fails or discovery gives up. Owned by {@link Sessions}; control thread only.
 */
final class PendingPackets {
    private final SessionContext ctx;
    private final LinkedHashMap<NodeAddr, ArrayDeque<byte[]>> queued = new LinkedHashMap<>();

    PendingPackets(final SessionContext ctx) {
        this.ctx = ctx;
    }

    /** @return false when the destination table is full (counted; the packet is dropped) */
    boolean enqueue(final NodeAddr dest, final byte[] packet) {
        ArrayDeque<byte[]> q = queued.get(dest);
        if (q == null) {
            if (queued.size() >= ctx.config.maxQueuedDestinations()) {
                ctx.count(SessionCounter.QUEUE_DESTINATIONS_FULL);
                return false;
            }
            q = new ArrayDeque<>();
            queued.put(dest, q);
        }
        if (q.size() >= ctx.config.queuePerDestination()) {
            q.pollFirst();
            ctx.count(SessionCounter.QUEUE_OVERFLOW);
        }
        q.addLast(packet);
        ctx.count(SessionCounter.PACKETS_QUEUED);
        return true;
    }

    /** @return the packets queued for {@code dest}, oldest first, now removed (empty when none) */
    List<byte[]> take(final NodeAddr dest) {
        final ArrayDeque<byte[]> q = queued.remove(dest);
        return q == null ? List.of() : new ArrayList<>(q);
    }

    /** Drops the packets queued for {@code dest}, counted as discarded. */
    void discard(final NodeAddr dest) {
        final ArrayDeque<byte[]> q = queued.remove(dest);
        if (q != null) {
            ctx.count(SessionCounter.QUEUE_DISCARDED, q.size());
        }
    }

    /** @return whether packets are queued for {@code dest} */
    boolean has(final NodeAddr dest) {
        return queued.containsKey(dest);
    }

    /** @return packets queued for {@code dest} */
    int count(final NodeAddr dest) {
        final ArrayDeque<byte[]> q = queued.get(dest);
        return q == null ? 0 : q.size();
    }

    /** @return destinations with queued packets */
    int destinations() {
        return queued.size();
    }

    /** @return packets queued for all destinations together */
    long packets() {
        long n = 0;
        for (final ArrayDeque<byte[]> q : queued.values()) {
            n += q.size();
        }
        return n;
    }
}
