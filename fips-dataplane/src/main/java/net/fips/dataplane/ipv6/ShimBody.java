package net.fips.dataplane.ipv6;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import net.fips.dataplane.wire.Ipv6Shim;
import net.fips.dataplane.wire.PortHeader;
import net.fips.dataplane.wire.WireError;

/**
 * The port-256 DataPacket body the IPv6 adapter sends and receives, built in place inside a packet slot:
 * <pre>
 *  0                2                4        5                 9      10     11
 *  | src_port u16LE | dst_port u16LE | format | ipv6[0..4] raw   | nh   | hop  | ipv6[40..] upper-layer payload
 *  | 256            | 256            | 0x00   | ver/TC/flow      |      |      |
 * </pre>
 * ({@link PortHeader} then {@link Ipv6Shim}). Outbound, the 40-byte IPv6 header becomes this 11-byte body header
 * without moving the payload: the body starts {@value #BODY_SHRINK} bytes after the packet and the freed bytes
 * become headroom for the FSP/FMP headers. Inbound, the 11-byte header grows back into 40 bytes over bytes already
 * stripped in front of it ({@value #BODY_SHRINK} bytes of headroom needed).
 * <p>
 * Results: an offset {@code >= 0} or a negative status; {@link #errorOf(long)} names it. Receivers dispatch on
 * {@code dst_port} only and ignore {@code src_port}, as the reference.
 */
public final class ShimBody {
    /** The IPv6 shim port, sent as both src_port and dst_port. */
    public static final int PORT = PortHeader.PORT_IPV6_SHIM;
    /** Port header + shim header. */
    public static final int BODY_HEADER = PortHeader.SIZE + Ipv6Shim.SHIM_HEADER_SIZE;
    /** IPv6 packet length - body length: 40 - 11. */
    public static final int BODY_SHRINK = Ipv6Shim.IPV6_HEADER_SIZE - BODY_HEADER;
    /** Status: the body's dst_port is not 256 (the reference drops it). */
    public static final long ERR_PORT = Ipv6Shim.status(WireError.INVALID_FIELD);

    private static final ValueLayout.OfShort LE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private ShimBody() {
    }

    /**
     * Turns the IPv6 packet at {@code [off, off+len)} (at least 40 bytes, version 6) into a port-256 DataPacket body
     * in place.
     *
     * @return the body offset {@code off + 29} (body length {@code len - 29}), or a negative status
     */
    public static long encodeInPlace(final MemorySegment seg, final long off, final long len) {
        final long shim = Ipv6Shim.compressInPlace(seg, off, len);
        if (shim < 0) {
            return shim;
        }
        final long body = shim - PortHeader.SIZE;
        PortHeader.write(seg, body, PORT, PORT);
        return body;
    }

    /**
     * Rebuilds the IPv6 packet from the DataPacket body at {@code [off, off+len)} in place (needs {@code off >= 29}).
     *
     * @param srcHi the peer's FIPS address bytes 0-7 ({@link Ipv6Packet#fipsAddressHi} of the datagram source)
     * @param srcLo the peer's FIPS address bytes 8-15
     * @param dstHi our own FIPS address bytes 0-7
     * @param dstLo our own FIPS address bytes 8-15
     * @return the packet offset {@code off - 29} (packet length {@code len + 29}), {@link #ERR_PORT} or another
     *         negative status
     */
    public static long decodeInPlace(final MemorySegment seg, final long off, final long len, final long srcHi,
            final long srcLo, final long dstHi, final long dstLo) {
        final long check = checkPort(seg, off, len);
        if (check < 0) {
            return check;
        }
        return Ipv6Shim.decompressInPlace(seg, off + PortHeader.SIZE, len - PortHeader.SIZE, srcHi, srcLo, dstHi,
                dstLo);
    }

    /**
     * As {@link #encodeInPlace} but writing the body into {@code dst} at {@code dstOff} (regions may overlap).
     *
     * @return the body length {@code len - 29}, or a negative status
     */
    public static long encodeTo(final MemorySegment src, final long srcOff, final long len, final MemorySegment dst,
            final long dstOff) {
        if (dstOff < 0 || dstOff > dst.byteSize() - PortHeader.SIZE) {
            return Ipv6Shim.status(WireError.BAD_LENGTH);
        }
        final long shimLen = Ipv6Shim.compressTo(src, srcOff, len, dst, dstOff + PortHeader.SIZE);
        if (shimLen < 0) {
            return shimLen;
        }
        PortHeader.write(dst, dstOff, PORT, PORT);
        return shimLen + PortHeader.SIZE;
    }

    /**
     * As {@link #decodeInPlace} but writing the packet into {@code dst} at {@code dstOff} (regions may overlap).
     *
     * @return the packet length {@code len + 29}, or a negative status
     */
    public static long decodeTo(final MemorySegment src, final long srcOff, final long len, final MemorySegment dst,
            final long dstOff, final long srcHi, final long srcLo, final long dstHi, final long dstLo) {
        final long check = checkPort(src, srcOff, len);
        if (check < 0) {
            return check;
        }
        return Ipv6Shim.decompressTo(src, srcOff + PortHeader.SIZE, len - PortHeader.SIZE, dst, dstOff, srcHi, srcLo,
                dstHi, dstLo);
    }

    private static long checkPort(final MemorySegment seg, final long off, final long len) {
        if (!Ipv6Packet.inBounds(seg, off, len)) {
            return Ipv6Shim.status(WireError.BAD_LENGTH);
        }
        if (len < PortHeader.SIZE) {
            return Ipv6Shim.status(WireError.TRUNCATED);
        }
        final int dstPort = Short.toUnsignedInt(seg.get(LE_SHORT, off + PortHeader.DST_PORT_OFFSET));
        return dstPort == PORT ? 0 : ERR_PORT;
    }

    /** The error a negative result names, or null for a success. */
    public static WireError errorOf(final long result) {
        return Ipv6Shim.errorOf(result);
    }
}
