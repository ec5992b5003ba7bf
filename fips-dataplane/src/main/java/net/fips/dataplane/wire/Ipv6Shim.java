package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The port-256 IPv6 shim, compression format 0x00:
 * <pre>
 *  0        1                 5             6           7
 *  | format | ipv6[0..4]      | next_header | hop_limit | ipv6[40..] (upper-layer payload, extension headers too)
 *  | 0x00   | ver/TC/flow raw | ipv6[6]     | ipv6[7]   |
 * </pre>
 * The first four IPv6 header bytes are copied verbatim (no re-packing of traffic class and flow label); payload
 * length and both addresses are dropped and rebuilt on decompression from the datagram's source node and our own
 * address. A packet therefore shrinks by {@value #COMPRESSION_SAVING} bytes.
 * <p>
 * Two API families describe the same bytes:
 * <ul>
 *   <li>allocation-free data-plane functions over {@link MemorySegment} regions ({@link #compressInPlace},
 *       {@link #compressTo}, {@link #decompressInPlace}, {@link #decompressTo}), returning an offset or length
 *       {@code >= 0} or a negative status that {@link #errorOf(long)} turns into a {@link WireError};</li>
 *   <li>owned byte-array conveniences returning a {@link WireResult} (control path, tests).</li>
 * </ul>
 * Checks are the reference's: compression needs at least 40 bytes and version 6 (the payload length field is not
 * consulted: everything after byte 40 of the region is the upper-layer payload); decompression needs at least
 * 7 bytes and format 0x00, forces the version nibble to 6 and writes payload length = region length - 7.
 */
public final class Ipv6Shim {
    /** The only compression format. */
    public static final int FORMAT_COMPRESSED = 0x00;
    /** Fixed IPv6 header size. */
    public static final int IPV6_HEADER_SIZE = 40;
    /** Shim header size (format + 6 residual bytes). */
    public static final int SHIM_HEADER_SIZE = 7;
    /** Bytes saved by compression: 40-byte IPv6 header replaced by the 7-byte shim header. */
    public static final int COMPRESSION_SAVING = IPV6_HEADER_SIZE - SHIM_HEADER_SIZE;
    /** Largest upper-layer payload a rebuilt IPv6 packet can announce in its 16-bit payload length. */
    public static final int MAX_UPPER_PAYLOAD = 0xFFFF;

    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort BE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final WireError[] ERRORS = WireError.values();

    private Ipv6Shim() {
    }

    /** The negative status a data-plane function returns for {@code error}. */
    public static long status(final WireError error) {
        return -1L - error.ordinal();
    }

    /**
     * @param result a value returned by one of the data-plane functions
     * @return the error it encodes, or null when {@code result >= 0} (success)
     */
    public static WireError errorOf(final long result) {
        if (result >= 0) {
            return null;
        }
        final long i = -1L - result;
        return i < ERRORS.length ? ERRORS[(int) i] : WireError.INVALID_FIELD;
    }

    private static long checkIpv6(final MemorySegment seg, final long off, final long len) {
        if (off < 0 || len < 0 || off > seg.byteSize() - len) {
            return status(WireError.BAD_LENGTH);
        }
        if (len < IPV6_HEADER_SIZE) {
            return status(WireError.TRUNCATED);
        }
        if ((seg.get(ValueLayout.JAVA_BYTE, off) & 0xF0) != 0x60) {
            return status(WireError.BAD_VERSION);
        }
        return 0;
    }

    private static long checkShim(final MemorySegment seg, final long off, final long len) {
        if (off < 0 || len < 0 || off > seg.byteSize() - len) {
            return status(WireError.BAD_LENGTH);
        }
        if (len < SHIM_HEADER_SIZE) {
            return status(WireError.TRUNCATED);
        }
        if (seg.get(ValueLayout.JAVA_BYTE, off) != FORMAT_COMPRESSED) {
            return status(WireError.BAD_TYPE);
        }
        if (len - SHIM_HEADER_SIZE > MAX_UPPER_PAYLOAD) {
            return status(WireError.BAD_LENGTH);
        }
        return 0;
    }

    /**
     * Compresses the IPv6 packet at {@code [off, off+len)} where it lies: the upper-layer payload stays put and the
     * 7-byte shim header is written over bytes {@code off+33 .. off+40} of the old IPv6 header.
     *
     * @return the offset of the shim, {@code off + 33} (its length is {@code len - 33}), or a negative status
     */
    public static long compressInPlace(final MemorySegment seg, final long off, final long len) {
        final long check = checkIpv6(seg, off, len);
        if (check < 0) {
            return check;
        }
        final long shim = off + COMPRESSION_SAVING;
        writeShimHeader(seg, shim, seg.get(BE_INT, off), seg.get(BE_SHORT, off + 6));
        return shim;
    }

    /**
     * Compresses the IPv6 packet at {@code src[srcOff, srcOff+len)} into {@code dst} at {@code dstOff}. The regions
     * may overlap (the payload is moved with {@link MemorySegment#copy}, which is overlap-safe).
     *
     * @return the shim length {@code len - 33}, or a negative status (also when {@code dst} is too small)
     */
    public static long compressTo(final MemorySegment src, final long srcOff, final long len, final MemorySegment dst,
            final long dstOff) {
        final long check = checkIpv6(src, srcOff, len);
        if (check < 0) {
            return check;
        }
        final long outLen = len - COMPRESSION_SAVING;
        if (dstOff < 0 || dstOff > dst.byteSize() - outLen) {
            return status(WireError.BAD_LENGTH);
        }
        final int verTcFlow = src.get(BE_INT, srcOff);
        final short nhHop = src.get(BE_SHORT, srcOff + 6);
        MemorySegment.copy(src, srcOff + IPV6_HEADER_SIZE, dst, dstOff + SHIM_HEADER_SIZE, len - IPV6_HEADER_SIZE);
        writeShimHeader(dst, dstOff, verTcFlow, nhHop);
        return outLen;
    }

    private static void writeShimHeader(final MemorySegment dst, final long at, final int verTcFlow,
            final short nextHeaderHopLimit) {
        dst.set(ValueLayout.JAVA_BYTE, at, (byte) FORMAT_COMPRESSED);
        dst.set(BE_INT, at + 1, verTcFlow);
        dst.set(BE_SHORT, at + 5, nextHeaderHopLimit);
    }

    /**
     * Rebuilds the IPv6 packet from the shim at {@code [off, off+len)} where it lies: the 40-byte header is written
     * over the 33 bytes before the shim plus the shim header itself, so the caller needs {@code off >= 33} bytes of
     * headroom in {@code seg} (on the inbound path those are the already-stripped outer headers).
     *
     * @param srcHi source IPv6 address bytes 0-7 (big-endian): the session peer's {@code fd ‖ node_addr[0..15]}
     * @param srcLo source IPv6 address bytes 8-15
     * @param dstHi destination IPv6 address bytes 0-7: our own FIPS address
     * @param dstLo destination IPv6 address bytes 8-15
     * @return the packet offset {@code off - 33} (its length is {@code len + 33}), or a negative status
     */
    public static long decompressInPlace(final MemorySegment seg, final long off, final long len, final long srcHi,
            final long srcLo, final long dstHi, final long dstLo) {
        final long check = checkShim(seg, off, len);
        if (check < 0) {
            return check;
        }
        if (off < COMPRESSION_SAVING) {
            return status(WireError.BAD_LENGTH);
        }
        final long pkt = off - COMPRESSION_SAVING;
        writeIpv6Header(seg, pkt, seg.get(BE_INT, off + 1), seg.get(BE_SHORT, off + 5), len - SHIM_HEADER_SIZE,
                srcHi, srcLo, dstHi, dstLo);
        return pkt;
    }

    /**
     * Rebuilds the IPv6 packet from the shim at {@code src[srcOff, srcOff+len)} into {@code dst} at {@code dstOff};
     * the regions may overlap.
     *
     * @return the packet length {@code len + 33}, or a negative status (also when {@code dst} is too small)
     * @see #decompressInPlace for the address arguments
     */
    public static long decompressTo(final MemorySegment src, final long srcOff, final long len,
            final MemorySegment dst, final long dstOff, final long srcHi, final long srcLo, final long dstHi,
            final long dstLo) {
        final long check = checkShim(src, srcOff, len);
        if (check < 0) {
            return check;
        }
        final long outLen = len + COMPRESSION_SAVING;
        if (dstOff < 0 || dstOff > dst.byteSize() - outLen) {
            return status(WireError.BAD_LENGTH);
        }
        final int verTcFlow = src.get(BE_INT, srcOff + 1);
        final short nhHop = src.get(BE_SHORT, srcOff + 5);
        final long upper = len - SHIM_HEADER_SIZE;
        MemorySegment.copy(src, srcOff + SHIM_HEADER_SIZE, dst, dstOff + IPV6_HEADER_SIZE, upper);
        writeIpv6Header(dst, dstOff, verTcFlow, nhHop, upper, srcHi, srcLo, dstHi, dstLo);
        return outLen;
    }

    private static void writeIpv6Header(final MemorySegment dst, final long at, final int verTcFlow,
            final short nextHeaderHopLimit, final long upperLen, final long srcHi, final long srcLo, final long dstHi,
            final long dstLo) {
        dst.set(BE_INT, at, (verTcFlow & 0x0FFF_FFFF) | 0x6000_0000);
        dst.set(BE_SHORT, at + 4, (short) upperLen);
        dst.set(BE_SHORT, at + 6, nextHeaderHopLimit);
        dst.set(BE_LONG, at + 8, srcHi);
        dst.set(BE_LONG, at + 16, srcLo);
        dst.set(BE_LONG, at + 24, dstHi);
        dst.set(BE_LONG, at + 32, dstLo);
    }

    /** Compresses an IPv6 packet of at least 40 bytes with version 6 into a new array. */
    public static WireResult<byte[]> compress(final MemorySegment seg, final long off, final long len) {
        final long check = checkIpv6(seg, off, len);
        if (check < 0) {
            return WireResult.err(errorOf(check));
        }
        final byte[] out = new byte[(int) (len - COMPRESSION_SAVING)];
        compressTo(seg, off, len, MemorySegment.ofArray(out), 0);
        return WireResult.ok(out);
    }

    /** As {@link #compress(MemorySegment, long, long)} over a byte array. */
    public static WireResult<byte[]> compress(final byte[] b, final int off, final int len) {
        return compress(MemorySegment.ofArray(b), off, len);
    }

    /**
     * Rebuilds the IPv6 packet into a new array: version forced to 6, payload length from the remaining bytes,
     * source = {@code fipsAddress(srcNode)}, destination = {@code dstIpv6} (our own 16-byte FIPS address).
     */
    public static WireResult<byte[]> decompress(final MemorySegment seg, final long off, final long len,
            final NodeAddr srcNode, final byte[] dstIpv6) {
        if (dstIpv6.length != 16) {
            throw new IllegalArgumentException("destination address is 16 bytes");
        }
        final long check = checkShim(seg, off, len);
        if (check < 0) {
            return WireResult.err(errorOf(check));
        }
        final MemorySegment d = MemorySegment.ofArray(dstIpv6);
        final byte[] out = new byte[(int) (len + COMPRESSION_SAVING)];
        decompressTo(seg, off, len, MemorySegment.ofArray(out), 0, fipsAddressHi(srcNode.hi()),
                fipsAddressLo(srcNode.hi(), srcNode.lo()), d.get(BE_LONG, 0), d.get(BE_LONG, 8));
        return WireResult.ok(out);
    }

    /** As {@link #decompress(MemorySegment, long, long, NodeAddr, byte[])} over a byte array. */
    public static WireResult<byte[]> decompress(final byte[] b, final int off, final int len, final NodeAddr srcNode,
            final byte[] dstIpv6) {
        return decompress(MemorySegment.ofArray(b), off, len, srcNode, dstIpv6);
    }

    /** The FIPS IPv6 address of a node: {@code fd ‖ node_addr[0..15]}. */
    public static byte[] fipsAddress(final NodeAddr node) {
        final byte[] a = new byte[16];
        final MemorySegment s = MemorySegment.ofArray(a);
        s.set(BE_LONG, 0, fipsAddressHi(node.hi()));
        s.set(BE_LONG, 8, fipsAddressLo(node.hi(), node.lo()));
        return a;
    }

    /** Bytes 0-7 (big-endian) of the FIPS IPv6 address of the node whose address bytes 0-7 are {@code nodeHi}. */
    public static long fipsAddressHi(final long nodeHi) {
        return 0xFDL << 56 | nodeHi >>> 8;
    }

    /** Bytes 8-15 (big-endian) of the FIPS IPv6 address of node {@code (nodeHi, nodeLo)}. */
    public static long fipsAddressLo(final long nodeHi, final long nodeLo) {
        return nodeHi << 56 | nodeLo >>> 8;
    }
}
