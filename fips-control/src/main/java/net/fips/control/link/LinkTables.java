package net.fips.control.link;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import net.fips.control.identity.PeerIdentity;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The link layer's shared bookkeeping, owned by {@link LinkConductor} and handed to its helpers
 * ({@link Handshakes}, {@link Maintenance}, {@link Announces}, {@link Redials}): the control clock, the counters, the
 * "snapshot is stale" flag, the established peers (by node address and by link id), our dials waiting for msg2, our
 * rekeys waiting for msg2 (both by transport and index), and the node-wide index allocator. The helpers reach it
 * only through these methods. Control thread only.
 */
final class LinkTables {
    private final Map<NodeAddr, PeerLink> peers = new HashMap<>();
    private final Map<Long, PeerLink> peersByLink = new HashMap<>();
    /** Dials by (transport, our index): msg2 matching. */
    private final Map<Long, OutboundHandshake> dials = new LinkedHashMap<>();
    /** Own rekeys by (transport, rekey index): rekey msg2 matching. */
    private final Map<Long, PeerLink> rekeys = new HashMap<>();
    private final IndexAllocator indices;
    private final long[] counters = new long[LinkCounter.values().length];
    private long now;
    private long nextLinkId = 1;
    private boolean dirty = true;

    LinkTables(final Random random, final long nowNanos) {
        this.indices = new IndexAllocator(random);
        this.now = nowNanos;
    }

    /** @return the (transport, index) key of the dial and rekey tables */
    static long key(final int transportId, final int index) {
        return ((long) transportId << 32) | Integer.toUnsignedLong(index);
    }

    // Clock, counters, publication

    /** @return the control clock: the latest time the conductor was given */
    long now() {
        return now;
    }

    /** Moves the clock forward; an older reading (another thread's clock) is ignored. */
    void advance(final long nowNanos) {
        if (nowNanos - now > 0) {
            now = nowNanos;
        }
    }

    void count(final LinkCounter c) {
        counters[c.ordinal()]++;
    }

    /** @return the live counter array (the snapshot copies it) */
    long[] counters() {
        return counters;
    }

    /** The published snapshot no longer matches the state. */
    void markDirty() {
        dirty = true;
    }

    /** @return whether the snapshot was stale, clearing the flag */
    boolean takeDirty() {
        final boolean d = dirty;
        dirty = false;
        return d;
    }

    long newLinkId() {
        return nextLinkId++;
    }

    // Indices

    /** @return a fresh index as an unsigned value, or -1 when none could be drawn */
    long allocateIndex() {
        return indices.allocate();
    }

    void freeIndex(final int index) {
        indices.free(index);
    }

    /** @return indices in use (tests) */
    int indicesInUse() {
        return indices.size();
    }

    // Established peers

    /** @return the established peer with {@code addr}, or null */
    PeerLink peer(final NodeAddr addr) {
        return peers.get(addr);
    }

    /** @return the established peer on data-plane link {@code linkId}, or null */
    PeerLink peerByLink(final long linkId) {
        return peersByLink.get(linkId);
    }

    int peerCount() {
        return peers.size();
    }

    /** @return a live, read-only view of the established peers (do not add or remove while iterating) */
    Collection<PeerLink> peers() {
        return Collections.unmodifiableCollection(peers.values());
    }

    /** @return a copy of the established peers, safe to iterate while removing */
    List<PeerLink> peersCopy() {
        return new ArrayList<>(peers.values());
    }

    void addPeer(final PeerLink link) {
        peers.put(link.nodeAddr, link);
        peersByLink.put(link.linkId, link);
    }

    /** @return false when {@code link} is not the established peer of its address */
    boolean removePeer(final PeerLink link) {
        if (peers.get(link.nodeAddr) != link) {
            return false;
        }
        peers.remove(link.nodeAddr);
        peersByLink.remove(link.linkId);
        return true;
    }

    /** {@code link} moved from data-plane link {@code oldLinkId} to its current {@code linkId}. */
    void relink(final PeerLink link, final long oldLinkId) {
        peersByLink.remove(oldLinkId);
        peersByLink.put(link.linkId, link);
    }

    // Our dials

    OutboundHandshake dial(final long key) {
        return dials.get(key);
    }

    void addDial(final OutboundHandshake ob) {
        dials.put(key(ob.transportId, ob.ourIndex), ob);
    }

    /** Forgets the dial and frees its index. */
    void dropDial(final OutboundHandshake ob) {
        dials.remove(key(ob.transportId, ob.ourIndex));
        indices.free(ob.ourIndex);
    }

    /** Forgets the dial, keeping its index (the link adopts it). */
    void completeDial(final OutboundHandshake ob) {
        dials.remove(key(ob.transportId, ob.ourIndex));
    }

    int dialCount() {
        return dials.size();
    }

    /** @return a live, read-only view of the dials in the order they started */
    Collection<OutboundHandshake> dials() {
        return Collections.unmodifiableCollection(dials.values());
    }

    /** @return whether one of our dials to {@code peer} is pending */
    boolean dialling(final PeerIdentity peer) {
        for (final OutboundHandshake ob : dials.values()) {
            if (ob.peer.equals(peer)) {
                return true;
            }
        }
        return false;
    }

    /** @return whether one of our dials to {@code addr} is pending */
    boolean dialling(final NodeAddr addr) {
        for (final OutboundHandshake ob : dials.values()) {
            if (ob.peer.nodeAddr().equals(addr)) {
                return true;
            }
        }
        return false;
    }

    // Our rekeys

    PeerLink rekeying(final long key) {
        return rekeys.get(key);
    }

    void addRekey(final PeerLink peer) {
        rekeys.put(key(peer.transportId, peer.rekeyOurIndex), peer);
    }

    void removeRekey(final PeerLink peer) {
        rekeys.remove(key(peer.transportId, peer.rekeyOurIndex));
    }
}
