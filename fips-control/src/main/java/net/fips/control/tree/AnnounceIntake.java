package net.fips.control.tree;

import java.util.Optional;

import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.TreeAnnounce;

/**
 * The checks an inbound TreeAnnounce passes before the tree acts on it, in the reference's order (routing-session
 * §1.3 steps 2-6): a known peer, the declared address is the link peer's, a valid signature under the peer's key,
 * a well-formed ancestry, and a sequence fresher than the stored one; then the declaration is stored. Each
 * rejection is counted ({@link TreeCounter}) and logged. Owned by {@link SpanningTree}; control thread only.
 */
final class AnnounceIntake {
    /** The tree's logger: these lines kept their logger name when they moved here. */
    private static final System.Logger LOG = System.getLogger(SpanningTree.class.getName());

    private final SignatureVerifier verifier;
    private final TreeCounts counts;

    AnnounceIntake(final SignatureVerifier verifier, final TreeCounts counts) {
        this.verifier = verifier;
        this.counts = counts;
    }

    /**
     * Checks {@code ta} from {@code from} and, when it passes, stores it as the peer's declaration.
     *
     * @param p the peer's state, or null when {@code from} is no active peer
     * @return {@link TreeAnnounceOutcome#ACCEPTED} when stored, else why not
     */
    TreeAnnounceOutcome accept(final TreePeer p, final NodeAddr from, final TreeAnnounce ta) {
        counts.count(TreeCounter.RECEIVED);
        if (p == null) {
            counts.count(TreeCounter.UNKNOWN_PEER);
            LOG.log(System.Logger.Level.DEBUG, "TreeAnnounce from unknown peer {0}", from);
            return TreeAnnounceOutcome.UNKNOWN_PEER;
        }
        if (!ta.nodeAddr().equals(from)) {
            counts.count(TreeCounter.ADDR_MISMATCH);
            LOG.log(System.Logger.Level.DEBUG, "TreeAnnounce from {0} declares {1}", from, ta.nodeAddr());
            return TreeAnnounceOutcome.ADDR_MISMATCH;
        }
        if (!verifySafely(p.publicKey, ta)) {
            counts.count(TreeCounter.SIG_FAILED);
            LOG.log(System.Logger.Level.WARNING, "TreeAnnounce signature verification failed from {0}", from);
            return TreeAnnounceOutcome.SIG_FAILED;
        }
        final Optional<TreeAnnounce.Violation> v = ta.semanticViolation();
        if (v.isPresent()) {
            counts.count(TreeCounter.ANCESTRY_INVALID);
            LOG.log(System.Logger.Level.WARNING, "Rejected TreeAnnounce from {0} with invalid ancestry: {1}", from,
                    v.get());
            return TreeAnnounceOutcome.ANCESTRY_INVALID;
        }
        p.lastSeen = ta;
        if (p.declaration != null && Long.compareUnsigned(ta.sequence(), p.declaration.sequence()) <= 0) {
            counts.count(TreeCounter.STALE);
            LOG.log(System.Logger.Level.DEBUG, "TreeAnnounce from {0} not fresher than stored, ignored", from);
            return TreeAnnounceOutcome.STALE;
        }
        p.declaration = ta;
        counts.count(TreeCounter.ACCEPTED);
        LOG.log(System.Logger.Level.DEBUG, "Processed TreeAnnounce from {0}: seq {1}, depth {2}, root {3}", from,
                Long.toUnsignedString(ta.sequence()), ta.depth(), ta.root());
        return TreeAnnounceOutcome.ACCEPTED;
    }

    private boolean verifySafely(final byte[] key, final TreeAnnounce ta) {
        try {
            return verifier.verify(key, ta.signingBytes(), ta.signature());
        } catch (final RuntimeException e) {
            return false;
        }
    }
}
