package net.fips.control.tree;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

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
 * <p>Parts it owns: {@link OwnDeclaration} (our declaration, signed announce and coordinate),
 * {@link ParentSelection} (§1.4 parent choice, hold-down and flap dampening), {@link AnnounceIntake} (checks of an
 * inbound announce), {@link AnnounceSender} (the per-peer rate limit) and the {@link TreePeer}s; this class applies
 * the decisions (branches A/B/C of §1.3) and reports the effects.
 *
 * <p>Single control thread, not thread-safe; no threads, no static mutable state.
 */
public final class SpanningTree {
    private static final System.Logger LOG = System.getLogger(SpanningTree.class.getName());

    private final NodeAddr me;
    private final TreeConfig config;
    private final TreeSigner signer;
    private final WallClock wallClock;
    private final TreeEffects effects;
    private final Map<NodeAddr, TreePeer> peers = new LinkedHashMap<>();
    private final TreeCounts counts = new TreeCounts();
    private final ParentSelection selection;
    private final AnnounceSender sender;
    private final AnnounceIntake intake;

    private final OwnDeclaration decl;

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
        this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
        this.effects = Objects.requireNonNull(effects, "effects");
        this.selection = new ParentSelection(me, config);
        this.sender = new AnnounceSender(config, effects, counts);
        this.intake = new AnnounceIntake(Objects.requireNonNull(verifier, "verifier"), counts);
        this.decl = new OwnDeclaration(me, this.signer, wallClock, counts);
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
        TreePeer p = peers.get(peer);
        if (p == null) {
            p = new TreePeer(peer, xOnlyPublicKey.clone());
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
        final boolean wasParent = !isRoot() && decl.parent().equals(peer);
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
        final TreePeer p = peers.get(peer);
        if (p == null || p.suspect == suspect) {
            return false;
        }
        p.suspect = suspect;
        if (!suspect) {
            return evaluateAndApply("peer-answers-again", nowNanos);
        }
        if (isRoot() || !decl.parent().equals(peer)) {
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
        final NodeAddr oldParent = decl.parent();
        final NodeAddr oldRoot = decl.root();
        handleParentLost(nowNanos);
        if (!sign()) {
            // The reference still reports a change here; peers get our unsigned state never (it is not sendable).
            LOG.log(System.Logger.Level.WARNING, "Failed to sign declaration after parent loss");
        }
        effects.invalidateViaNode(me);
        effects.invalidateOtherRoots(decl.root());
        LOG.log(System.Logger.Level.INFO, "Tree state updated after parent loss: root {0}, is_root {1}{2}", decl.root(),
                isRoot(), isRoot() && !oldRoot.equals(me) ? " (partitioned from " + oldRoot + ")" : "");
        for (final TreePeer p : peers.values()) {
            p.announcePending = true;
        }
        effects.onPositionChanged(oldParent, decl.parent(), oldRoot, decl.root());
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
        final TreePeer p = peers.get(peer);
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
        final TreePeer p = peers.get(from);
        final TreeAnnounceOutcome checked = intake.accept(p, from, ta);
        if (checked != TreeAnnounceOutcome.ACCEPTED) {
            return checked;
        }

        // Root-disagreement echo, from our pre-evaluation state.
        if (ta.root().compareTo(decl.root()) > 0) {
            sendTo(p, nowNanos);
        }

        if (evaluateAndApply("announce", nowNanos)) {
            return TreeAnnounceOutcome.ACCEPTED;
        }
        if (!isRoot() && decl.parent().equals(from)) {
            refreshFromParent(p, nowNanos);
        }
        return TreeAnnounceOutcome.ACCEPTED;
    }

    /** Branch C: the announcer is our parent and no switch/promotion happened. */
    private void refreshFromParent(final TreePeer p, final long nowNanos) {
        final NodeAddr oldRoot = decl.root();
        if (p.containsInAncestry(me)) {
            count(TreeCounter.LOOP_DETECTED);
            LOG.log(System.Logger.Level.WARNING, "Parent {0} ancestry contains us: loop detected, dropping parent",
                    p.addr);
            final NodeAddr oldParent = decl.parent();
            handleParentLost(nowNanos);
            if (!sign()) {
                return;
            }
            effects.invalidateViaNode(me);
            effects.invalidateOtherRoots(decl.root());
            effects.resetDiscoveryBackoff();
            sendToAll(nowNanos);
            effects.onPositionChanged(oldParent, decl.parent(), oldRoot, decl.root());
            return;
        }
        final List<NodeAddr> oldAddrs = coordAddrs();
        final int oldDepth = depth();
        setParent(p.addr, decl.sequence() + 1, wallClock.unixSeconds(), nowNanos);
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
                    oldRoot, decl.root(), oldDepth, depth());
            sendToAll(nowNanos);
            effects.markChangedFiltersOnly(p.addr);
            if (!oldRoot.equals(decl.root())) {
                effects.onPositionChanged(p.addr, decl.parent(), oldRoot, decl.root());
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
        for (final TreePeer p : List.copyOf(peers.values())) {
            if (p.announcePending && sender.canSend(p, nowNanos)) {
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
                    Long.toUnsignedString(decl.sequence()), decl.root());
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
        final NodeAddr oldParent = decl.parent();
        final NodeAddr oldRoot = decl.root();
        if (best != null) {
            final long newSeq = decl.sequence() + 1;
            final boolean dampened = setParent(best, newSeq, wallClock.unixSeconds(), nowNanos);
            recomputeCoords();
            if (!sign()) {
                return true;
            }
            effects.invalidateViaNode(me);
            effects.resetDiscoveryBackoff();
            count(TreeCounter.PARENT_SWITCHES);
            LOG.log(System.Logger.Level.INFO, "Parent switched ({0}): {1} -> {2}, seq {3}, root {4}, depth {5}",
                    trigger, oldParent, best, Long.toUnsignedString(newSeq), decl.root(), depth());
            if (!oldRoot.equals(decl.root())) {
                LOG.log(System.Logger.Level.INFO, "Root changed: {0} -> {1}", oldRoot, decl.root());
            }
            if (dampened) {
                count(TreeCounter.FLAP_DAMPENED);
                LOG.log(System.Logger.Level.WARNING, "Flap dampening engaged: excessive parent switches detected");
            }
            sendToAll(nowNanos);
            effects.markAllPeersForFilterUpdate();
            effects.onPositionChanged(oldParent, decl.parent(), oldRoot, decl.root());
            return true;
        }
        if (!isRoot() && selection.shouldBeRoot(peers.values())) {
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
            effects.onPositionChanged(oldParent, decl.parent(), oldRoot, decl.root());
            return true;
        }
        return false;
    }

    /**
     * The reference's {@code evaluate_parent} (routing-session §1.4): the peer to switch to, or null for no change.
     */
    NodeAddr evaluateParent(final long nowNanos) {
        return selection.evaluate(peers, decl.parent(), decl.root(), nowNanos);
    }

    /** @return true when flap dampening was engaged by this switch */
    private boolean setParent(final NodeAddr newParent, final long newSeq, final long newTs, final long nowNanos) {
        return selection.onParentSet(decl.setParent(newParent, newSeq, newTs), nowNanos);
    }

    private void becomeRoot() {
        decl.becomeRoot();
    }

    private void handleParentLost(final long nowNanos) {
        final NodeAddr alt = evaluateParent(nowNanos);
        if (alt != null) {
            setParent(alt, decl.sequence() + 1, wallClock.unixSeconds(), nowNanos);
            recomputeCoords();
            return;
        }
        decl.becomeRoot();
    }

    private void recomputeCoords() {
        final TreePeer p = peers.get(decl.parent());
        decl.recomputeCoords(p == null ? null : p.declaration);
    }

    private boolean sign() {
        return decl.sign();
    }

    // ------------------------------------------------------------------------------------------------------------
    // Sending

    private void sendTo(final TreePeer p, final long nowNanos) {
        sender.sendTo(p, decl.announce(), nowNanos);
    }

    private void sendToAll(final long nowNanos) {
        sender.sendToAll(peers.values(), decl.announce(), nowNanos);
    }

    private void count(final TreeCounter c) {
        counts.count(c);
    }

    // ------------------------------------------------------------------------------------------------------------
    // Read accessors

    /** @return this node's address */
    public NodeAddr nodeAddr() {
        return me;
    }

    /** @return our root (last entry of our coordinate) */
    public NodeAddr root() {
        return decl.root();
    }

    /** @return true when we are the root */
    public boolean isRoot() {
        return decl.isRoot();
    }

    /** @return our declared parent (ourselves when root) */
    public NodeAddr parent() {
        return decl.parent();
    }

    /** @return our parent, or null when we are root (for {@code BloomRouting}) */
    public NodeAddr parentOrNull() {
        return isRoot() ? null : decl.parent();
    }

    /** @return our depth (0 at the root) */
    public int depth() {
        return decl.coords().size() - 1;
    }

    /** @return our coordinate with metadata, self first */
    public List<CoordEntry> coordEntries() {
        return decl.coords();
    }

    /** @return our coordinate's addresses, self first */
    public List<NodeAddr> coordAddrs() {
        final List<NodeAddr> out = new ArrayList<>(decl.coords().size());
        for (final CoordEntry e : decl.coords()) {
            out.add(e.nodeAddr());
        }
        return List.copyOf(out);
    }

    /** @return our declaration's sequence (unsigned u64) */
    public long sequence() {
        return decl.sequence();
    }

    /** @return our declaration's timestamp, Unix seconds */
    public long timestamp() {
        return decl.timestamp();
    }

    /** @return true when our declaration is signed */
    public boolean isDeclarationSigned() {
        return decl.signed();
    }

    /** @return our current signed announce, or null when signing failed */
    public TreeAnnounce ownAnnounce() {
        return decl.announce();
    }

    /**
     * @param peer a peer
     * @return true for our parent or a peer whose accepted declaration names us as parent ("tree peer", §2.3)
     */
    public boolean isTreePeer(final NodeAddr peer) {
        if (!isRoot() && decl.parent().equals(peer)) {
            return true;
        }
        final TreePeer p = peers.get(peer);
        return p != null && p.declaration != null && p.declaration.parent().equals(me);
    }

    /**
     * @param peer a peer
     * @return its accepted coordinate (self first), or empty when it has none
     */
    public List<NodeAddr> peerCoords(final NodeAddr peer) {
        final TreePeer p = peers.get(peer);
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
        final TreePeer p = peers.get(peer);
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
        return counts.get(c);
    }

    /** @return true while flap dampening suppresses non-mandatory switches at {@code nowNanos} */
    public boolean isFlapDampenedAt(final long nowNanos) {
        return selection.isFlapDampened(nowNanos);
    }

    /** @return an immutable view for {@code show_tree} */
    public TreeSnapshot snapshot() {
        final List<NodeAddr> mine = coordAddrs();
        final List<TreeSnapshot.Peer> views = new ArrayList<>(peers.size());
        int withPosition = 0;
        for (final TreePeer p : peers.values()) {
            final boolean isParent = !isRoot() && decl.parent().equals(p.addr);
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
            stats.put(c.key(), counts.get(c));
        }
        final NodeAddr coordParent = mine.size() > 1 ? mine.get(1) : me;
        return new TreeSnapshot(me, decl.root(), isRoot(), depth(), mine, coordParent, decl.sequence(),
                decl.timestamp(), decl.signed(), withPosition, List.copyOf(views), Collections.unmodifiableMap(stats));
    }

    // ------------------------------------------------------------------------------------------------------------
    // Test hooks (package-private): the reference's tests poke tree state directly.

    /** Forgets a peer's declaration while keeping the link (the reference's {@code tree_state.remove_peer}). */
    void forgetPeerDeclaration(final NodeAddr peer) {
        final TreePeer p = peers.get(peer);
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
        return "SpanningTree[" + me + ", root=" + decl.root() + ", depth=" + depth() + ", seq="
                + Long.toUnsignedString(decl.sequence()) + ", peers=" + peers.size() + ", signed=" + decl.signed()
                + "]";
    }
}
