package net.fips.control.bloom;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.FilterAnnounce;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.WireResult;

/**
 * One node's bloom-filter state and logic (routing-session.md §2), matching the reference's {@code bloom/state.rs}
 * and {@code node/bloom.rs}.
 *
 * <p>Per active peer: its last accepted inbound filter and sequence, the filter last sent to it with the send time,
 * and an "update needed" flag. What each peer Q gets is {@code {own} ∪ leaf dependents ∪ inbound(T)} for every tree
 * peer T ≠ Q (split horizon, tree-only merge); "tree peer" is read from the spanning tree through the injected
 * predicate. Filters go out only from {@link #tick}, at most once per peer per debounce interval, each with the next
 * value of one node-wide sequence counter. That counter is seeded by the caller (the wall clock in Unix
 * milliseconds, routing-session §10.1), not 0 as in the reference.
 *
 * <p>{@code node.leaf_only}: in v0.4.1 the flag is only recorded and reported ({@code show_bloom.is_leaf_only}); the
 * reference changes no filter behaviour with it, and neither does this class. Leaf dependents (none in v0.4.1) have
 * {@link #addLeafDependent} / {@link #removeLeafDependent} as the hook.
 *
 * <p>Single control thread, not thread-safe; no threads, no static mutable state.
 */
public final class BloomRouting {
    private static final System.Logger LOG = System.getLogger(BloomRouting.class.getName());

    private static final class Peer {
        final NodeAddr addr;
        BloomFilter inbound;
        long inboundSequence;
        BloomFilter lastSent;
        boolean sentOnce;
        long lastSentNanos;
        boolean pending;

        Peer(final NodeAddr addr) {
            this.addr = addr;
        }
    }

    private final NodeAddr me;
    private final BloomConfig config;
    private final Predicate<NodeAddr> isTreePeer;
    private final Supplier<NodeAddr> parentOrNull;
    private final BloomEffects effects;
    private final boolean leafOnly;
    private final Map<NodeAddr, Peer> peers = new LinkedHashMap<>();
    private final Set<NodeAddr> leafDependents = new LinkedHashSet<>();
    private final long[] counters = new long[BloomCounter.values().length];
    private BloomFilter base;
    private long sequence;
    private boolean warnedOwnFpr;
    private long lastOwnFprWarnNanos;
    private long ownFprWarnings;
    private OptionalLong meshSize = OptionalLong.empty();

    /**
     * @param me              this node's address
     * @param config          tunables
     * @param isTreePeer      the spanning tree's "parent or child" test ({@code SpanningTree::isTreePeer})
     * @param parentOrNull    our parent, null when root ({@code SpanningTree::parentOrNull})
     * @param effects         sends FilterAnnounces
     * @param initialSequence the sequence counter's start; the first announce carries {@code initialSequence + 1}
     *                        (pass the wall clock in Unix milliseconds)
     * @param leafOnly        {@code node.leaf_only} (reported only)
     */
    public BloomRouting(final NodeAddr me, final BloomConfig config, final Predicate<NodeAddr> isTreePeer,
            final Supplier<NodeAddr> parentOrNull, final BloomEffects effects, final long initialSequence,
            final boolean leafOnly) {
        this.me = Objects.requireNonNull(me, "me");
        this.config = Objects.requireNonNull(config, "config");
        this.isTreePeer = Objects.requireNonNull(isTreePeer, "isTreePeer");
        this.parentOrNull = Objects.requireNonNull(parentOrNull, "parentOrNull");
        this.effects = Objects.requireNonNull(effects, "effects");
        this.sequence = initialSequence;
        this.leafOnly = leafOnly;
        rebuildBase();
    }

    private void rebuildBase() {
        final BloomFilter f = BloomFilter.create();
        f.insert(me);
        for (final NodeAddr d : leafDependents) {
            f.insert(d);
        }
        base = f;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Peer lifecycle and marking

    /**
     * A link to {@code peer} was promoted: it needs our filter (sent from the next tick).
     *
     * @param peer the peer
     */
    public void addPeer(final NodeAddr peer) {
        peers.computeIfAbsent(Objects.requireNonNull(peer, "peer"), Peer::new).pending = true;
    }

    /**
     * The link to {@code peer} is gone: drops its inbound filter, sequence and send state, and marks every remaining
     * peer for an update.
     *
     * @param peer the peer
     */
    public void removePeer(final NodeAddr peer) {
        peers.remove(peer);
        markAllUpdatesNeeded();
    }

    /**
     * @param peer a peer that needs our filter
     */
    public void markUpdateNeeded(final NodeAddr peer) {
        final Peer p = peers.get(peer);
        if (p != null) {
            p.pending = true;
        }
    }

    /** Every peer needs our filter (parent change, became root, peer removed). */
    public void markAllUpdatesNeeded() {
        for (final Peer p : peers.values()) {
            p.pending = true;
        }
    }

    /**
     * Changed-only marking: every peer other than {@code exclude} whose freshly computed outgoing filter differs from
     * the one last sent to it (or that never got one) is marked.
     *
     * @param exclude the peer that triggered it (may be null)
     */
    public void markChangedPeers(final NodeAddr exclude) {
        for (final Peer p : peers.values()) {
            if (p.addr.equals(exclude)) {
                continue;
            }
            if (p.lastSent == null || !p.lastSent.equals(outgoingFilter(p.addr))) {
                p.pending = true;
            }
        }
    }

    /**
     * Adds a leaf dependent to what we advertise (hook; v0.4.1 has none) and marks changed peers.
     *
     * @param dependent the leaf node
     */
    public void addLeafDependent(final NodeAddr dependent) {
        if (leafDependents.add(Objects.requireNonNull(dependent, "dependent"))) {
            rebuildBase();
            markChangedPeers(null);
        }
    }

    /**
     * @param dependent a leaf node
     * @return true when it was a dependent
     */
    public boolean removeLeafDependent(final NodeAddr dependent) {
        if (leafDependents.remove(dependent)) {
            rebuildBase();
            markChangedPeers(null);
            return true;
        }
        return false;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Receive

    /**
     * Decodes and processes one FilterAnnounce link message (from its msg_type byte).
     *
     * @param from     the authenticated link peer
     * @param msg      the message
     * @param nowNanos monotonic now
     * @return the outcome
     */
    public FilterOutcome onFilterAnnounce(final NodeAddr from, final byte[] msg, final long nowNanos) {
        final WireResult<FilterAnnounce> r = FilterAnnounce.decode(msg, 0, msg.length);
        if (!(r instanceof WireResult.Ok<FilterAnnounce>(final FilterAnnounce fa))) {
            count(BloomCounter.RECEIVED);
            // The codec refuses non-v1 size classes itself; tell them apart from garbage for the counters.
            final int sizeClass = msg.length >= FilterAnnounce.HEADER_SIZE ? msg[10] & 0xFF : -1;
            if (sizeClass >= 0 && sizeClass <= FilterAnnounce.MAX_SIZE_CLASS
                    && sizeClass != FilterAnnounce.V1_SIZE_CLASS
                    && msg.length == FilterAnnounce.HEADER_SIZE + FilterAnnounce.filterBytes(sizeClass)
                    && (msg[9] & 0xFF) != 0) {
                count(BloomCounter.NON_V1);
                LOG.log(System.Logger.Level.DEBUG, "Non-v1 FilterAnnounce from {0} (size_class {1})", from,
                        sizeClass);
                return FilterOutcome.NON_V1;
            }
            count(BloomCounter.DECODE_ERROR);
            LOG.log(System.Logger.Level.DEBUG, "Malformed FilterAnnounce from {0}: {1}", from, r.errorOrNull());
            return FilterOutcome.DECODE_ERROR;
        }
        return onFilterAnnounce(from, fa, nowNanos);
    }

    /**
     * Processes one decoded FilterAnnounce (§2.5): peer check, freshness, anti-poison cap, store, changed-only
     * marking of the other peers.
     *
     * @param from     the authenticated link peer
     * @param fa       the announce
     * @param nowNanos monotonic now
     * @return the outcome
     */
    public FilterOutcome onFilterAnnounce(final NodeAddr from, final FilterAnnounce fa, final long nowNanos) {
        count(BloomCounter.RECEIVED);
        if (!fa.isV1()) {
            count(BloomCounter.NON_V1);
            return FilterOutcome.NON_V1;
        }
        final Peer p = peers.get(from);
        if (p == null) {
            count(BloomCounter.UNKNOWN_PEER);
            LOG.log(System.Logger.Level.DEBUG, "FilterAnnounce from unknown peer {0}", from);
            return FilterOutcome.UNKNOWN_PEER;
        }
        if (Long.compareUnsigned(fa.sequence(), p.inboundSequence) <= 0) {
            count(BloomCounter.STALE);
            LOG.log(System.Logger.Level.DEBUG, "Stale FilterAnnounce from {0}: seq {1} <= {2}", from,
                    Long.toUnsignedString(fa.sequence()), Long.toUnsignedString(p.inboundSequence));
            return FilterOutcome.STALE;
        }
        final BloomFilter f = fa.filter();
        final double fill = f.fillRatio();
        final double fpr = Math.pow(fill, f.hashCount());
        if (fpr > config.maxInboundFpr()) {
            count(BloomCounter.FILL_EXCEEDED);
            LOG.log(System.Logger.Level.WARNING,
                    "FilterAnnounce from {0} above FPR cap, rejected: seq {1}, fill {2}, fpr {3}, cap {4}", from,
                    Long.toUnsignedString(fa.sequence()), fill, fpr, config.maxInboundFpr());
            return FilterOutcome.FILL_EXCEEDED;
        }
        count(BloomCounter.ACCEPTED);
        LOG.log(System.Logger.Level.DEBUG, "Received FilterAnnounce from {0}: seq {1}, set bits {2}, tree peer {3}",
                from, Long.toUnsignedString(fa.sequence()), f.countOnes(), isTreePeer.test(from));
        p.inbound = f;
        p.inboundSequence = fa.sequence();
        markChangedPeers(from);
        return FilterOutcome.ACCEPTED;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Tick

    /**
     * Once per control tick (after the tree's): sends a freshly built filter to every pending peer whose debounce
     * has passed, then refreshes the mesh-size estimate.
     *
     * @param nowNanos monotonic now
     */
    public void tick(final long nowNanos) {
        for (final Peer p : List.copyOf(peers.values())) {
            if (!p.pending) {
                continue;
            }
            if (p.sentOnce && nowNanos - p.lastSentNanos < config.updateDebounceNanos()) {
                continue;
            }
            send(p, nowNanos);
        }
        meshSize = computeMeshSize();
    }

    private void send(final Peer p, final long nowNanos) {
        final BloomFilter f = outgoingFilter(p.addr);
        final FilterAnnounce fa = FilterAnnounce.v1(++sequence, f);
        if (!effects.sendFilterAnnounce(p.addr, fa)) {
            count(BloomCounter.SEND_FAILED);
            return;
        }
        count(BloomCounter.SENT);
        final double fill = f.fillRatio();
        final double fpr = Math.pow(fill, f.hashCount());
        if (fpr > config.maxInboundFpr()
                && (!warnedOwnFpr || nowNanos - lastOwnFprWarnNanos >= config.ownFprWarnIntervalNanos())) {
            warnedOwnFpr = true;
            lastOwnFprWarnNanos = nowNanos;
            ownFprWarnings++;
            LOG.log(System.Logger.Level.WARNING,
                    "Outgoing filter to {0} above FPR cap (fill {1}, fpr {2}, cap {3}): aggregation drift?", p.addr,
                    fill, fpr, config.maxInboundFpr());
        }
        LOG.log(System.Logger.Level.DEBUG, "Sent FilterAnnounce to {0}: seq {1}, set bits {2}, tree peer {3}",
                p.addr, Long.toUnsignedString(sequence), f.countOnes(), isTreePeer.test(p.addr));
        p.sentOnce = true;
        p.lastSentNanos = nowNanos;
        p.lastSent = f;
        p.pending = false;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Filters

    /**
     * The filter we would send to {@code peer} now: own address, leaf dependents, and the inbound filters of every
     * tree peer other than {@code peer}.
     *
     * @param peer the destination peer
     * @return a new filter
     */
    public BloomFilter outgoingFilter(final NodeAddr peer) {
        final BloomFilter f = base.copy();
        for (final Peer t : peers.values()) {
            if (t.inbound != null && !t.addr.equals(peer) && isTreePeer.test(t.addr)
                    && t.inbound.numBytes() == f.numBytes()) {
                f.merge(t.inbound);
            }
        }
        return f;
    }

    /**
     * Routing test: may {@code dest} be reachable through {@code peer} by its filter (false positives possible)?
     *
     * @param peer a peer
     * @param dest a destination
     * @return true when the peer's inbound filter contains {@code dest}
     */
    public boolean mayReach(final NodeAddr peer, final NodeAddr dest) {
        final Peer p = peers.get(peer);
        return p != null && p.inbound != null && p.inbound.contains(dest);
    }

    /**
     * @param peer a peer
     * @return a copy of its inbound filter, or null
     */
    public BloomFilter inboundFilter(final NodeAddr peer) {
        final Peer p = peers.get(peer);
        return p == null || p.inbound == null ? null : p.inbound.copy();
    }

    /**
     * @param peer a peer
     * @return its last accepted filter sequence (0 before any)
     */
    public long inboundSequence(final NodeAddr peer) {
        final Peer p = peers.get(peer);
        return p == null ? 0 : p.inboundSequence;
    }

    /**
     * @param peer a peer
     * @return a copy of the filter last sent to it, or null
     */
    public BloomFilter lastSentFilter(final NodeAddr peer) {
        final Peer p = peers.get(peer);
        return p == null || p.lastSent == null ? null : p.lastSent.copy();
    }

    /**
     * @param peer a peer
     * @return true when it waits for a FilterAnnounce
     */
    public boolean isUpdatePending(final NodeAddr peer) {
        final Peer p = peers.get(peer);
        return p != null && p.pending;
    }

    /**
     * The mesh-size estimate of the last tick (§2.7): the OR of every peer's inbound filter plus our address,
     * estimated once under the FPR cap; empty when no peer has a filter or the union is over the cap.
     *
     * @return the rounded estimate
     */
    public OptionalLong estimatedMeshSize() {
        return meshSize;
    }

    private OptionalLong computeMeshSize() {
        BloomFilter union = null;
        for (final Peer p : peers.values()) {
            if (p.inbound == null) {
                continue;
            }
            if (union == null) {
                union = p.inbound.copy();
            } else if (union.numBytes() == p.inbound.numBytes()) {
                union.merge(p.inbound);
            }
        }
        if (union == null) {
            return OptionalLong.empty();
        }
        union.insert(me);
        final double n = union.estimatedCount(config.maxInboundFpr());
        return Double.isNaN(n) ? OptionalLong.empty() : OptionalLong.of(Math.round(n));
    }

    private void count(final BloomCounter c) {
        counters[c.ordinal()]++;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Read accessors

    /** @return this node's address */
    public NodeAddr nodeAddr() {
        return me;
    }

    /** @return {@code node.leaf_only} */
    public boolean isLeafOnly() {
        return leafOnly;
    }

    /** @return the node-wide sequence (value of the last announce built) */
    public long sequence() {
        return sequence;
    }

    /**
     * @param c a counter
     * @return its value
     */
    public long counter(final BloomCounter c) {
        return counters[c.ordinal()];
    }

    /** @return how many times the own-filter-over-cap warning was logged (at most once per interval) */
    public long ownFilterFprWarnings() {
        return ownFprWarnings;
    }

    /** @return the active peers, in insertion order */
    public List<NodeAddr> peers() {
        return List.copyOf(peers.keySet());
    }

    /** @return an immutable view for {@code show_bloom} */
    public BloomSnapshot snapshot() {
        final List<BloomSnapshot.PeerFilter> pf = new ArrayList<>(peers.size());
        for (final Peer p : peers.values()) {
            if (p.inbound == null) {
                pf.add(new BloomSnapshot.PeerFilter(p.addr, false, p.inboundSequence, null, null, null));
            } else {
                pf.add(new BloomSnapshot.PeerFilter(p.addr, true, p.inboundSequence,
                        orNull(p.inbound.estimatedCount(config.maxInboundFpr())), p.inbound.countOnes(),
                        p.inbound.fillRatio()));
            }
        }
        Double upFill = null;
        Double upCount = null;
        final NodeAddr parent = parentOrNull.get();
        if (parent != null) {
            final Peer p = peers.get(parent);
            if (p != null && p.lastSent != null) {
                upFill = p.lastSent.fillRatio();
                upCount = orNull(p.lastSent.estimatedCount(config.maxInboundFpr()));
            }
        }
        final Map<String, Long> stats = new LinkedHashMap<>();
        for (final BloomCounter c : BloomCounter.values()) {
            stats.put(c.key(), counters[c.ordinal()]);
        }
        return new BloomSnapshot(me, leafOnly, sequence, List.copyOf(leafDependents), List.copyOf(pf), upFill,
                upCount, Collections.unmodifiableMap(stats));
    }

    private static Double orNull(final double v) {
        return Double.isNaN(v) ? null : v;
    }
}
