package net.fips.ffm;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Byte-order helpers done in Java rather than through {@code htons}-style downcalls, plus unaligned big- and
 * little-endian layouts for writing ports, EtherTypes and IPv4 addresses straight into native memory.
 */
public final class NetOrder {
    /** Unaligned big-endian (network order) 16-bit layout. */
    public static final ValueLayout.OfShort U16_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Unaligned big-endian (network order) 32-bit layout. */
    public static final ValueLayout.OfInt U32_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Unaligned little-endian 16-bit layout (FIPS wire fields, L2CAP PSM/CID). */
    public static final ValueLayout.OfShort U16_LE =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Unaligned little-endian 32-bit layout. */
    public static final ValueLayout.OfInt U32_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private static final boolean LITTLE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private NetOrder() {
    }

    /**
     * @param hostShort a 16-bit value in host order (the low 16 bits of the int are used)
     * @return the value as the native short whose memory bytes are in network order
     */
    public static short htons(final int hostShort) {
        final short s = (short) hostShort;
        return LITTLE ? Short.reverseBytes(s) : s;
    }

    /**
     * @param netShort a native short read from memory holding network-order bytes
     * @return the unsigned host-order value
     */
    public static int ntohs(final short netShort) {
        return (LITTLE ? Short.reverseBytes(netShort) : netShort) & 0xFFFF;
    }

    /**
     * @param hostInt a 32-bit host-order value
     * @return the native int whose memory bytes are in network order
     */
    public static int htonl(final int hostInt) {
        return LITTLE ? Integer.reverseBytes(hostInt) : hostInt;
    }

    /**
     * @param netInt a native int read from memory holding network-order bytes
     * @return the host-order value
     */
    public static int ntohl(final int netInt) {
        return LITTLE ? Integer.reverseBytes(netInt) : netInt;
    }
}
