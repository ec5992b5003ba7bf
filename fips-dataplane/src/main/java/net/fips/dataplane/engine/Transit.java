package net.fips.dataplane.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.route.NextHop;
import net.fips.dataplane.route.RouteClass;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.FmpEstablishedHeader;
import net.fips.dataplane.wire.FmpInnerHeader;
import net.fips.dataplane.wire.FspCpCoords;
import net.fips.dataplane.wire.FspFlags;
import net.fips.dataplane.wire.FspHeader;
import net.fips.dataplane.wire.FspPrefix;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionAck;
import net.fips.dataplane.wire.SessionDatagramHeader;
import net.fips.dataplane.wire.SessionSetup;
import net.fips.dataplane.wire.WireResult;

/**
 * The transit decision of one worker (routing-session.md §4.2) for a SessionDatagram it opened while a
 * {@link ForwardingTable} is installed: ttl 0 is dropped; coordinates the datagram carries (SessionSetup,
 * SessionAck, CP) are reported to the control plane and used for this packet's routing; one addressed to us is
 * delivered; otherwise {@link NextHop} picks the peer, ttl is decremented and path_mtu folded with the peer's link
 * MTU, in place. No route: a counted drop and a rate-limited {@link DataPlaneEvent.RoutingError}. Too big for the
 * outbound transport's MTU once framed: a counted drop and a {@link DataPlaneEvent.ForwardMtuExceeded} under the
 * same per-destination limit (§4.5).
 *
 * <p>Returns its verdict; the worker seals the slot for the chosen link or hands it to that link's worker. Drops
 * are counted here and the slot is the caller's to release. Single-threaded: owned by its worker.
 */
final class Transit {
    /** {@link #route}: the datagram is addressed to this node (counted as delivered). */
    static final int LOCAL = -1;
    /** {@link #route}, {@link #fitsForward}: dropped and counted; the caller releases the slot. */
    static final int DROPPED = -2;
    /** At most one routing error per destination per this interval (the reference's 100 ms). */
    static final long ROUTING_ERROR_INTERVAL_NANOS = 100_000_000L;

    private static final int HEADER = FmpEstablishedHeader.SIZE;
    private static final int TAG = AeadCipher.TAG_BYTES;
    private static final int TIMESTAMP = FmpInnerHeader.MSG_TYPE_OFFSET;
    private static final int DATAGRAM_HEADER = SessionDatagramHeader.SIZE;
    private static final ValueLayout.OfLong U64_BE = Layouts.U64_BE;
    /** Slots of the routing-error rate limiter (direct-mapped by destination). */
    private static final int ERROR_SLOTS = 1024;
    private static final DataPlaneCounter[] ROUTE_COUNTERS = {
        DataPlaneCounter.ROUTE_DIRECT_PEER, DataPlaneCounter.ROUTE_TREE_UP, DataPlaneCounter.ROUTE_TREE_DOWN,
        DataPlaneCounter.ROUTE_TREE_DOWN_CROSS, DataPlaneCounter.ROUTE_CROSSLINK_DESCEND,
        DataPlaneCounter.ROUTE_CROSSLINK_ASCEND,
    };

    static {
        if (ROUTE_COUNTERS.length != RouteClass.values().length) {
            throw new ExceptionInInitializerError("one counter per route class");
        }
    }

    private final PacketPool pool;
    private final EventQueue events;
    private final Counters counters;
    private final CycleClock clock;
    private final NextHop nextHop = new NextHop();
    private final long[] coordHi;
    private final long[] coordLo;
    private final long[] errorAt = new long[ERROR_SLOTS];
    private final boolean[] errorSet = new boolean[ERROR_SLOTS];
    /** Set by {@link #route} when it picked a peer: CE of the incoming frame, route class ordinal above. */
    private int forwardFlags;

    Transit(final PacketPool pool, final EventQueue events, final Counters counters, final CycleClock clock) {
        this.pool = pool;
        this.events = events;
        this.counters = counters;
        this.clock = clock;
        final int maxCoords = pool.maxMtuBytes() / NodeAddr.SIZE + 1;
        this.coordHi = new long[maxCoords];
        this.coordLo = new long[maxCoords];
    }

    /**
     * Routes the SessionDatagram at {@code seg[m, m+len)}. With a peer chosen, the datagram is made the slot's data
     * (the seal prepends the FMP header in the headroom before it) and {@link #forwardFlags()} holds the flags of
     * the forward.
     *
     * @param fmpFlags      the flags of the FMP frame that carried it (CE)
     * @param arrivalLinkId the link it arrived on (named in a routing error, ADR 0064)
     * @return the table's peer index to forward to, {@link #LOCAL}, or {@link #DROPPED}
     */
    int route(final ForwardingTable forwarding, final MemorySegment seg, final long m, final int len,
              final int fmpFlags, final long arrivalLinkId) {
        if (len < DATAGRAM_HEADER) {
            counters.increment(DataPlaneCounter.DROP_MALFORMED_DATAGRAM);
            return DROPPED;
        }
        final int ttl = Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, m + SessionDatagramHeader.TTL_OFFSET));
        if (ttl == 0) {
            counters.increment(DataPlaneCounter.DROP_TTL_EXHAUSTED);
            return DROPPED;
        }
        final long destHi = seg.get(U64_BE, m + SessionDatagramHeader.DEST_OFFSET);
        final long destLo = seg.get(U64_BE, m + SessionDatagramHeader.DEST_OFFSET + 8);
        final int coordLen = warm(seg, m, len);
        if (destHi == forwarding.self().hi() && destLo == forwarding.self().lo()) {
            counters.increment(DataPlaneCounter.DATAGRAMS_DELIVERED);
            return LOCAL;
        }
        final long now = clock.now();
        final int peer = nextHop.find(forwarding, destHi, destLo, now, coordHi, coordLo, coordLen);
        if (peer < 0) {
            onNoRoute(seg, m, destHi, destLo, peer == NextHop.NO_ROUTE_HAD_COORDS, now, arrivalLinkId);
            counters.increment(DataPlaneCounter.DROP_NO_ROUTE);
            return DROPPED;
        }
        seg.set(ValueLayout.JAVA_BYTE, m + SessionDatagramHeader.TTL_OFFSET, (byte) (ttl - 1));
        final int pathMtu = Short.toUnsignedInt(seg.get(Layouts.U16, m + SessionDatagramHeader.PATH_MTU_OFFSET));
        final int linkMtu = forwarding.linkMtu(peer);
        if (linkMtu < pathMtu) {
            seg.set(Layouts.U16, m + SessionDatagramHeader.PATH_MTU_OFFSET, (short) linkMtu);
        }
        // Counted with the forward once it is sealed, as the reference counts route classes of sent packets.
        final int routeClass = nextHop.classifyLast(forwarding, destHi, destLo, peer).ordinal();
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD, (int) m);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD, len);
        forwardFlags = (fmpFlags & FmpEstablishedHeader.FLAG_CE) | routeClass << 8;
        return peer;
    }

    /** @return the flags of the forward {@link #route} chose last: the FMP flags to add (CE), route class << 8 */
    int forwardFlags() {
        return forwardFlags;
    }

    /** Counts a sealed forward: FORWARDED, its route class, and CE_FORWARDED when it left with CE. */
    void countForwarded(final int forwardFlags, final int fmpFlags) {
        counters.increment(DataPlaneCounter.FORWARDED);
        counters.increment(ROUTE_COUNTERS[(forwardFlags >>> 8) & 0xFF]);
        if ((fmpFlags & FmpEstablishedHeader.FLAG_CE) != 0) {
            counters.increment(DataPlaneCounter.CE_FORWARDED);
        }
    }

    /**
     * Coordinate warming (§4.2 step 3): reports coordinates a SessionSetup, SessionAck or CP message carries and
     * copies the destination's into {@link #coordHi}/{@link #coordLo} for this packet's routing. Parse errors are
     * ignored. Allocates, but only for these (rare) packets.
     *
     * @return the number of destination coordinate entries copied; 0 if none
     */
    private int warm(final MemorySegment seg, final long m, final int len) {
        final long payload = m + DATAGRAM_HEADER;
        final int payloadLen = len - DATAGRAM_HEADER;
        if (payloadLen < FspPrefix.SIZE) {
            return 0;
        }
        final int b0 = Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, payload));
        final int phase = b0 & 0x0F;
        final Coords src;
        final Coords dest;
        if (phase == FspPrefix.PHASE_MSG1) {
            final WireResult<SessionSetup> r = SessionSetup.decode(seg, payload, payloadLen);
            if (!r.isOk()) {
                return 0;
            }
            src = r.valueOrNull().srcCoords();
            dest = r.valueOrNull().destCoords();
        } else if (phase == FspPrefix.PHASE_MSG2) {
            final WireResult<SessionAck> r = SessionAck.decode(seg, payload, payloadLen);
            if (!r.isOk()) {
                return 0;
            }
            src = r.valueOrNull().srcCoords();
            dest = r.valueOrNull().destCoords();
        } else if (phase == FspPrefix.PHASE_ESTABLISHED
                && (seg.get(ValueLayout.JAVA_BYTE, payload + FspPrefix.FLAGS_OFFSET) & FspFlags.CP) != 0) {
            if (payloadLen < FspHeader.SIZE) {
                return 0;
            }
            final WireResult<FspCpCoords> r = FspCpCoords.decode(seg, payload + FspHeader.SIZE,
                    payloadLen - FspHeader.SIZE);
            if (!r.isOk()) {
                return 0;
            }
            src = r.valueOrNull().src().isEmpty() ? null : r.valueOrNull().src();
            dest = r.valueOrNull().dest().isEmpty() ? null : r.valueOrNull().dest();
            if (src == null && dest == null) {
                return 0;
            }
        } else {
            return 0;
        }
        counters.increment(DataPlaneCounter.COORDS_OBSERVED);
        events.offer(new DataPlaneEvent.CoordsObserved(NodeAddr.read(seg, m + SessionDatagramHeader.SRC_OFFSET), src,
                NodeAddr.read(seg, m + SessionDatagramHeader.DEST_OFFSET), dest));
        if (dest == null || dest.size() > coordHi.length) {
            return 0;
        }
        for (int i = 0; i < dest.size(); i++) {
            coordHi[i] = dest.addrs().get(i).hi();
            coordLo[i] = dest.addrs().get(i).lo();
        }
        return dest.size();
    }

    /**
     * §4.2 step 8: a transit datagram (the data of {@code slot}) that would not fit the outbound transport's MTU
     * once framed is dropped, counted on its own (packets, and bytes without the link message type byte, as the
     * reference counts), and answered with a {@link DataPlaneEvent.ForwardMtuExceeded} carrying that transport
     * MTU, under the limiter the routing errors use (§4.5: one error signal per original destination per 100 ms,
     * whatever its type). The reference learns this from the transport's send error; we check before the seal,
     * with the same sum the seal checks. Allocates only when it raises.
     *
     * @param mtu the outbound transport's MTU
     * @return true when the frame fits (the slot is untouched); false when it was dropped (counted; the caller
     *         releases the slot)
     */
    boolean fitsForward(final int slot, final int mtu) {
        final MemorySegment seg = pool.slotSegment(slot);
        final int len = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD);
        if (HEADER + TIMESTAMP + len + TAG <= mtu) {
            return true;
        }
        final long m = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD);
        final long destHi = seg.get(U64_BE, m + SessionDatagramHeader.DEST_OFFSET);
        final long destLo = seg.get(U64_BE, m + SessionDatagramHeader.DEST_OFFSET + 8);
        counters.add(DataPlaneCounter.FORWARD_MTU_EXCEEDED_BYTES, len - 1);
        if (errorAllowed(destHi, destLo, clock.now())) {
            events.offer(new DataPlaneEvent.ForwardMtuExceeded(
                    NodeAddr.read(seg, m + SessionDatagramHeader.SRC_OFFSET), NodeAddr.of(destHi, destLo),
                    Math.min(mtu, 0xFFFF)));
        }
        counters.increment(DataPlaneCounter.DROP_FORWARD_MTU_EXCEEDED);
        return false;
    }

    /**
     * Raises a routing error unless one was raised within {@link #ROUTING_ERROR_INTERVAL_NANOS} for a destination in
     * the same limiter slot: exactly one per destination per interval, and at most {@value #ERROR_SLOTS} per
     * interval whatever the flood (a colliding destination waits for the slot). Allocates only when it raises.
     */
    private void onNoRoute(final MemorySegment seg, final long m, final long destHi, final long destLo,
                           final boolean hadCoords, final long now, final long arrivalLinkId) {
        if (!errorAllowed(destHi, destLo, now)) {
            return;
        }
        events.offer(new DataPlaneEvent.RoutingError(NodeAddr.read(seg, m + SessionDatagramHeader.SRC_OFFSET),
                NodeAddr.of(destHi, destLo), hadCoords ? DataPlaneEvent.RoutingErrorKind.PATH_BROKEN
                        : DataPlaneEvent.RoutingErrorKind.COORDS_REQUIRED, arrivalLinkId));
    }

    /**
     * The error-signal limiter shared by every kind (CoordsRequired, PathBroken, MtuExceeded): takes the slot of
     * {@code dest} and counts the outcome in ROUTING_ERRORS_REPORTED or ROUTING_ERRORS_SUPPRESSED.
     *
     * @return true when an error may be raised for {@code dest} now
     */
    private boolean errorAllowed(final long destHi, final long destLo, final long now) {
        long h = destHi * 0x9E3779B97F4A7C15L ^ destLo;
        h ^= h >>> 29;
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 32;
        final int s = (int) h & (ERROR_SLOTS - 1);
        if (errorSet[s] && now - errorAt[s] < ROUTING_ERROR_INTERVAL_NANOS) {
            counters.increment(DataPlaneCounter.ROUTING_ERRORS_SUPPRESSED);
            return false;
        }
        errorSet[s] = true;
        errorAt[s] = now;
        counters.increment(DataPlaneCounter.ROUTING_ERRORS_REPORTED);
        return true;
    }
}
