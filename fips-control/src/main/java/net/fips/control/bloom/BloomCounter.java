package net.fips.control.bloom;

/** The {@code bloom} counter family of {@code show_bloom}, named as the reference names them. */
public enum BloomCounter {
    /** Filters accepted. */
    ACCEPTED("accepted"),
    /** Sends held back by the debounce (the reference never counts this on its tick path; kept for parity). */
    DEBOUNCE_SUPPRESSED("debounce_suppressed"),
    /** Undecodable FilterAnnounce. */
    DECODE_ERROR("decode_error"),
    /** Over the FPR cap (anti-poison). */
    FILL_EXCEEDED("fill_exceeded"),
    /** Filter size does not match its size class. */
    INVALID("invalid"),
    /** A size class other than v1's. */
    NON_V1("non_v1"),
    /** FilterAnnounces received. */
    RECEIVED("received"),
    /** Sends that failed. */
    SEND_FAILED("send_failed"),
    /** FilterAnnounces sent. */
    SENT("sent"),
    /** Sequence not above the stored one. */
    STALE("stale"),
    /** Sender is not an active peer. */
    UNKNOWN_PEER("unknown_peer");

    private final String key;

    BloomCounter(final String key) {
        this.key = key;
    }

    /** @return the JSON key */
    public String key() {
        return key;
    }
}
