package net.fips.control.tree;

/** The {@code tree} counter family of {@code show_tree} / {@code show_metrics}, named as the reference names them. */
public enum TreeCounter {
    /** Fresh announces accepted into tree state. */
    ACCEPTED("accepted"),
    /** ancestry[0] was not the sending peer. */
    ADDR_MISMATCH("addr_mismatch"),
    /** Our parent's path changed while we kept the parent. */
    ANCESTRY_CHANGED("ancestry_changed"),
    /** Semantic validation failed. */
    ANCESTRY_INVALID("ancestry_invalid"),
    /** Undecodable TreeAnnounce. */
    DECODE_ERROR("decode_error"),
    /** Flap dampening engaged. */
    FLAP_DAMPENED("flap_dampened"),
    /** Our parent's ancestry contained us. */
    LOOP_DETECTED("loop_detected"),
    /** Signing our declaration failed. */
    OUTBOUND_SIGN_FAILED("outbound_sign_failed"),
    /** The parent link went away. */
    PARENT_LOSSES("parent_losses"),
    /** Parent switches and self-promotions to root. */
    PARENT_SWITCHES("parent_switches"),
    /** Sends deferred by the per-peer limiter. */
    RATE_LIMITED("rate_limited"),
    /** TreeAnnounces received. */
    RECEIVED("received"),
    /** Sends that failed. */
    SEND_FAILED("send_failed"),
    /** TreeAnnounces sent. */
    SENT("sent"),
    /** Bad declaration signature. */
    SIG_FAILED("sig_failed"),
    /** Not fresher than the stored declaration. */
    STALE("stale"),
    /** Sender is not an active peer. */
    UNKNOWN_PEER("unknown_peer");

    private final String key;

    TreeCounter(final String key) {
        this.key = key;
    }

    /** @return the JSON key */
    public String key() {
        return key;
    }
}
