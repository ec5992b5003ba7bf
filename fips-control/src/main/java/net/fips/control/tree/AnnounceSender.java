package net.fips.control.tree;

import java.util.Collection;
import java.util.List;

import net.fips.dataplane.wire.TreeAnnounce;

/**
 * Sends our TreeAnnounce to peers under the per-peer rate limit (routing-session §1.3: at most one per
 * {@link TreeConfig#announceMinIntervalNanos()}; a limited send is marked pending and goes out from the tick).
 * Owned by {@link SpanningTree}; control thread only.
 */
final class AnnounceSender {
    /** The tree's logger: these lines kept their logger name when they moved here. */
    private static final System.Logger LOG = System.getLogger(SpanningTree.class.getName());

    private final TreeConfig config;
    private final TreeEffects effects;
    private final TreeCounts counts;

    AnnounceSender(final TreeConfig config, final TreeEffects effects, final TreeCounts counts) {
        this.config = config;
        this.effects = effects;
        this.counts = counts;
    }

    /** @return whether the limiter lets an announce to {@code p} go now */
    boolean canSend(final TreePeer p, final long nowNanos) {
        return !p.announceSent || nowNanos - p.lastAnnounceNanos >= config.announceMinIntervalNanos();
    }

    /**
     * Sends {@code announce} to {@code p}, or marks it pending when the limiter says no.
     *
     * @param announce our signed announce, or null when the declaration is not signed (nothing is sent)
     */
    void sendTo(final TreePeer p, final TreeAnnounce announce, final long nowNanos) {
        if (!canSend(p, nowNanos)) {
            p.announcePending = true;
            counts.count(TreeCounter.RATE_LIMITED);
            LOG.log(System.Logger.Level.DEBUG, "TreeAnnounce to {0} rate-limited, marking pending", p.addr);
            return;
        }
        if (announce == null) {
            LOG.log(System.Logger.Level.DEBUG, "TreeAnnounce to {0} not sent: declaration not signed", p.addr);
            return;
        }
        if (!effects.sendTreeAnnounce(p.addr, announce)) {
            counts.count(TreeCounter.SEND_FAILED);
            return;
        }
        counts.count(TreeCounter.SENT);
        p.announceSent = true;
        p.lastAnnounceNanos = nowNanos;
        p.announcePending = false;
        LOG.log(System.Logger.Level.DEBUG, "Sent TreeAnnounce to {0} (seq {1})", p.addr,
                Long.toUnsignedString(announce.sequence()));
    }

    /** {@link #sendTo} every peer. */
    void sendToAll(final Collection<TreePeer> peers, final TreeAnnounce announce, final long nowNanos) {
        for (final TreePeer p : List.copyOf(peers)) {
            sendTo(p, announce, nowNanos);
        }
    }
}
