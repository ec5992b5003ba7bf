package net.fips.control.tree;

import java.util.Collection;
import java.util.Map;

import net.fips.dataplane.wire.NodeAddr;

/**
 * Parent selection (routing-session §1.4, the reference's {@code evaluate_parent}) and the parent-switch accounting
 * it depends on: the hold-down after a switch and flap dampening. Pure decisions over the peers' declarations; the
 * {@link SpanningTree} applies them. Owned by the tree; control thread only.
 */
final class ParentSelection {
    private final NodeAddr me;
    private final TreeConfig config;

    private boolean hasLastParentSwitch;
    private long lastParentSwitchNanos;
    private int flapCount;
    private boolean hasFlapWindow;
    private long flapWindowStartNanos;
    private boolean hasDampening;
    private long dampeningUntilNanos;

    ParentSelection(final NodeAddr me, final TreeConfig config) {
        this.me = me;
        this.config = config;
    }

    /**
     * The peer to switch to, or null for no change.
     *
     * @param peers  the active peers by address
     * @param parent our declared parent (ourselves when root)
     * @param root   our current root
     */
    NodeAddr evaluate(final Map<NodeAddr, TreePeer> peers, final NodeAddr parent, final NodeAddr root,
                      final long nowNanos) {
        NodeAddr smallestRoot = null;
        boolean costsEmpty = true;
        for (final TreePeer p : peers.values()) {
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
        for (final TreePeer p : peers.values()) {
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
        final boolean amRoot = root.equals(me);
        if (parent.equals(bestId) && !amRoot) {
            return null;
        }
        // Mandatory switches.
        final TreePeer current = peers.get(parent);
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

    /** @return true when no usable peer declares a root smaller than us */
    boolean shouldBeRoot(final Collection<TreePeer> peers) {
        for (final TreePeer p : peers) {
            if (!p.suspect && p.declaration != null && p.declaration.root().compareTo(me) < 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * A parent was set (switch, refresh or re-parent): starts the hold-down and, when the parent really changed,
     * counts a flap.
     *
     * @param changed whether the parent differs from the previous one (or we were root)
     * @return true when flap dampening was engaged by this switch
     */
    boolean onParentSet(final boolean changed, final long nowNanos) {
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

    /** @return true while flap dampening suppresses non-mandatory switches */
    boolean isFlapDampened(final long nowNanos) {
        return hasDampening && nowNanos - dampeningUntilNanos < 0;
    }
}
