package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;

/**
 * The port-256 IPv6 shim, compression format 0x00:
 * <pre>
 *  0        1                 5             6           7
 *  | format | ipv6[0..4]      | next_header | hop_limit | ipv6[40..] (upper-layer payload, extension headers too)
 *  | 0x00   | ver/TC/flow raw | ipv6[6]     | ipv6[7]   |
 * </pre>
 * The first four IPv6 header bytes are copied verbatim (no re-packing of traffic class and flow label); payload
 * length and both addresses are dropped and rebuilt on decompression from the datagram's source node and our own
 * address. Both directions are total functions returning a {@link WireResult}.
 */
public final class Ipv6Shim {
    /** The only compression format. */
    public static final int FORMAT_COMPRESSED = 0x00;
    /** Fixed IPv6 header size. */
    public static final int IPV6_HEADER_SIZE = 40;
    /** Shim header size (format + 6 residual bytes). */
    public static final int SHIM_HEADER_SIZE = 7;

    private Ipv6Shim() {
    }

    /** Compresses an IPv6 packet of at least 40 bytes with version 6. */
    public static WireResult<byte[]> compress(final MemorySegment seg, final long off, final long len) {
        return Reader.run(seg, off, len, r -> {
            r.need(IPV6_HEADER_SIZE);
            final byte[] head = r.bytes(8);
            if ((head[0] & 0xF0) != 0x60) {
                throw WireException.of(WireError.BAD_VERSION);
            }
            r.skip(32);
            final byte[] upper = r.rest();
            final byte[] out = new byte[SHIM_HEADER_SIZE + upper.length];
            out[0] = FORMAT_COMPRESSED;
            System.arraycopy(head, 0, out, 1, 4);
            out[5] = head[6];
            out[6] = head[7];
            System.arraycopy(upper, 0, out, SHIM_HEADER_SIZE, upper.length);
            return out;
        });
    }

    /** As {@link #compress(MemorySegment, long, long)} over a byte array. */
    public static WireResult<byte[]> compress(final byte[] b, final int off, final int len) {
        return compress(MemorySegment.ofArray(b), off, len);
    }

    /**
     * Rebuilds the IPv6 packet: version forced to 6, payload length from the remaining bytes, source =
     * {@code fipsAddress(srcNode)}, destination = {@code dstIpv6} (our own 16-byte FIPS address).
     */
    public static WireResult<byte[]> decompress(final MemorySegment seg, final long off, final long len,
            final NodeAddr srcNode, final byte[] dstIpv6) {
        if (dstIpv6.length != 16) {
            throw new IllegalArgumentException("destination address is 16 bytes");
        }
        return Reader.run(seg, off, len, r -> {
            r.need(SHIM_HEADER_SIZE);
            if (r.u8() != FORMAT_COMPRESSED) {
                throw WireException.of(WireError.BAD_TYPE);
            }
            final byte[] residual = r.bytes(6);
            if (r.remaining() > 0xFFFF) {
                throw WireException.of(WireError.BAD_LENGTH);
            }
            final byte[] upper = r.rest();
            final byte[] out = new byte[IPV6_HEADER_SIZE + upper.length];
            out[0] = (byte) ((residual[0] & 0x0F) | 0x60);
            System.arraycopy(residual, 1, out, 1, 3);
            out[4] = (byte) (upper.length >>> 8);
            out[5] = (byte) upper.length;
            out[6] = residual[4];
            out[7] = residual[5];
            System.arraycopy(fipsAddress(srcNode), 0, out, 8, 16);
            System.arraycopy(dstIpv6, 0, out, 24, 16);
            System.arraycopy(upper, 0, out, IPV6_HEADER_SIZE, upper.length);
            return out;
        });
    }

    /** As {@link #decompress(MemorySegment, long, long, NodeAddr, byte[])} over a byte array. */
    public static WireResult<byte[]> decompress(final byte[] b, final int off, final int len, final NodeAddr srcNode,
            final byte[] dstIpv6) {
        return decompress(MemorySegment.ofArray(b), off, len, srcNode, dstIpv6);
    }

    /** The FIPS IPv6 address of a node: {@code fd ‖ node_addr[0..15]}. */
    public static byte[] fipsAddress(final NodeAddr node) {
        final byte[] a = new byte[16];
        a[0] = (byte) 0xfd;
        System.arraycopy(node.toBytes(), 0, a, 1, 15);
        return a;
    }
}
