package net.fips.control.acl;

/**
 * The outcome of {@link PeerAcl#decide}, with the reason the reference logs ("allowlist match", "denylist
 * match", "default allow").
 */
public enum AclDecision {
    /** The peer is in {@code peers.allow}, or it holds {@code ALL}. */
    ALLOWLIST_MATCH(Verdict.ALLOW, "allowlist match"),
    /** Not allow-listed, and in {@code peers.deny} or it holds {@code ALL}. */
    DENYLIST_MATCH(Verdict.DENY, "denylist match"),
    /** In neither list. */
    DEFAULT_ALLOW(Verdict.ALLOW, "default allow");

    /** Allow or deny. */
    public enum Verdict { ALLOW, DENY }

    private final Verdict verdict;
    private final String reason;

    AclDecision(final Verdict verdict, final String reason) {
        this.verdict = verdict;
        this.reason = reason;
    }

    /** @return allow or deny */
    public Verdict verdict() {
        return verdict;
    }

    /** @return true when the peer may be a link peer */
    public boolean allowed() {
        return verdict == Verdict.ALLOW;
    }

    /** @return the reason, as the reference words it */
    public String reason() {
        return reason;
    }

    @Override
    public String toString() {
        return reason;
    }
}
