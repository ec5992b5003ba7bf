package net.fips.control.tree;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import net.fips.dataplane.wire.CoordEntry;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.TreeAnnounce;

/**
 * Our own tree position (routing-session §1.2): the declaration (parent, sequence, timestamp, signature), the
 * signed TreeAnnounce built from it, and our coordinate (self → root) derived from the parent's ancestry. Starts as
 * self-root with sequence = the wall clock in Unix milliseconds. Owned by {@link SpanningTree}, which decides when
 * it changes; control thread only.
 */
final class OwnDeclaration {
    /** The tree's logger: these lines kept their logger name when they moved here. */
    private static final System.Logger LOG = System.getLogger(SpanningTree.class.getName());

    private final NodeAddr me;
    private final TreeSigner signer;
    private final WallClock wallClock;
    private final TreeCounts counts;
    private NodeAddr parent;
    private long sequence;
    private long timestamp;
    private byte[] signature;
    private TreeAnnounce announce;
    private List<CoordEntry> coords;
    private NodeAddr root;

    OwnDeclaration(final NodeAddr me, final TreeSigner signer, final WallClock wallClock, final TreeCounts counts) {
        this.me = me;
        this.signer = signer;
        this.wallClock = wallClock;
        this.counts = counts;
        this.parent = me;
        this.sequence = Math.max(1L, wallClock.unixMillis());
        this.timestamp = wallClock.unixSeconds();
        this.root = me;
        this.coords = List.of(new CoordEntry(me, sequence, timestamp));
    }

    NodeAddr parent() {
        return parent;
    }

    long sequence() {
        return sequence;
    }

    long timestamp() {
        return timestamp;
    }

    NodeAddr root() {
        return root;
    }

    boolean isRoot() {
        return root.equals(me);
    }

    boolean signed() {
        return signature != null;
    }

    /** @return our signed announce, or null while the declaration is not signed */
    TreeAnnounce announce() {
        return announce;
    }

    /** @return our coordinate, self first */
    List<CoordEntry> coords() {
        return coords;
    }

    /**
     * Declares {@code newParent} (unsigned until {@link #sign}); the coordinate is not recomputed here.
     *
     * @return true when the parent changed (or we were root)
     */
    boolean setParent(final NodeAddr newParent, final long newSeq, final long newTs) {
        final boolean changed = isRoot() || !parent.equals(newParent);
        parent = newParent;
        sequence = newSeq;
        timestamp = newTs;
        invalidateSignature();
        return changed;
    }

    /** Declares ourselves root with the next sequence and recomputes the coordinate (unsigned until signed). */
    void becomeRoot() {
        sequence = sequence + 1;
        timestamp = wallClock.unixSeconds();
        parent = me;
        invalidateSignature();
        recomputeCoords(null);
    }

    /**
     * Our coordinate from the parent's ancestry, demoting to self-root rather than emit an invalid path.
     *
     * @param parentDeclaration the parent's accepted declaration, or null when it has none (nothing changes then,
     *                          unless we are root)
     */
    void recomputeCoords(final TreeAnnounce parentDeclaration) {
        if (parent.equals(me)) {
            coords = List.of(new CoordEntry(me, sequence, timestamp));
            root = me;
            return;
        }
        if (parentDeclaration == null) {
            return;
        }
        if (me.compareTo(parentDeclaration.root()) <= 0) {
            parent = me;
            invalidateSignature();
            coords = List.of(new CoordEntry(me, sequence, timestamp));
            root = me;
            return;
        }
        final List<CoordEntry> c = new ArrayList<>(parentDeclaration.ancestry().size() + 1);
        c.add(new CoordEntry(me, sequence, timestamp));
        c.addAll(parentDeclaration.ancestry());
        coords = Collections.unmodifiableList(c);
        root = c.getLast().nodeAddr();
    }

    private void invalidateSignature() {
        signature = null;
        announce = null;
    }

    /** Signs the declaration; a failure is counted and logged, and leaves it unsigned (nothing to send). */
    boolean sign() {
        final byte[] sig;
        try {
            sig = signer.sign(TreeAnnounce.signingBytes(me, parent, sequence, timestamp));
        } catch (final RuntimeException e) {
            counts.count(TreeCounter.OUTBOUND_SIGN_FAILED);
            LOG.log(System.Logger.Level.WARNING, "Failed to sign tree declaration: {0}", e.toString());
            return false;
        }
        if (sig == null || sig.length != TreeAnnounce.SIGNATURE_SIZE) {
            counts.count(TreeCounter.OUTBOUND_SIGN_FAILED);
            LOG.log(System.Logger.Level.WARNING, "Failed to sign tree declaration: no 64-byte signature");
            return false;
        }
        signature = sig.clone();
        announce = new TreeAnnounce(sequence, timestamp, parent, coords, signature);
        return true;
    }
}
