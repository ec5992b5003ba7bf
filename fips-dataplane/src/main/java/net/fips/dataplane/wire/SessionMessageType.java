package net.fips.dataplane.wire;

/**
 * FSP message types: 0x10-0x14 travel encrypted as the inner msg_type; 0x20-0x22 are plaintext error signals sent by
 * transit routers with the U flag.
 */
public enum SessionMessageType {
    /** Application data: port header ‖ service payload. */
    DATA_PACKET(0x10),
    /** Session MMP sender report (46-byte body). */
    SENDER_REPORT(0x11),
    /** Session MMP receiver report (66-byte body). */
    RECEIVER_REPORT(0x12),
    /** Path MTU echo (u16 body). */
    PATH_MTU_NOTIFICATION(0x13),
    /** Empty body, always sent with CP coordinates to warm transit caches. */
    COORDS_WARMUP(0x14),
    /** Transit lacks the destination's coordinates. */
    COORDS_REQUIRED(0x20),
    /** Transit could not route although it had coordinates. */
    PATH_BROKEN(0x21),
    /** A link on the path has a smaller MTU. */
    MTU_EXCEEDED(0x22);

    private static final SessionMessageType[] BY_CODE = new SessionMessageType[256];

    static {
        for (final SessionMessageType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;

    SessionMessageType(final int code) {
        this.code = code;
    }

    /** The wire byte. */
    public int code() {
        return code;
    }

    /** The type for a wire byte, or null when unknown (the reference drops unknown types). */
    public static SessionMessageType fromCode(final int code) {
        return code >= 0 && code < 256 ? BY_CODE[code] : null;
    }
}
