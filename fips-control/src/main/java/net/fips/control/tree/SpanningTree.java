package net.fips.control.tree;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import net.fips.dataplane.wire.CoordEntry;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.TreeAnnounce;
import net.fips.dataplane.wire.WireResult;

/**
 * One node's spanning-tree state and the protocol logic around it (routing-session.md §1), matching the reference's
 * {@code tree/state.rs} and {@code node/tree.rs}.
 *
 * <p>State: our declaration (parent, sequence, timestamp, signature), our coordinate (self → root) and, per active
 * peer, its last accepted declaration with ancestry (which is also its stored sequence), its last seen announce, its
 * link cost once MMP has an RTT sample, and the per-peer announce limiter.
 *
 * <p>Driving it: {@link #addPeer} on link promotion, {@link #removePeer} on link loss, {@link #onTreeAnnounce} for
 * each inbound TreeAnnounce, {@link #onLinkCost} on each MMP cost update, and {@link #tick} once per control tick
 * (before the bloom tick). Time is {@code nowNanos} of a monotonic clock passed to every call, plus the injected
 * {@link WallClock} for declaration timestamps. The initial sequence is the wall clock in Unix milliseconds (not 1 as
 * in the reference), so a restarted node is always fresher than what its neighbours remember (routing-session §10.1).
 *
 * <p>Single control thread, not thread-safe; no threads, no static mutable state.
 */
public final class SpanningTree {
    private static final System.Logger LOG = System.getLogger(SpanningTree.class.getName());

    private static final class Peer {
        final NodeAddr addr;
        byte[] publicKey;
        /** Last accepted declaration (the stored sequence); null until one is accepted. */
        TreeAnnounce declaration;
        /** Last valid announce seen, even when stale (display copy). */
        TreeAnnounce lastSeen;
        boolean hasCost;
        double cost = Double.NaN;
        /** The link stopped answering while we sent (fast failover): never a parent candidate until it answers. */
        boolean suspect;
        boolean announceSent;
        long lastAnnounceNanos;
        boolean announcePending;

        Peer(final NodeAddr addr, final byte[] publicKey) {
            this.addr = addr;
            this.publicKey = publicKey;
        }

        boolean containsInAncestry(final NodeAddr a) {
            for (final CoordEntry e : declaration.ancestry()) {
                if (e.nodeAddr().equals(a)) {
                    return true;
                }
            }
            return false;
        }
    }

    private final NodeAddr me;
    private final TreeConfig config;
    private final TreeSigner signer;
    private final SignatureVerifier verifier;
    private final WallClock wallClock;
    private final TreeEffects effects;
    private final Map<NodeAddr, Peer> peers = new LinkedHashMap<>();
    private final long[] counters = new long[TreeCounter.values().length];

    // Our declaration.
    private NodeAddr parent;
    private long sequence;
    private long timestamp;
    private byte[] signature;
    private TreeAnnounce ownAnnounce;
    // Our coordinate.
    private List<CoordEntry> coords;
    private NodeAddr root;

    // Parent-switch accounting.
    private boolean hasLastParentSwitch;
    private long lastParentSwitchNanos;
    private int flapCount;
    private boolean hasFlapWindow;
    private long flapWindowStartNanos;
    private boolean hasDampening;
    private long dampeningUntilNanos;
    private boolean hasLastReeval;
    private long lastReevalNanos;

    /**
     * Starts as self-root with sequence = the wall clock in Unix milliseconds, signed at once.
     *
     * @param me        this node's address
     * @param config    tunables
     * @param signer    signs our declaration
     * @param verifier  verifies peers' declarations
     * @param wallClock Unix time for timestamps and the sequence seed
     * @param effects   outward actions
     */
    public SpanningTree(final NodeAddr me, final TreeConfig config, final TreeSigner signer,
            final SignatureVerifier verifier, final WallClock wallClock, final TreeEffects effects) {
        this.me = Objects.requireNonNull(me, "me");
        this.config = Objects.requireNonNull(config, "config");
        this.signer = Objects.requireNonNull(signer, "signer");
        this.verifier = Objects.requireNonNull(verifier, "verifier");
        this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
        this.effects = Objects.requireNonNull(effects, "effects");
        this.parent = me;
        this.sequence = Math.max(1L, wallClock.unixMillis());
        this.timestamp = wallClock.unixSeconds();
        this.root = me;
        this.coords = List.of(new CoordEntry(me, sequence, timestamp));
        sign();
    }

    // ------------------------------------------------------------------------------------------------------------
    // Peer lifecycle

    /**
     * A link to {@code peer} was promoted (new peer, reconnection, cross-connection winner): registers it and sends
     * our TreeAnnounce to it at once (a new link has no limiter history). A peer already known keeps its stored
     * declaration, as the reference's re-promotion does.
     *
     * @param peer          the peer's address
     * @param xOnlyPublicKey its 32-byte x-only static key (copied)
     * @param nowNanos      monotonic now
     */
    public void addPeer(final NodeAddr peer, final byte[] xOnlyPublicKey, final long nowNanos) {
        Objects.requireNonNull(peer, "peer");
        Peer p = peers.get(peer);
        if (p == null) {
            p = new Peer(peer, xOnlyPublicKey.clone());
            peers.put(peer, p);
        } else {
            p.publicKey = xOnlyPublicKey.clone();
        }
        p.announceSent = false;
        p.announcePending = false;
        sendTo(p, nowNanos);
    }

    /**
     * The link to {@code peer} is gone: forgets its declaration and stored sequence; if it was our parent, picks
     * another parent or becomes root (sequence + 1), re-signs, invalidates the coordinate cache and marks every
     * remaining peer pending (sent from the next {@link #tick}).
     *
     * @param peer     the peer
     * @param nowNanos monotonic now
     * @return true when our own declaration changed
     */
    public boolean removePeer(final NodeAddr peer, final long nowNanos) {
        final boolean wasParent = !isRoot() && parent.equals(peer);
        if (peers.remove(peer) == null) {
            return false;
        }
        if (!wasParent) {
            return false;
        }
        onParentLost(nowNanos);
        return true;
    }

    /**
     * The link to {@code peer} stopped answering while we sent over it (suspect), or answers again: a suspect peer
     * stays a peer (its declaration is kept) but is no parent candidate, and when it was our parent we re-parent at
     * once, as on its removal (and tell the peers at once rather than on the next tick); when it answers again the
     * parent is re-evaluated. Nothing goes on the wire but the TreeAnnounces any parent change sends.
     *
     * @return true when our own declaration changed
     */
    public boolean setSuspect(final NodeAddr peer, final boolean suspect, final long nowNanos) {
        final Peer p = peers.get(peer);
        if (p == null || p.suspect == suspect) {
            return false;
        }
        p.suspect = suspect;
        if (!suspect) {
            return evaluateAndApply("peer-answers-again", nowNanos);
        }
        if (isRoot() || !parent.equals(peer)) {
            return false;
        }
        onParentLost(nowNanos);
        // At once rather than on the next tick (as after a removal): the peers behind the new parent learn the new
        // path a tick sooner (the per-peer limiter still applies).
        sendToAll(nowNanos);
        return true;
    }

    /** Our parent was removed or became suspect: re-parent (or self-root) and tell every peer. */
    private void onParentLost(final long nowNanos) {
        count(TreeCounter.PARENT_LOSSES);
        final NodeAddr oldParent = parent;
        final NodeAddr oldRoot = root;
        handleParentLost(nowNanos);
        if (!sign()) {
            // The reference still reports a change here; peers get our unsigned state never (it is not sendable).
            LOG.log(System.Logger.Level.WARNING, "Failed to sign declaration after parent loss");
        }
        effects.invalidateViaNode(me);
        effects.invalidateOtherRoots(root);
        LOG.log(System.Logger.Level.INFO, "Tree state updated after parent loss: root {0}, is_root {1}{2}", root,
                isRoot(), isRoot() && !oldRoot.equals(me) ? " (partitioned from " + oldRoot + ")" : "");
        for (final Peer p : peers.values()) {
            p.announcePending = true;
        }
        effects.onPositionChanged(oldParent, parent, oldRoot, root);
    }

    /**
     * An MMP link-cost update for {@code peer}: {@code etx × (1 + srtt_ms / 100)}, see
     * {@link TreeCoordinates#linkCost}. The first one for a peer makes it eligible as a parent and re-evaluates the
     * parent at once (branches A/B of §1.3; no branch C).
     *
     * @param peer     the peer
     * @param cost     its link cost
     * @param nowNanos monotonic now
     */
    public void onLinkCost(final NodeAddr peer, final double cost, final long nowNanos) {
        final Peer p = peers.get(peer);
        if (p == null || Double.isNaN(cost)) {
            return;
        }
        final boolean first = !p.hasCost;
        p.hasCost = true;
        p.cost = cost;
        if (first) {
            evaluateAndApply("first-rtt", nowNanos);
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Receive

    /**
     * Decodes and processes one TreeAnnounce link message (starting at its msg_type byte).
     *
     * @param from     the authenticated link peer
     * @param msg      the link message
     * @param nowNanos monotonic now
     * @return the outcome
     */
    public TreeAnnounceOutcome onTreeAnnounce(final NodeAddr from, final byte[] msg, final long nowNanos) {
        final WireResult<TreeAnnounce> r = TreeAnnounce.decode(msg, 0, msg.length);
        if (!(r instanceof WireResult.Ok<TreeAnnounce>(final TreeAnnounce ta))) {
            count(TreeCounter.RECEIVED);
            count(TreeCounter.DECODE_ERROR);
            LOG.log(System.Logger.Level.DEBUG, "Malformed TreeAnnounce from {0}: {1}", from, r.errorOrNull());
            return TreeAnnounceOutcome.DECODE_ERROR;
        }
        return onTreeAnnounce(from, ta, nowNanos);
    }

    /**
     * Processes one decoded TreeAnnounce in the reference's order (§1.3 steps 2-8).
     *
     * @param from     the authenticated link peer
     * @param ta       the announce
     * @param nowNanos monotonic now
     * @return the outcome
     */
    public TreeAnnounceOutcome onTreeAnnounce(final NodeAddr from, final TreeAnnounce ta, final long nowNanos) {
        count(TreeCounter.RECEIVED);
        final Peer p = peers.get(from);
        if (p == null) {
            count(TreeCounter.UNKNOWN_PEER);
            LOG.log(System.Logger.Level.DEBUG, "TreeAnnounce from unknown peer {0}", from);
            return TreeAnnounceOutcome.UNKNOWN_PEER;
        }
        if (!ta.nodeAddr().equals(from)) {
            count(TreeCounter.ADDR_MISMATCH);
            LOG.log(System.Logger.Level.DEBUG, "TreeAnnounce from {0} declares {1}", from, ta.nodeAddr());
            return TreeAnnounceOutcome.ADDR_MISMATCH;
        }
        if (!verifySafely(p.publicKey, ta)) {
            count(TreeCounter.SIG_FAILED);
            LOG.log(System.Logger.Level.WARNING, "TreeAnnounce signature verification failed from {0}", from);
            return TreeAnnounceOutcome.SIG_FAILED;
        }
        final Optional<TreeAnnounce.Violation> v = ta.semanticViolation();
        if (v.isPresent()) {
            count(TreeCounter.ANCESTRY_INVALID);
            LOG.log(System.Logger.Level.WARNING, "Rejected TreeAnnounce from {0} with invalid ancestry: {1}", from,
                    v.get());
            return TreeAnnounceOutcome.ANCESTRY_INVALID;
        }
        p.lastSeen = ta;
        if (p.declaration != null && Long.compareUnsigned(ta.sequence(), p.declaration.sequence()) <= 0) {
            count(TreeCounter.STALE);
            LOG.log(System.Logger.Level.DEBUG, "TreeAnnounce from {0} not fresher than stored, ignored", from);
            return TreeAnnounceOutcome.STALE;
        }
        p.declaration = ta;
        count(TreeCounter.ACCEPTED);
        LOG.log(System.Logger.Level.DEBUG, "Processed TreeAnnounce from {0}: seq {1}, depth {2}, root {3}", from,
                Long.toUnsignedString(ta.sequence()), ta.depth(), ta.root());

        // Root-disagreement echo, from our pre-evaluation state.
        if (ta.root().compareTo(root) > 0) {
            sendTo(p, nowNanos);
        }

        if (evaluateAndApply("announce", nowNanos)) {
            return TreeAnnounceOutcome.ACCEPTED;
        }
        if (!isRoot() && parent.equals(from)) {
            refreshFromParent(p, nowNanos);
        }
        return TreeAnnounceOutcome.ACCEPTED;
    }

    private boolean verifySafely(final byte[] key, final TreeAnnounce ta) {
        try {
            return verifier.verify(key, ta.signingBytes(), ta.signature());
        } catch (final RuntimeException e) {
            return false;
        }
    }

    /** Branch C: the announcer is our parent and no switch/promotion happened. */
    private void refreshFromParent(final Peer p, final long nowNanos) {
        final NodeAddr oldRoot = root;
        if (p.containsInAncestry(me)) {
            count(TreeCounter.LOOP_DETECTED);
            LOG.log(System.Logger.Level.WARNING, "Parent {0} ancestry contains us: loop detected, dropping parent",
                    p.addr);
            final NodeAddr oldParent = parent;
            handleParentLost(nowNanos);
            if (!sign()) {
                return;
            }
            effects.invalidateViaNode(me);
            effects.invalidateOtherRoots(root);
            effects.resetDiscoveryBackoff();
            sendToAll(nowNanos);
            effects.onPositionChanged(oldParent, parent, oldRoot, root);
            return;
        }
        final List<NodeAddr> oldAddrs = coordAddrs();
        final int oldDepth = depth();
        setParent(p.addr, sequence + 1, wallClock.unixSeconds(), nowNanos);
        recomputeCoords();
        if (!sign()) {
            return;
        }
        effects.invalidateViaNode(me);
        effects.resetDiscoveryBackoff();
        if (!oldAddrs.equals(coordAddrs())) {
            count(TreeCounter.ANCESTRY_CHANGED);
            LOG.log(System.Logger.Level.INFO,
                    "Parent ancestry changed, re-announcing: parent {0}, root {1} -> {2}, depth {3} -> {4}", p.addr,
                    oldRoot, root, oldDepth, depth());
            sendToAll(nowNanos);
            effects.markChangedFiltersOnly(p.addr);
            if (!oldRoot.equals(root)) {
                effects.onPositionChanged(p.addr, parent, oldRoot, root);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Tick

    /**
     * Once per control tick: sends announces deferred by the limiter, then (every re-evaluation interval, only with
     * at least two peers) re-evaluates the parent and, when nothing changes, re-broadcasts our announce to every peer.
     *
     * @param nowNanos monotonic now
     */
    public void tick(final long nowNanos) {
        for (final Peer p : List.copyOf(peers.values())) {
            if (p.announcePending && canSend(p, nowNanos)) {
                sendTo(p, nowNanos);
            }
        }
        if (config.reevalIntervalNanos() == 0 || peers.size() < 2) {
            return;
        }
        if (hasLastReeval && nowNanos - lastReevalNanos < config.reevalIntervalNanos()) {
            return;
        }
        hasLastReeval = true;
        lastReevalNanos = nowNanos;
        if (!evaluateAndApply("periodic", nowNanos)) {
            LOG.log(System.Logger.Level.DEBUG, "Periodic TreeAnnounce re-broadcast (seq {0}, root {1})",
                    Long.toUnsignedString(sequence), root);
            sendToAll(nowNanos);
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Evaluation and the A/B branches

    /**
     * Runs {@link #evaluateParent} and applies branch A (switch) or B (self-promotion).
     *
     * @return true when one of them fired
     */
    private boolean evaluateAndApply(final String trigger, final long nowNanos) {
        final NodeAddr best = evaluateParent(nowNanos);
        final NodeAddr oldParent = parent;
        final NodeAddr oldRoot = root;
        if (best != null) {
            final long newSeq = sequence + 1;
            final boolean dampened = setParent(best, newSeq, wallClock.unixSeconds(), nowNanos);
            recomputeCoords();
            if (!sign()) {
                return true;
            }
            effects.invalidateViaNode(me);
            effects.resetDiscoveryBackoff();
            count(TreeCounter.PARENT_SWITCHES);
            LOG.log(System.Logger.Level.INFO, "Parent switched ({0}): {1} -> {2}, seq {3}, root {4}, depth {5}",
                    trigger, oldParent, best, Long.toUnsignedString(newSeq), root, depth());
            if (!oldRoot.equals(root)) {
                LOG.log(System.Logger.Level.INFO, "Root changed: {0} -> {1}", oldRoot, root);
            }
            if (dampened) {
                count(TreeCounter.FLAP_DAMPENED);
                LOG.log(System.Logger.Level.WARNING, "Flap dampening engaged: excessive parent switches detected");
            }
            sendToAll(nowNanos);
            effects.markAllPeersForFilterUpdate();
            effects.onPositionChanged(oldParent, parent, oldRoot, root);
            return true;
        }
        if (!isRoot() && shouldBeRoot()) {
            becomeRoot();
            if (!sign()) {
                return true;
            }
            effects.invalidateOtherRoots(me);
            effects.resetDiscoveryBackoff();
            count(TreeCounter.PARENT_SWITCHES);
            LOG.log(System.Logger.Level.INFO, "Self-promoted to root ({0}): smallest visible NodeAddr (was {1})",
                    trigger, oldRoot);
            sendToAll(nowNanos);
            effects.markAllPeersForFilterUpdate();
            effects.onPositionChanged(oldParent, parent, oldRoot, root);
            return true;
        }
        return false;
    }

    /**
     * The reference's {@code evaluate_parent} (routing-session §1.4): the peer to switch to, or null for no change.
     */
    NodeAddr evaluateParent(final long nowNanos) {
        NodeAddr smallestRoot = null;
        boolean costsEmpty = true;
        for (final Peer p : peers.values()) {
            if (p.suspect) {
                continue;
            }
            if (p.declaration != null) {
                final NodeAddr r = p.declaration.root();
                if (smallestRoot == null || r.compareTo(smallestRoot) < 0) {
                    smallestRoot = r;
                }
            }
            if (p.hasCost) {
                costsEmpty = false;
            }
        }
        if (smallestRoot == null) {
            return null;
        }
        if (me.compareTo(smallestRoot) <= 0) {
            return null;
        }
        NodeAddr bestId = null;
        double bestEff = 0;
        for (final Peer p : peers.values()) {
            if (p.suspect || p.declaration == null || !p.declaration.root().equals(smallestRoot)
                    || p.containsInAncestry(me)) {
                continue;
            }
            final double cost;
            if (p.hasCost) {
                cost = p.cost;
            } else if (costsEmpty) {
                cost = 1.0;
            } else {
                continue;
            }
            final double eff = p.declaration.depth() + cost;
            if (bestId == null || eff < bestEff || (eff == bestEff && p.addr.compareTo(bestId) < 0)) {
                bestId = p.addr;
                bestEff = eff;
            }
        }
        if (bestId == null) {
            return null;
        }
        final boolean amRoot = isRoot();
        if (parent.equals(bestId) && !amRoot) {
            return null;
        }
        // Mandatory switches.
        final Peer current = peers.get(parent);
        // A suspect parent (fast failover) is left as if it were gone: no hold-down, no hysteresis.
        final boolean parentHasCoords = current != null && !current.suspect && current.declaration != null;
        if (!amRoot && !parentHasCoords) {
            return bestId;
        }
        if (smallestRoot.compareTo(root) < 0 || (amRoot && smallestRoot.compareTo(me) < 0)) {
            return bestId;
        }
        if (amRoot) {
            return bestId;
        }
        // A parent that now leads to a larger root than another peer offers is left at once (ADR 0026); the
        // reference would follow it there and leave only on a later evaluation (up to the 60 s re-evaluation).
        if (current.declaration.root().compareTo(smallestRoot) > 0) {
            return bestId;
        }
        // Hold-down and flap dampening.
        if (config.holdDownNanos() != 0 && hasLastParentSwitch
                && nowNanos - lastParentSwitchNanos < config.holdDownNanos()) {
            return null;
        }
        if (isFlapDampened(nowNanos)) {
            return null;
        }
        // Hysteresis.
        final double parentCost = current.hasCost ? current.cost : costsEmpty ? 1.0 : Double.POSITIVE_INFINITY;
        final double parentEff = current.declaration.depth() + parentCost;
        if (bestEff < parentEff * (1.0 - config.parentHysteresis())) {
            return bestId;
        }
        return null;
    }

    private boolean shouldBeRoot() {
        for (final Peer p : peers.values()) {
            if (!p.suspect && p.declaration != null && p.declaration.root().compareTo(me) < 0) {
                return false;
            }
        }
        return true;
    }

    /** @return true when flap dampening was engaged by this switch */
    private boolean setParent(final NodeAddr newParent, final long newSeq, final long newTs, final long nowNanos) {
        final boolean changed = isRoot() || !parent.equals(newParent);
        parent = newParent;
        sequence = newSeq;
        timestamp = newTs;
        invalidateSignature();
        hasLastParentSwitch = true;
        lastParentSwitchNanos = nowNanos;
        return changed && recordParentSwitch(nowNanos);
    }

    private boolean recordParentSwitch(final long nowNanos) {
        if (hasFlapWindow && nowNanos - flapWindowStartNanos < config.flapWindowNanos()) {
            flapCount++;
        } else {
            hasFlapWindow = true;
            flapWindowStartNanos = nowNanos;
            flapCount = 1;
        }
        // As the reference: once set, the dampening deadline is never cleared, so it engages once per process.
        if (flapCount >= config.flapThreshold() && !hasDampening) {
            hasDampening = true;
            dampeningUntilNanos = nowNanos + config.flapDampeningNanos();
            return true;
        }
        return false;
    }

    private boolean isFlapDampened(final long nowNanos) {
        return hasDampening && nowNanos - dampeningUntilNanos < 0;
    }

    private void becomeRoot() {
        sequence = sequence + 1;
        timestamp = wallClock.unixSeconds();
        parent = me;
        invalidateSignature();
        recomputeCoords();
    }

    private void handleParentLost(final long nowNanos) {
        final NodeAddr alt = evaluateParent(nowNanos);
        if (alt != null) {
            setParent(alt, sequence + 1, wallClock.unixSeconds(), nowNanos);
            recomputeCoords();
            return;
        }
        sequence = sequence + 1;
        timestamp = wallClock.unixSeconds();
        parent = me;
        invalidateSignature();
        recomputeCoords();
    }

    /** Our coordinate from the parent's ancestry, demoting to self-root rather than emit an invalid path. */
    private void recomputeCoords() {
        if (parent.equals(me)) {
            coords = List.of(new CoordEntry(me, sequence, timestamp));
            root = me;
            return;
        }
        final Peer p = peers.get(parent);
        if (p == null || p.declaration == null) {
            return;
        }
        if (me.compareTo(p.declaration.root()) <= 0) {
            parent = me;
            invalidateSignature();
            coords = List.of(new CoordEntry(me, sequence, timestamp));
            root = me;
            return;
        }
        final List<CoordEntry> c = new ArrayList<>(p.declaration.ancestry().size() + 1);
        c.add(new CoordEntry(me, sequence, timestamp));
        c.addAll(p.declaration.ancestry());
        coords = Collections.unmodifiableList(c);
        root = c.getLast().nodeAddr();
    }

    private void invalidateSignature() {
        signature = null;
        ownAnnounce = null;
    }

    private boolean sign() {
        final byte[] sig;
        try {
            sig = signer.sign(TreeAnnounce.signingBytes(me, parent, sequence, timestamp));
        } catch (final RuntimeException e) {
            count(TreeCounter.OUTBOUND_SIGN_FAILED);
            LOG.log(System.Logger.Level.WARNING, "Failed to sign tree declaration: {0}", e.toString());
            return false;
        }
        if (sig == null || sig.length != TreeAnnounce.SIGNATURE_SIZE) {
            count(TreeCounter.OUTBOUND_SIGN_FAILED);
            LOG.log(System.Logger.Level.WARNING, "Failed to sign tree declaration: no 64-byte signature");
            return false;
        }
        signature = sig.clone();
        ownAnnounce = new TreeAnnounce(sequence, timestamp, parent, coords, signature);
        return true;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Sending

    private boolean canSend(final Peer p, final long nowNanos) {
        return !p.announceSent || nowNanos - p.lastAnnounceNanos >= config.announceMinIntervalNanos();
    }

    private void sendTo(final Peer p, final long nowNanos) {
        if (!canSend(p, nowNanos)) {
            p.announcePending = true;
            count(TreeCounter.RATE_LIMITED);
            LOG.log(System.Logger.Level.DEBUG, "TreeAnnounce to {0} rate-limited, marking pending", p.addr);
            return;
        }
        final TreeAnnounce a = ownAnnounce;
        if (a == null) {
            LOG.log(System.Logger.Level.DEBUG, "TreeAnnounce to {0} not sent: declaration not signed", p.addr);
            return;
        }
        if (!effects.sendTreeAnnounce(p.addr, a)) {
            count(TreeCounter.SEND_FAILED);
            return;
        }
        count(TreeCounter.SENT);
        p.announceSent = true;
        p.lastAnnounceNanos = nowNanos;
        p.announcePending = false;
        LOG.log(System.Logger.Level.DEBUG, "Sent TreeAnnounce to {0} (seq {1})", p.addr,
                Long.toUnsignedString(sequence));
    }

    private void sendToAll(final long nowNanos) {
        for (final Peer p : List.copyOf(peers.values())) {
            sendTo(p, nowNanos);
        }
    }

    private void count(final TreeCounter c) {
        counters[c.ordinal()]++;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Read accessors

    /** @return this node's address */
    public NodeAddr nodeAddr() {
        return me;
    }

    /** @return our root (last entry of our coordinate) */
    public NodeAddr root() {
        return root;
    }

    /** @return true when we are the root */
    public boolean isRoot() {
        return root.equals(me);
    }

    /** @return our declared parent (ourselves when root) */
    public NodeAddr parent() {
        return parent;
    }

    /** @return our parent, or null when we are root (for {@code BloomRouting}) */
    public NodeAddr parentOrNull() {
        return isRoot() ? null : parent;
    }

    /** @return our depth (0 at the root) */
    public int depth() {
        return coords.size() - 1;
    }

    /** @return our coordinate with metadata, self first */
    public List<CoordEntry> coordEntries() {
        return coords;
    }

    /** @return our coordinate's addresses, self first */
    public List<NodeAddr> coordAddrs() {
        final List<NodeAddr> out = new ArrayList<>(coords.size());
        for (final CoordEntry e : coords) {
            out.add(e.nodeAddr());
        }
        return List.copyOf(out);
    }

    /** @return our declaration's sequence (unsigned u64) */
    public long sequence() {
        return sequence;
    }

    /** @return our declaration's timestamp, Unix seconds */
    public long timestamp() {
        return timestamp;
    }

    /** @return true when our declaration is signed */
    public boolean isDeclarationSigned() {
        return signature != null;
    }

    /** @return our current signed announce, or null when signing failed */
    public TreeAnnounce ownAnnounce() {
        return ownAnnounce;
    }

    /**
     * @param peer a peer
     * @return true for our parent or a peer whose accepted declaration names us as parent ("tree peer", §2.3)
     */
    public boolean isTreePeer(final NodeAddr peer) {
        if (!isRoot() && parent.equals(peer)) {
            return true;
        }
        final Peer p = peers.get(peer);
        return p != null && p.declaration != null && p.declaration.parent().equals(me);
    }

    /**
     * @param peer a peer
     * @return its accepted coordinate (self first), or empty when it has none
     */
    public List<NodeAddr> peerCoords(final NodeAddr peer) {
        final Peer p = peers.get(peer);
        if (p == null || p.declaration == null) {
            return List.of();
        }
        return p.declaration.coords().addrs();
    }

    /**
     * @param peer a peer
     * @return its last valid announce, even a stale one (the display copy), or null
     */
    public TreeAnnounce peerLastSeenAnnounce(final NodeAddr peer) {
        final Peer p = peers.get(peer);
        return p == null ? null : p.lastSeen;
    }

    /**
     * @param peer a peer
     * @return true when it is an active peer here
     */
    public boolean hasPeer(final NodeAddr peer) {
        return peers.containsKey(peer);
    }

    /** @return the active peers, in insertion order */
    public List<NodeAddr> peers() {
        return List.copyOf(peers.keySet());
    }

    /**
     * @param c a counter
     * @return its value
     */
    public long counter(final TreeCounter c) {
        return counters[c.ordinal()];
    }

    /** @return true while flap dampening suppresses non-mandatory switches at {@code nowNanos} */
    public boolean isFlapDampenedAt(final long nowNanos) {
        return isFlapDampened(nowNanos);
    }

    /** @return an immutable view for {@code show_tree} */
    public TreeSnapshot snapshot() {
        final List<NodeAddr> mine = coordAddrs();
        final List<TreeSnapshot.Peer> views = new ArrayList<>(peers.size());
        int withPosition = 0;
        for (final Peer p : peers.values()) {
            final boolean isParent = !isRoot() && parent.equals(p.addr);
            if (p.declaration != null) {
                withPosition++;
                final List<NodeAddr> pc = p.declaration.coords().addrs();
                views.add(new TreeSnapshot.Peer(p.addr, true, p.declaration.depth(), p.declaration.root(), pc,
                        TreeCoordinates.distance(mine, pc), isParent, p.declaration.parent().equals(me), p.hasCost,
                        p.cost, p.declaration.sequence()));
            } else {
                views.add(new TreeSnapshot.Peer(p.addr, false, -1, null, List.of(), -1, isParent, false, p.hasCost,
                        p.cost, 0));
            }
        }
        final Map<String, Long> stats = new LinkedHashMap<>();
        for (final TreeCounter c : TreeCounter.values()) {
            stats.put(c.key(), counters[c.ordinal()]);
        }
        final NodeAddr coordParent = mine.size() > 1 ? mine.get(1) : me;
        return new TreeSnapshot(me, root, isRoot(), depth(), mine, coordParent, sequence, timestamp,
                signature != null, withPosition, List.copyOf(views), Collections.unmodifiableMap(stats));
    }

    // ------------------------------------------------------------------------------------------------------------
    // Test hooks (package-private): the reference's tests poke tree state directly.

    /** Forgets a peer's declaration while keeping the link (the reference's {@code tree_state.remove_peer}). */
    void forgetPeerDeclaration(final NodeAddr peer) {
        final Peer p = peers.get(peer);
        if (p != null) {
            p.declaration = null;
        }
    }

    /** Self-promotes and re-signs (the reference's {@code become_root} + {@code sign_declaration}). */
    void forceBecomeRoot() {
        becomeRoot();
        sign();
    }

    @Override
    public String toString() {
        return "SpanningTree[" + me + ", root=" + root + ", depth=" + depth() + ", seq="
                + Long.toUnsignedString(sequence) + ", peers=" + peers.size() + ", signed=" + (signature != null) + "]";
    }
}
