package net.fips.dataplane.engine;

import java.lang.foreign.MemorySegment;

import net.fips.dataplane.ipv6.Ipv6Packet;
import net.fips.dataplane.wire.NodeAddr;

/**
 * Which worker owns what: a link is pinned to worker {@code linkId mod W}, an end-to-end session (and the IPv6
 * destinations of its node prefix) to the worker its prefix hashes to. Every producer routes slots with these, so
 * a link's frames and a session's messages always meet on one thread.
 */
final class Pinning {
    private Pinning() {
    }

    /** The worker a link is pinned to. */
    static int ofLink(final long linkId, final int workers) {
        return (int) Math.floorMod(linkId, (long) workers);
    }

    /** The worker a session (or an IPv6 destination with this node prefix) is pinned to. */
    static int ofSession(final long prefixHi, final long prefixLo, final int workers) {
        return Math.floorMod(SessionMap.hash(prefixHi, prefixLo), workers);
    }

    /** The worker of the session with {@code node}. */
    static int ofNode(final NodeAddr node, final int workers) {
        return ofSession(node.hi(), SessionMap.prefixLo(node.lo()), workers);
    }

    /**
     * The worker an outbound IPv6 packet goes to: the owner of its destination's session; worker 0 (which counts
     * and drops it) for a packet that is not IPv6.
     */
    static int ofPacket(final MemorySegment seg, final long off, final int len, final int workers) {
        if (Ipv6Packet.checkHeader(seg, off, len) != Ipv6Packet.OK) {
            return 0;
        }
        final long hi = Ipv6Packet.dstHi(seg, off);
        final long lo = Ipv6Packet.dstLo(seg, off);
        return ofSession(Ipv6Packet.nodePrefixHi(hi, lo), Ipv6Packet.nodePrefixLo(lo), workers);
    }
}
