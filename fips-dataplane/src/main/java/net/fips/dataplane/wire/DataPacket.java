package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Owned form of a DataPacket body (inner msg_type 0x10): {@code src_port u16 LE ‖ dst_port u16 LE ‖ payload}. The
 * reference always sends src_port = dst_port = 256 with an IPv6 shim payload.
 *
 * @param srcPort source port (u16)
 * @param dstPort destination port (u16)
 * @param payload service payload
 */
public record DataPacket(int srcPort, int dstPort, byte[] payload) {
    /** Inner msg_type. */
    public static final int MSG_TYPE = 0x10;

    /** Checks ranges and copies the payload. */
    public DataPacket {
        Links.u16(srcPort, "src_port");
        Links.u16(dstPort, "dst_port");
        payload = payload.clone();
    }

    /** A copy of the payload. */
    @Override
    public byte[] payload() {
        return payload.clone();
    }

    /** The body bytes. */
    public byte[] encode() {
        return new Writer(PortHeader.SIZE + payload.length).u16(srcPort).u16(dstPort).bytes(payload).done();
    }

    /** Decodes a body (after the FSP inner header). */
    public static WireResult<DataPacket> decode(final MemorySegment seg, final long off, final long len) {
        final PortHeader h = new PortHeader();
        final WireResult<PortHeader> r = h.wrap(seg, off, len);
        if (!r.isOk()) {
            return WireResult.err(r.errorOrNull());
        }
        final byte[] p = seg.asSlice(h.payloadOffset(), h.payloadLength()).toArray(ValueLayout.JAVA_BYTE);
        return WireResult.ok(new DataPacket(h.srcPort(), h.dstPort(), p));
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<DataPacket> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof DataPacket d && d.srcPort == srcPort && d.dstPort == dstPort
                && Arrays.equals(d.payload, payload);
    }

    @Override
    public int hashCode() {
        return (srcPort * 31 + dstPort) * 31 + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return "DataPacket[srcPort=" + srcPort + ", dstPort=" + dstPort + ", payload=" + payload.length + " B]";
    }
}
