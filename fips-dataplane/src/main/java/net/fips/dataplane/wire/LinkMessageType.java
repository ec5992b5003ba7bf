package net.fips.dataplane.wire;

/** FMP link message types: the msg_type byte after the inner timestamp of an established frame. */
public enum LinkMessageType {
    /** Routed session-layer datagram. */
    SESSION_DATAGRAM(0x00),
    /** Link MMP sender report. */
    SENDER_REPORT(0x01),
    /** Link MMP receiver report. */
    RECEIVER_REPORT(0x02),
    /** Signed spanning-tree declaration with ancestry. */
    TREE_ANNOUNCE(0x10),
    /** Bloom filter of reachable node addresses. */
    FILTER_ANNOUNCE(0x20),
    /** Discovery request. */
    LOOKUP_REQUEST(0x30),
    /** Discovery response with the target's proof signature. */
    LOOKUP_RESPONSE(0x31),
    /** Orderly link teardown. */
    DISCONNECT(0x50),
    /** Keep-alive with no body. */
    HEARTBEAT(0x51);

    private static final LinkMessageType[] BY_CODE = new LinkMessageType[256];

    static {
        for (final LinkMessageType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;

    LinkMessageType(final int code) {
        this.code = code;
    }

    /** The wire byte. */
    public int code() {
        return code;
    }

    /** The type for a wire byte, or null when unknown (the reference ignores unknown types). */
    public static LinkMessageType fromCode(final int code) {
        return code >= 0 && code < 256 ? BY_CODE[code] : null;
    }
}
