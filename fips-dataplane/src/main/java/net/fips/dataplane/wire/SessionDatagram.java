package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.lang.foreign.ValueLayout;

/**
 * Owned form of a SessionDatagram link message (type 0x00), for the control plane and tests; the forwarding path
 * uses {@link SessionDatagramHeader} instead.
 * Layout: {@code 00 ‖ ttl ‖ path_mtu u16 LE ‖ src(16) ‖ dest(16) ‖ payload}.
 *
 * @param ttl     hop limit (u8)
 * @param pathMtu path MTU (u16)
 * @param src     source node
 * @param dest    destination node
 * @param payload the FSP message
 */
public record SessionDatagram(int ttl, int pathMtu, NodeAddr src, NodeAddr dest, byte[] payload) {
    /** Checks ranges and copies the payload. */
    public SessionDatagram {
        if ((ttl & ~0xFF) != 0 || (pathMtu & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("ttl is u8 and path_mtu u16");
        }
        payload = payload.clone();
    }

    /** A copy of the payload. */
    @Override
    public byte[] payload() {
        return payload.clone();
    }

    /** The link message including msg_type. */
    public byte[] encode() {
        final byte[] out = new byte[SessionDatagramHeader.SIZE + payload.length];
        final MemorySegment s = MemorySegment.ofArray(out);
        SessionDatagramHeader.write(s, 0, ttl, pathMtu, src, dest);
        System.arraycopy(payload, 0, out, SessionDatagramHeader.SIZE, payload.length);
        return out;
    }

    /** Decodes a link message starting at its msg_type byte. */
    public static WireResult<SessionDatagram> decode(final MemorySegment seg, final long off, final long len) {
        final SessionDatagramHeader h = new SessionDatagramHeader();
        final WireResult<SessionDatagramHeader> r = h.wrap(seg, off, len);
        if (!r.isOk()) {
            return WireResult.err(r.errorOrNull());
        }
        final byte[] payload = seg.asSlice(h.payloadOffset(), h.payloadLength()).toArray(
                ValueLayout.JAVA_BYTE);
        return WireResult.ok(new SessionDatagram(h.ttl(), h.pathMtu(), h.src(), h.dest(), payload));
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<SessionDatagram> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof SessionDatagram d && d.ttl == ttl && d.pathMtu == pathMtu && d.src.equals(src)
                && d.dest.equals(dest) && Arrays.equals(d.payload, payload);
    }

    @Override
    public int hashCode() {
        return ((ttl * 31 + pathMtu) * 31 + src.hashCode()) * 31 + dest.hashCode() * 7 + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return "SessionDatagram[ttl=" + ttl + ", pathMtu=" + pathMtu + ", src=" + src + ", dest=" + dest
                + ", payload=" + payload.length + " B]";
    }
}
