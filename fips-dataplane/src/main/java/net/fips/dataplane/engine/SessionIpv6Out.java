package net.fips.dataplane.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import net.fips.dataplane.Ipv6Sink;
import net.fips.dataplane.ipv6.Icmpv6Errors;
import net.fips.dataplane.ipv6.Ipv6Packet;
import net.fips.dataplane.ipv6.PtbRateLimiter;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.tun.TunCoalescer;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The IPv6 side of one worker's session path: the {@link Ipv6Sink} (TUN) that decrypted packets are written to,
 * and the ICMPv6 errors the session path answers with (Packet Too Big, Destination Unreachable, rate-limited per
 * source; routing-session.md §5.8, ADR 0011), or that the control plane built. Counts what it writes and loses.
 * Single-threaded: owned by its worker's {@link SessionPath}.
 */
final class SessionIpv6Out {
    private final PacketPool pool;
    private final Counters counters;
    private final Ipv6Sink sink;
    private final TunCoalescer coalescer;
    private long coalescedReported;
    private final PtbRateLimiter ptb = new PtbRateLimiter();
    private final PtbRateLimiter unreachableLimiter = new PtbRateLimiter();

    /** @param sink where decrypted packets and ICMPv6 errors go; null: nowhere (counted as sink drops) */
    SessionIpv6Out(final PacketPool pool, final Counters counters, final Ipv6Sink sink) {
        this.pool = pool;
        this.counters = counters;
        this.sink = sink;
        this.coalescer = sink instanceof TunCoalescer c ? c : null;
    }

    /**
     * Writes the decrypted IPv6 packet at {@code seg[packet, packet+len)}.
     *
     * @return false when there is no sink or it did not take the whole packet (nothing counted)
     */
    boolean write(final MemorySegment seg, final long packet, final int len) {
        return sink != null && sink.write(seg, packet, len) == len;
    }

    /**
     * Whether a Destination Unreachable may go to the source of the packet at {@code seg[off, ...)} now (one per
     * source per interval).
     */
    boolean unreachableAllowed(final MemorySegment seg, final long off, final long now) {
        return unreachableLimiter.shouldSend(Ipv6Packet.srcHi(seg, off), Ipv6Packet.srcLo(seg, off), now);
    }

    /** Answers the packet at {@code seg[off, off+len)} with a Packet Too Big for {@code mtu} (rate-limited). */
    void packetTooBig(final MemorySegment seg, final long off, final int len, final int mtu,
                              final long now) {
        if (sink == null || !ptb.shouldSend(Ipv6Packet.srcHi(seg, off), Ipv6Packet.srcLo(seg, off), now)) {
            return;
        }
        final int slot = pool.acquire();
        if (slot == PacketPool.NO_SLOT) {
            counters.increment(DataPlaneCounter.DROP_POOL_EXHAUSTED);
            return;
        }
        final MemorySegment dst = pool.slotSegment(slot);
        final int n = Icmpv6Errors.packetTooBigForTun(seg, off, len, mtu, dst, SlotDescriptor.DEFAULT_DATA_OFFSET);
        writeError(dst, n);
        pool.release(slot);
    }

    /** Answers the packet at {@code seg[off, off+len)} with a Destination Unreachable, no route, from us. */
    void destinationUnreachable(final ForwardingTable table, final MemorySegment seg, final long off,
                                        final int len) {
        if (sink == null) {
            return;
        }
        final int slot = pool.acquire();
        if (slot == PacketPool.NO_SLOT) {
            counters.increment(DataPlaneCounter.DROP_POOL_EXHAUSTED);
            return;
        }
        final MemorySegment dst = pool.slotSegment(slot);
        final NodeAddr self = table.self();
        final int n = Icmpv6Errors.destinationUnreachable(seg, off, len, Icmpv6Errors.CODE_NO_ROUTE,
                Ipv6Packet.fipsAddressHi(self.hi()), Ipv6Packet.fipsAddressLo(self.hi(), self.lo()), dst,
                SlotDescriptor.DEFAULT_DATA_OFFSET);
        writeError(dst, n);
        pool.release(slot);
    }

    private void writeError(final MemorySegment dst, final int n) {
        if (n > 0) {
            if (sink.write(dst, SlotDescriptor.DEFAULT_DATA_OFFSET, n) == n) {
                counters.increment(DataPlaneCounter.ICMPV6_ERRORS_SENT);
            } else {
                counters.increment(DataPlaneCounter.DROP_IPV6_SINK);
            }
        }
    }

    /** An IPv6 packet the control plane built (an ICMPv6 error): written as is. */
    void writeIpv6(final byte[] packet) {
        if (sink == null || packet.length > pool.maxMtuBytes()) {
            counters.increment(DataPlaneCounter.DROP_IPV6_SINK);
            return;
        }
        final int slot = pool.acquire();
        if (slot == PacketPool.NO_SLOT) {
            counters.increment(DataPlaneCounter.DROP_POOL_EXHAUSTED);
            return;
        }
        final MemorySegment dst = pool.slotSegment(slot);
        MemorySegment.copy(packet, 0, dst, ValueLayout.JAVA_BYTE, SlotDescriptor.DEFAULT_DATA_OFFSET, packet.length);
        writeError(dst, packet.length);
        pool.release(slot);
    }

    /**
     * End of a worker duty cycle: the sink writes what it held back (a coalesced TCP train); packets that write
     * lost are counted as {@link DataPlaneCounter#DROP_IPV6_SINK}.
     */
    void flushIpv6() {
        if (sink != null) {
            final int lost = sink.flush();
            if (lost > 0) {
                counters.add(DataPlaneCounter.DROP_IPV6_SINK, lost);
            }
            if (coalescer != null) {
                final long c = coalescer.coalescedSegments();
                if (c != coalescedReported) {
                    counters.add(DataPlaneCounter.TUN_COALESCED, c - coalescedReported);
                    coalescedReported = c;
                }
            }
        }
    }
}
