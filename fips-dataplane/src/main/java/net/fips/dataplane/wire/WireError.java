package net.fips.dataplane.wire;

/** Why a wire decoder refused its input. Every decoder in this package reports one of these instead of throwing. */
public enum WireError {
    /** The input ends before a field the layout requires. */
    TRUNCATED("input shorter than the layout requires"),
    /** The message-type byte is not the one this decoder handles. */
    BAD_TYPE("unexpected message type"),
    /** The version nibble or version byte is not one this implementation speaks. */
    BAD_VERSION("unsupported version"),
    /** The phase nibble of a common prefix is not the expected or a known one. */
    BAD_PHASE("unexpected phase"),
    /** A flags byte holds bits that this message must not carry. */
    BAD_FLAGS("flags not allowed for this message"),
    /** The input length, or a length field, is inconsistent with the layout (also: window outside the buffer). */
    BAD_LENGTH("length inconsistent with the layout"),
    /** Bytes follow a message whose length must be exact. */
    TRAILING("trailing bytes after an exact-length message"),
    /** A coordinate list that must hold at least one node_addr holds none. */
    EMPTY_COORDINATES("coordinate list with zero entries"),
    /** A field holds a value the reference refuses (e.g. hash_count 0, size_class other than 1). */
    INVALID_FIELD("field value out of range");

    private final String description;

    WireError(final String description) {
        this.description = description;
    }

    /** A short human-readable reason, for logs. */
    public String description() {
        return description;
    }
}
