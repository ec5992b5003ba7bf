package net.fips.dataplane.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.route.CoordCache;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.route.NextHop;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.FspFlags;
import net.fips.dataplane.wire.FspHeader;
import net.fips.dataplane.wire.FspInnerHeader;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionDatagramHeader;

/**
 * The session-layer messages one worker's {@link SessionPath} originates (routing-session.md §5.3, §6.5):
 * a standalone CoordsWarmup, PathMtuNotifications, the control plane's reports. Each is built and sealed in a fresh
 * slot, routed, and queued in the {@link SessionOutbox} for the worker to send. Also the header writers the data
 * packets share. Single-threaded: owned by its worker's session path.
 */
final class SessionMessages {
    private static final long NANOS_PER_MILLI = 1_000_000L;
    private static final long NO_ROUTE_EVENT_INTERVAL_NANOS = 100_000_000L;
    private static final int DATAGRAM = SessionDatagramHeader.SIZE;
    private static final int FSP = FspHeader.SIZE;
    private static final int INNER = FspInnerHeader.SIZE;
    private static final int TAG = AeadCipher.TAG_BYTES;
    private static final ValueLayout.OfInt U32 = Layouts.U32;
    private static final ValueLayout.OfShort U16 = Layouts.U16;
    private static final ValueLayout.OfLong U64_BE = Layouts.U64_BE;

    private final PacketPool pool;
    private final EventQueue events;
    private final Counters counters;
    private final FspCrypto crypto;
    private final NextHop nextHop;
    private final SessionOutbox outbox;

    SessionMessages(final PacketPool pool, final EventQueue events, final Counters counters, final FspCrypto crypto,
                    final NextHop nextHop, final SessionOutbox outbox) {
        this.pool = pool;
        this.events = events;
        this.counters = counters;
        this.crypto = crypto;
        this.nextHop = nextHop;
        this.outbox = outbox;
    }

    /**
     * Encodes the warm-up coordinates (§5.3 step 2: {@code S ‖ D}, each {@code count u16 LE ‖ 16·n}) into the
     * session's {@link FspSession#cpCoords} as routing knows them now: our coordinates from {@code table}, the
     * destination's from its coordinate cache, else ours (the reference's {@code get_dest_coords}). Read at each
     * send, never kept from an earlier moment: a node whose tree has moved since would hand out a position it no
     * longer holds, and every node on the path, the destination too, caches it over what it knew. Allocation-free.
     *
     * @return the encoded length; 0 when the two do not fit {@link FspSession#MAX_CP_BYTES} (then nothing is
     *     carried)
     */
    static int encodeWarmupCoords(final ForwardingTable table, final FspSession s, final long now) {
        final Coords mine = table.selfCoords();
        final CoordCache.Entry cached = table.cache().get(s.remoteHi, s.remoteLo, now);
        final Coords dest = cached == null ? mine : cached.coords();
        final int len = mine.encodedSize() + dest.encodedSize();
        if (len > FspSession.MAX_CP_BYTES) {
            return 0;
        }
        writeCoords(s.cpCoords, writeCoords(s.cpCoords, 0, mine), dest);
        return len;
    }

    private static long writeCoords(final MemorySegment seg, final long off, final Coords c) {
        final List<NodeAddr> addrs = c.addrs();
        final int n = addrs.size();
        seg.set(U16, off, (short) n);
        long at = off + 2;
        for (int i = 0; i < n; i++) {
            addrs.get(i).writeTo(seg, at);
            at += NodeAddr.SIZE;
        }
        return at;
    }

    /** A {@link DataPlaneEvent.SessionNoRoute} for the session, at most one per 100 ms. */
    void noRouteEvent(final FspSession s, final long now) {
        if (s.lastNoRouteEventNanos == Long.MIN_VALUE
                || now - s.lastNoRouteEventNanos >= NO_ROUTE_EVENT_INTERVAL_NANOS) {
            s.lastNoRouteEventNanos = now;
            events.offer(new DataPlaneEvent.SessionNoRoute(s.remote));
        }
    }

    /** Writes the FSP inner header (timestamp relative to the generation's start, msg_type, flags 0). */
    static void writeInner(final MemorySegment seg, final long inner, final LinkSession gen,
                                   final int msgType, final long now) {
        // timestamp (u32 LE), msg_type, inner flags 0: one 4-byte and one 2-byte store instead of three
        seg.set(U32, inner + FspInnerHeader.TIMESTAMP_OFFSET, (int) ((now - gen.startNanos) / NANOS_PER_MILLI));
        seg.set(U16, inner + FspInnerHeader.MSG_TYPE_OFFSET, (short) (msgType & 0xFF));
    }

    /** Writes the SessionDatagram header (src = us, ttl, path_mtu 65535) at {@code at}. */
    static void writeDatagramHeader(final MemorySegment seg, final long at, final FspSession s,
                                            final ForwardingTable table) {
        // type 0, ttl, path_mtu 0xFFFF (LE) as one 4-byte store, then the two addresses
        seg.set(U32, at + SessionDatagramHeader.TYPE_OFFSET, (s.ttl & 0xFF) << 8 | 0xFFFF << 16);
        seg.set(U64_BE, at + SessionDatagramHeader.SRC_OFFSET, table.self().hi());
        seg.set(U64_BE, at + SessionDatagramHeader.SRC_OFFSET + 8, table.self().lo());
        seg.set(U64_BE, at + SessionDatagramHeader.DEST_OFFSET, s.remoteHi);
        seg.set(U64_BE, at + SessionDatagramHeader.DEST_OFFSET + 8, s.remoteLo);
    }

    /**
     * Seals a session-layer message in a fresh slot and routes it (CoordsWarmup with CP and without K, reports,
     * notifications) into the {@link SessionOutbox}. Allocation-free; counted drops when there is no slot or no
     * room.
     *
     * @param knownPeer the next hop when the caller has routed already, else -1
     */
    void send(final ForwardingTable table, final FspSession s, final int msgType, final byte[] body,
              final boolean withCoords, final long now, final int knownPeer) {
        send(table, s, msgType, body, -1, withCoords, now, knownPeer);
    }

    /** As {@link #send}, with a 2-byte little-endian body written without an array (PathMtuNotification). */
    void sendU16(final ForwardingTable table, final FspSession s, final int msgType, final int u16Body,
                 final long now) {
        send(table, s, msgType, null, u16Body, false, now, -1);
    }

    private void send(final ForwardingTable table, final FspSession s, final int msgType, final byte[] body,
                      final int u16Body, final boolean withCoords, final long now, final int knownPeer) {
        if (table == null) {
            counters.increment(DataPlaneCounter.DROP_SESSION_NO_ROUTE);
            return;
        }
        final int peer = knownPeer >= 0 ? knownPeer : nextHop.find(table, s.remoteHi, s.remoteLo, now);
        if (peer < 0) {
            counters.increment(DataPlaneCounter.DROP_SESSION_NO_ROUTE);
            noRouteEvent(s, now);
            return;
        }
        final int bodyLen = u16Body >= 0 ? 2 : body == null ? 0 : body.length;
        final int cp = withCoords ? encodeWarmupCoords(table, s, now) : 0;
        final int total = DATAGRAM + FSP + cp + INNER + bodyLen + TAG;
        if (total > pool.maxMtuBytes()) {
            counters.increment(DataPlaneCounter.DROP_MTU);
            return;
        }
        final int slot = pool.acquire();
        if (slot == PacketPool.NO_SLOT) {
            counters.increment(DataPlaneCounter.DROP_POOL_EXHAUSTED);
            return;
        }
        final MemorySegment seg = pool.slotSegment(slot);
        final long datagram = SlotDescriptor.DEFAULT_DATA_OFFSET;
        final long header = datagram + DATAGRAM;
        final long inner = header + FSP + cp;
        if (cp > 0) {
            MemorySegment.copy(s.cpCoords, 0, seg, header + FSP, cp);
        }
        writeInner(seg, inner, s.current, msgType, now);
        if (u16Body >= 0) {
            seg.set(U16, inner + INNER, (short) u16Body);
        } else if (bodyLen > 0) {
            MemorySegment.copy(body, 0, seg, ValueLayout.JAVA_BYTE, inner + INNER, bodyLen);
        }
        // The reference's standalone CoordsWarmup carries CP alone, never K (§5.4).
        final int flags = cp > 0 ? FspFlags.CP : s.kFlag;
        if (!crypto.seal(s, seg, header, flags, inner, INNER + bodyLen)) {
            counters.increment(DataPlaneCounter.DROP_COUNTER_EXHAUSTED);
            pool.release(slot);
            return;
        }
        writeDatagramHeader(seg, datagram, s, table);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD, (int) datagram);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD, total);
        s.publish();
        outbox.add(table, slot, peer);
    }
}
