package net.fips.dataplane.tcp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Finds FMP packet boundaries in a byte stream by the FMP common prefix alone (transports.md §3.1): stream
 * transports (TCP, Tor, Nym) add no framing bytes. Phase 0: {@code 16 + payload_len + 16} bytes with
 * {@code payload_len <= mtu - 32}; phase 1 must say {@code payload_len = 110} (114 bytes); phase 2 {@code 65} (69
 * bytes); a version other than 0 or any other phase is a protocol violation and the connection is closed (that is
 * also how a TLS ClientHello or other junk is refused). Static, allocation-free.
 */
public final class FmpStreamFramer {
    /** More bytes are needed before the next packet is complete. */
    public static final int NEED_MORE = 0;
    /** The version nibble is not 0. */
    public static final int BAD_VERSION = -1;
    /** The phase nibble is not 0, 1 or 2. */
    public static final int BAD_PHASE = -2;
    /** {@code payload_len} is above the connection's MTU (phase 0) or not the fixed handshake size. */
    public static final int BAD_LENGTH = -3;

    /** An established frame's header + tag: 16 + 16. */
    public static final int ESTABLISHED_OVERHEAD = 32;
    /** msg1 is always this long. */
    public static final int MSG1_BYTES = 114;
    /** msg2 is always this long. */
    public static final int MSG2_BYTES = 69;

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private FmpStreamFramer() {
    }

    /**
     * @param buf   the received bytes
     * @param off   where the next packet starts
     * @param avail how many bytes from {@code off} have been received
     * @param mtu   the largest packet accepted on this connection (at least 32)
     * @return the length of the complete packet at {@code off}, {@link #NEED_MORE}, or a negative violation code
     */
    public static int next(final MemorySegment buf, final long off, final long avail, final int mtu) {
        if (avail < 1) {
            return NEED_MORE;
        }
        final int b0 = Byte.toUnsignedInt(buf.get(ValueLayout.JAVA_BYTE, off));
        if (b0 >>> 4 != 0) {
            return BAD_VERSION;
        }
        final int phase = b0 & 0x0F;
        if (phase > 2) {
            return BAD_PHASE;
        }
        if (avail < 4) {
            return NEED_MORE;
        }
        final int payloadLen = Short.toUnsignedInt(buf.get(U16, off + 2));
        final int total;
        switch (phase) {
            case 0 -> {
                if (payloadLen > mtu - ESTABLISHED_OVERHEAD) {
                    return BAD_LENGTH;
                }
                total = ESTABLISHED_OVERHEAD + payloadLen;
            }
            case 1 -> {
                if (payloadLen != MSG1_BYTES - 4) {
                    return BAD_LENGTH;
                }
                total = MSG1_BYTES;
            }
            default -> {
                if (payloadLen != MSG2_BYTES - 4) {
                    return BAD_LENGTH;
                }
                total = MSG2_BYTES;
            }
        }
        return avail >= total ? total : NEED_MORE;
    }

    /** @return a name for a violation code, for logs */
    public static String describe(final int code) {
        return switch (code) {
            case BAD_VERSION -> "FMP version is not 0";
            case BAD_PHASE -> "unknown FMP phase";
            case BAD_LENGTH -> "payload_len out of range";
            default -> "ok";
        };
    }
}
