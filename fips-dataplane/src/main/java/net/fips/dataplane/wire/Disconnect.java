package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Disconnect link message (type 0x50): {@code 50 ‖ reason u8}. An unknown reason byte decodes as {@link Reason#OTHER}
 * (so such a message re-encodes with 0xFF); an empty body is refused; bytes after the reason are ignored.
 *
 * @param reason why the sender tears the link down
 */
public record Disconnect(Reason reason) {
    /** Encoded size. */
    public static final int SIZE = 2;

    /** Disconnect reasons and their wire bytes. */
    public enum Reason {
        /** Node shutting down. */
        SHUTDOWN(0x00),
        /** Node restarting. */
        RESTART(0x01),
        /** Peer violated the protocol. */
        PROTOCOL_ERROR(0x02),
        /** Transport failed. */
        TRANSPORT_FAILURE(0x03),
        /** Out of resources. */
        RESOURCE_EXHAUSTION(0x04),
        /** Security policy. */
        SECURITY_VIOLATION(0x05),
        /** Configuration changed. */
        CONFIGURATION_CHANGE(0x06),
        /** Liveness timeout. */
        TIMEOUT(0x07),
        /** Anything else, including unknown bytes. */
        OTHER(0xFF);

        private final int code;

        Reason(final int code) {
            this.code = code;
        }

        /** The wire byte. */
        public int code() {
            return code;
        }

        /** The reason for a wire byte; unknown bytes map to {@link #OTHER}. */
        public static Reason fromCode(final int code) {
            for (final Reason r : values()) {
                if (r.code == code) {
                    return r;
                }
            }
            return OTHER;
        }
    }

    /** Requires a reason. */
    public Disconnect {
        Objects.requireNonNull(reason, "reason");
    }

    /** The two-byte link message. */
    public byte[] encode() {
        return new byte[] {(byte) LinkMessageType.DISCONNECT.code(), (byte) reason.code()};
    }

    /** Decodes a link message starting at its msg_type byte. */
    public static WireResult<Disconnect> decode(final MemorySegment seg, final long off, final long len) {
        return Reader.run(seg, off, len, r -> {
            Links.expectType(r, LinkMessageType.DISCONNECT);
            return new Disconnect(Reason.fromCode(r.u8()));
        });
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<Disconnect> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }
}
