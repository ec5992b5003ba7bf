package net.fips.dataplane.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.LongSupplier;

import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.Ipv6Sink;
import net.fips.dataplane.crypto.AeadCipher;
import net.fips.dataplane.ipv6.EncapsulationBudget;
import net.fips.dataplane.ipv6.Icmpv6Errors;
import net.fips.dataplane.ipv6.Ipv6Packet;
import net.fips.dataplane.ipv6.PtbRateLimiter;
import net.fips.dataplane.ipv6.ShimBody;
import net.fips.dataplane.ipv6.TcpMssClamp;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.route.NextHop;
import net.fips.dataplane.tun.TunCoalescer;
import net.fips.dataplane.wire.FspFlags;
import net.fips.dataplane.wire.FspHeader;
import net.fips.dataplane.wire.FspInnerHeader;
import net.fips.dataplane.wire.FspPrefix;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionDatagramHeader;
import net.fips.dataplane.wire.SessionMessageType;

/**
 * The end-to-end session data path of one worker (routing-session.md §5.3, §5.6-§5.9): the FSP half of what the
 * worker does for the sessions pinned to it.
 *
 * <p>Outbound, in the slot the IPv6 packet was read into: checks (FIPS destination, Packet Too Big), TCP MSS clamp,
 * the port-256 shim in place, the FSP inner header, optional CP coordinates, the 12-byte FSP header as associated
 * data, ChaCha20-Poly1305 in place, the SessionDatagram header in front; then the worker routes it and FMP-seals it
 * in the same slot. Inbound, in the slot the frame arrived in: FSP open by trial over the key generations (pending
 * first when the K bit differs, with the cutover it implies), then the shim is expanded back into an IPv6 packet in
 * place (CE copied into ECN, MSS clamped) and written to the {@link Ipv6Sink}. Nothing is allocated per packet; only
 * the rare control-bound cases (no session yet, handshake messages, reports) copy bytes into events.
 *
 * <p>Single-threaded: owned by its worker, like the sessions in its {@link SessionMap}.
 */
final class SessionPath {
    /** {@link #onOutbound}: the slot was consumed. */
    static final int NOTHING_TO_SEND = -1;

    private static final long NANOS_PER_MILLI = 1_000_000L;
    private static final long PREVIOUS_EVENT_INTERVAL_NANOS = 1_000_000_000L;
    private static final long NO_ROUTE_EVENT_INTERVAL_NANOS = 100_000_000L;
    private static final int DATAGRAM = SessionDatagramHeader.SIZE;
    private static final int FSP = FspHeader.SIZE;
    private static final int INNER = FspInnerHeader.SIZE;
    private static final int TAG = AeadCipher.TAG_BYTES;
    private static final int DATA_PACKET = SessionMessageType.DATA_PACKET.code();
    private static final int COORDS_WARMUP = SessionMessageType.COORDS_WARMUP.code();
    private static final int PATH_MTU_NOTIFICATION = SessionMessageType.PATH_MTU_NOTIFICATION.code();
    private static final long PATH_MTU_NOTIFY_INTERVAL_NANOS = 10_000_000_000L;
    /** Room kept free in front of the datagram for the FMP header and inner timestamp, and the slot metadata. */
    private static final int LOWEST_DATAGRAM_OFFSET = (int) SlotMeta.END_OFFSET + 64;
    private static final ValueLayout.OfInt U32 = Layouts.U32;
    private static final ValueLayout.OfShort U16 = Layouts.U16;
    private static final ValueLayout.OfLong U64_LE = Layouts.U64;
    private static final ValueLayout.OfLong U64_BE = Layouts.U64_BE;

    private final PacketPool pool;
    private final AeadCipher cipher;
    private final EventQueue events;
    private final Counters counters;
    private final LongSupplier clock;
    private final Ipv6Sink sink;
    private final TunCoalescer coalescer;
    private long coalescedReported;
    private final NextHop nextHop = new NextHop();
    /** Session-layer messages sealed during a call, for the worker to send when it returns. */
    private final SessionOutbox outbox = new SessionOutbox();
    private final SessionMap sessions = new SessionMap();
    private final PtbRateLimiter ptb = new PtbRateLimiter();
    private final PtbRateLimiter unreachableLimiter = new PtbRateLimiter();
    private final MemorySegment nonce;
    private final MemorySegment trialCopy;
    /** Messages that arrived for keys the control plane is installing; see {@link SessionHold}. */
    private final SessionHold hold;
    private final int[] released = new int[SessionHold.MAX_PER_REMOTE];
    /** Set by {@link #open} when it fails: whether a key refused the counter as a replay (counted as such). */
    private boolean openFailedOnReplay;
    /** The smallest transport MTU (the reference's transport_mtu()). */
    private final int transportMtu;
    private final int globalMaxMss;

    SessionPath(final PacketPool pool, final AeadCipher cipher, final EventQueue events, final Counters counters,
                final LongSupplier clock, final Ipv6Sink sink, final int transportMtu, final Arena arena) {
        this.pool = pool;
        this.cipher = cipher;
        this.events = events;
        this.counters = counters;
        this.clock = clock;
        this.sink = sink;
        this.coalescer = sink instanceof TunCoalescer c ? c : null;
        this.transportMtu = transportMtu;
        this.globalMaxMss = EncapsulationBudget.maxMss(transportMtu);
        this.nonce = arena.allocate(AeadCipher.NONCE_BYTES, 8);
        this.trialCopy = arena.allocate(pool.slotStrideBytes(), 64);
        this.hold = new SessionHold(pool, clock);
    }

    // ------------------------------------------------------------------ outbound

    /**
     * An IPv6 packet (from TUN or {@code sendIpv6}) in {@code slot}, sealed in place into a SessionDatagram for the
     * session with its destination (routing-session.md §5.3) and routed. A CoordsWarmup it needs first is queued
     * in the {@link #outbox()}, to be sent before the packet.
     *
     * @return the table's peer index of the next hop: the slot holds the SessionDatagram (src = us, path_mtu 65535)
     *         for the worker to seal for that link or hand to its worker; or {@link #NOTHING_TO_SEND}: the slot was
     *         consumed (dropped and counted, or passed to the control plane)
     */
    int onOutbound(final ForwardingTable table, final int slot) {
        final MemorySegment seg = pool.slotSegment(slot);
        final int off = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD);
        final int len = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD);
        if (Ipv6Packet.checkHeader(seg, off, len) != Ipv6Packet.OK) {
            drop(slot, DataPlaneCounter.DROP_IPV6_NOT_ROUTABLE);
            return NOTHING_TO_SEND;
        }
        final long dstHi = Ipv6Packet.dstHi(seg, off);
        final long dstLo = Ipv6Packet.dstLo(seg, off);
        if (!Ipv6Packet.isFipsAddress(dstHi)) {
            if (table != null && Icmpv6Errors.shouldSendError(seg, off, len)) {
                destinationUnreachable(table, seg, off, len);
            }
            drop(slot, DataPlaneCounter.DROP_IPV6_NOT_ROUTABLE);
            return NOTHING_TO_SEND;
        }
        final FspSession s = sessions.getByPrefix(Ipv6Packet.nodePrefixHi(dstHi, dstLo),
                Ipv6Packet.nodePrefixLo(dstLo));
        if (s == null) {
            toControl(slot, seg, off, len);
            return NOTHING_TO_SEND;
        }
        if (table == null) {
            // An established session but no routing snapshot yet: nothing can route it (handing it to the control
            // plane would only bring it back here).
            drop(slot, DataPlaneCounter.DROP_SESSION_NO_ROUTE);
            return NOTHING_TO_SEND;
        }
        final long now = clock.getAsLong();
        // Packet Too Big (§5.8): the transport limit, or the session's smaller path limit.
        int limit = EncapsulationBudget.effectiveIpv6Mtu(transportMtu);
        if (s.pathMtu != 0xFFFF) {
            limit = Math.min(limit, EncapsulationBudget.effectiveIpv6Mtu(s.pathMtu));
        }
        if (len > limit) {
            packetTooBig(seg, off, len, limit, now);
            drop(slot, DataPlaneCounter.DROP_IPV6_TOO_BIG);
            return NOTHING_TO_SEND;
        }
        // §5.3 step 4: no next hop drops the packet, answered with ICMPv6 Destination Unreachable (rate-limited).
        // Deliberate difference from the reference: docs/adr/0011-icmpv6-unreachable-for-unroutable-destinations.md
        final int peer = nextHop.find(table, s.remoteHi, s.remoteLo, now);
        if (peer < 0) {
            noRoute(table, s, seg, off, len, now);
            drop(slot, DataPlaneCounter.DROP_SESSION_NO_ROUTE);
            return NOTHING_TO_SEND;
        }
        if (TcpMssClamp.clamp(seg, off, len, maxMss(s)) == TcpMssClamp.CLAMPED) {
            counters.increment(DataPlaneCounter.MSS_CLAMPED);
        }
        final long body = ShimBody.encodeInPlace(seg, off, len);
        if (body < 0) {
            drop(slot, DataPlaneCounter.DROP_IPV6_NOT_ROUTABLE);
            return NOTHING_TO_SEND;
        }
        final int bodyLen = len - ShimBody.BODY_SHRINK;
        int cp = 0;
        if (s.warmupRemaining > 0) {
            s.warmupRemaining--;
            // §5.3 step 2: piggy-back when it fits the smallest transport MTU, else a standalone CoordsWarmup first.
            final int shimLen = bodyLen - net.fips.dataplane.wire.PortHeader.SIZE;
            if (EncapsulationBudget.FIPS_OVERHEAD + net.fips.dataplane.wire.PortHeader.SIZE + s.cpLength + shimLen
                    <= transportMtu && body - INNER - s.cpLength - FSP - DATAGRAM >= LOWEST_DATAGRAM_OFFSET) {
                cp = s.cpLength;
            } else {
                sendMessage(table, s, COORDS_WARMUP, null, true, now, peer);
            }
        }
        final long inner = body - INNER;
        final int plainLen = INNER + bodyLen;
        final LinkSession gen = s.current;
        writeInner(seg, inner, gen, DATA_PACKET, now);
        final long header = inner - cp - FSP;
        if (cp > 0) {
            MemorySegment.copy(s.cpCoords, 0, seg, header + FSP, cp);
        }
        if (!sealFsp(s, seg, header, cp > 0 ? FspFlags.CP | s.kFlag : s.kFlag, inner, plainLen)) {
            drop(slot, DataPlaneCounter.DROP_COUNTER_EXHAUSTED);
            return NOTHING_TO_SEND;
        }
        final long datagram = header - DATAGRAM;
        writeDatagramHeader(seg, datagram, s, table);
        final int total = DATAGRAM + FSP + cp + plainLen + TAG;
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD, (int) datagram);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD, total);
        s.onSent(now, len);
        return peer;
    }

    private int maxMss(final FspSession s) {
        return s.pathMtu == 0xFFFF ? Math.min(globalMaxMss, EncapsulationBudget.CONSERVATIVE_MAX_MSS)
                : EncapsulationBudget.perFlowMaxMss(globalMaxMss, s.pathMtu);
    }

    private void noRoute(final ForwardingTable table, final FspSession s, final MemorySegment seg, final long off,
                         final int len, final long now) {
        if (Icmpv6Errors.shouldSendError(seg, off, len)
                && unreachableLimiter.shouldSend(Ipv6Packet.srcHi(seg, off), Ipv6Packet.srcLo(seg, off), now)) {
            destinationUnreachable(table, seg, off, len);
        }
        onNoRoute(s, now);
    }

    private void onNoRoute(final FspSession s, final long now) {
        if (s.lastNoRouteEventNanos == Long.MIN_VALUE
                || now - s.lastNoRouteEventNanos >= NO_ROUTE_EVENT_INTERVAL_NANOS) {
            s.lastNoRouteEventNanos = now;
            events.offer(new DataPlaneEvent.SessionNoRoute(s.remote));
        }
    }

    private static void writeInner(final MemorySegment seg, final long inner, final LinkSession gen,
                                   final int msgType, final long now) {
        // timestamp (u32 LE), msg_type, inner flags 0: one 4-byte and one 2-byte store instead of three
        seg.set(U32, inner + FspInnerHeader.TIMESTAMP_OFFSET, (int) ((now - gen.startNanos) / NANOS_PER_MILLI));
        seg.set(U16, inner + FspInnerHeader.MSG_TYPE_OFFSET, (short) (msgType & 0xFF));
    }

    /** Writes the FSP header at {@code header} and seals the plaintext at {@code inner} in place (tag after it). */
    private boolean sealFsp(final FspSession s, final MemorySegment seg, final long header, final int flags,
                            final long inner, final int plainLen) {
        final LinkSession gen = s.current;
        final long counter = gen.sendCounter;
        if (counter == -1L) {
            return false;
        }
        gen.sendCounter = counter + 1;
        FspHeader.write(seg, header, flags, plainLen, counter);
        AeadCipher.fipsNonce(nonce, counter);
        cipher.seal(gen.sendKey, nonce, seg, header, FSP, seg, inner, plainLen);
        return true;
    }

    private static void writeDatagramHeader(final MemorySegment seg, final long at, final FspSession s,
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
     * notifications). Allocation-free; counted drops when there is no slot or no room.
     */
    void sendMessage(final ForwardingTable table, final FspSession s, final int msgType, final byte[] body,
                     final boolean withCoords, final long now, final int knownPeer) {
        sendMessage(table, s, msgType, body, -1, withCoords, now, knownPeer);
    }

    /** As above; {@code u16Body >= 0} is a 2-byte little-endian body written without an array (PathMtuNotification). */
    private void sendMessage(final ForwardingTable table, final FspSession s, final int msgType, final byte[] body,
                             final int u16Body, final boolean withCoords, final long now, final int knownPeer) {
        if (table == null) {
            counters.increment(DataPlaneCounter.DROP_SESSION_NO_ROUTE);
            return;
        }
        final int peer = knownPeer >= 0 ? knownPeer : nextHop.find(table, s.remoteHi, s.remoteLo, now);
        if (peer < 0) {
            counters.increment(DataPlaneCounter.DROP_SESSION_NO_ROUTE);
            onNoRoute(s, now);
            return;
        }
        final int bodyLen = u16Body >= 0 ? 2 : body == null ? 0 : body.length;
        final int cp = withCoords ? s.cpLength : 0;
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
        final int flags = withCoords ? FspFlags.CP : s.kFlag;
        if (!sealFsp(s, seg, header, flags, inner, INNER + bodyLen)) {
            drop(slot, DataPlaneCounter.DROP_COUNTER_EXHAUSTED);
            return;
        }
        writeDatagramHeader(seg, datagram, s, table);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD, (int) datagram);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD, total);
        s.publish();
        outbox.add(table, slot, peer);
    }

    private void toControl(final int slot, final MemorySegment seg, final long off, final int len) {
        final byte[] packet = new byte[len];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, off, packet, 0, len);
        pool.release(slot);
        counters.increment(DataPlaneCounter.SESSION_PACKETS_TO_CONTROL);
        events.offer(new DataPlaneEvent.OutboundWithoutSession(packet));
    }

    private void packetTooBig(final MemorySegment seg, final long off, final int len, final int mtu,
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

    private void destinationUnreachable(final ForwardingTable table, final MemorySegment seg, final long off,
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

    // ------------------------------------------------------------------ inbound

    /**
     * Whether an FSP message is one the data plane opens itself (encrypted, phase 0, U clear); everything else is
     * passed to the control plane by {@link #toControlMessage}.
     */
    static boolean isEncrypted(final MemorySegment seg, final long payload, final int payloadLen) {
        if (payloadLen < FspPrefix.SIZE) {
            return false;
        }
        final int b0 = Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, payload));
        final int flags = Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, payload + FspPrefix.FLAGS_OFFSET));
        return (b0 & 0x0F) == FspPrefix.PHASE_ESTABLISHED && (flags & FspFlags.U) == 0;
    }

    /**
     * A SessionDatagram for us, in {@code slot} at {@code [m, m+len)}, on the worker that owns its sender's session:
     * encrypted messages are opened here, everything else goes to the control plane. The slot is always consumed.
     *
     * @param ce whether the FMP frame that carried it had the CE flag
     */
    void deliver(final ForwardingTable table, final int slot, final long m, final int len, final boolean ce) {
        final MemorySegment seg = pool.slotSegment(slot);
        if (isEncrypted(seg, m + DATAGRAM, len - DATAGRAM)) {
            onInbound(table, slot, m, len, ce);
        } else {
            toControlMessage(slot, seg, m, len);
        }
    }

    /**
     * A handshake message or error signal for us: copied into an event; the slot is released. A SessionAck or
     * SessionMsg3 means keys for its sender are on their way: until they are in, that sender's messages are held.
     */
    private void toControlMessage(final int slot, final MemorySegment seg, final long m, final int len) {
        final NodeAddr src = NodeAddr.read(seg, m + SessionDatagramHeader.SRC_OFFSET);
        final int payloadLen = len - DATAGRAM;
        if (payloadLen < FspPrefix.SIZE) {
            drop(slot, DataPlaneCounter.DROP_SESSION_MALFORMED);
            return;
        }
        final int phase = seg.get(ValueLayout.JAVA_BYTE, m + DATAGRAM) & 0x0F;
        if (phase == FspPrefix.PHASE_MSG2 || phase == FspPrefix.PHASE_MSG3) {
            final int dropped = hold.expect(src.hi(), src.lo());
            if (dropped > 0) {
                counters.add(DataPlaneCounter.DROP_SESSION_HELD_OVERFLOW, dropped);
            }
        }
        final byte[] fsp = new byte[payloadLen];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, m + DATAGRAM, fsp, 0, payloadLen);
        pool.release(slot);
        counters.increment(DataPlaneCounter.SESSION_MESSAGES_TO_CONTROL);
        events.offer(new DataPlaneEvent.SessionMessageReceived(src, fsp));
    }

    /**
     * An encrypted FSP message addressed to us, in {@code slot} at {@code [m, m+len)} (the SessionDatagram), on the
     * worker that owns its session; the slot is always consumed.
     *
     * @param ce whether the FMP frame that carried it had the CE flag
     */
    void onInbound(final ForwardingTable table, final int slot, final long m, final int len, final boolean ce) {
        final MemorySegment seg = pool.slotSegment(slot);
        final long srcHi = seg.get(U64_BE, m + SessionDatagramHeader.SRC_OFFSET);
        final long srcLo = seg.get(U64_BE, m + SessionDatagramHeader.SRC_OFFSET + 8);
        final FspSession s = sessions.get(srcHi, srcLo);
        if (s == null) {
            if (hold.expecting(srcHi, srcLo)) {
                holdMessage(slot, seg, m, len, ce, srcHi, srcLo);
            } else {
                drop(slot, DataPlaneCounter.DROP_SESSION_UNKNOWN);
            }
            return;
        }
        final long payload = m + DATAGRAM;
        final int payloadLen = len - DATAGRAM;
        if (payloadLen < FspHeader.MIN_MESSAGE_SIZE) {
            s.onDropIn();
            drop(slot, DataPlaneCounter.DROP_SESSION_MALFORMED);
            return;
        }
        final int flags = Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, payload + FspPrefix.FLAGS_OFFSET));
        long cipherOff = payload + FSP;
        final long end = payload + payloadLen;
        if ((flags & FspFlags.CP) != 0) {
            // Cleartext coordinates (already reported for caching by the receiving worker): skip both lists.
            for (int list = 0; list < 2; list++) {
                if (cipherOff + 2 > end) {
                    s.onDropIn();
                    drop(slot, DataPlaneCounter.DROP_SESSION_MALFORMED);
                    return;
                }
                cipherOff += 2 + 16L * Short.toUnsignedInt(seg.get(U16, cipherOff));
            }
        }
        final int ctLen = (int) (end - cipherOff);
        if (ctLen < TAG + INNER) {
            s.onDropIn();
            drop(slot, DataPlaneCounter.DROP_SESSION_MALFORMED);
            return;
        }
        final long counter = seg.get(U64_LE, payload + FspHeader.COUNTER_OFFSET);
        final boolean expecting = hold.expecting(srcHi, srcLo);
        final LinkSession gen = open(s, seg, payload, cipherOff, ctLen, counter, flags & FspFlags.K, expecting);
        if (gen == null) {
            if (expecting) {
                // New keys for this sender are being installed (a rekey's msg3, or a new session replacing this
                // one, whose low counters the old keys' replay window refuses): held, the ciphertext intact, and
                // tried again once they are in (a true replay is refused then).
                holdMessage(slot, seg, m, len, ce, srcHi, srcLo);
                return;
            }
            s.onDropIn();
            drop(slot, openFailedOnReplay ? DataPlaneCounter.DROP_SESSION_REPLAY
                    : DataPlaneCounter.DROP_SESSION_AUTH_FAILED);
            return;
        }
        final long now = clock.getAsLong();
        onAuthenticated(s, gen, now);
        s.onMessageIn(counter, gen == s.current, Integer.toUnsignedLong(seg.get(U32,
                cipherOff + FspInnerHeader.TIMESTAMP_OFFSET)), payloadLen, ce, now);
        echoPathMtu(table, s, Short.toUnsignedInt(seg.get(U16, m + SessionDatagramHeader.PATH_MTU_OFFSET)), now);
        final int plainLen = ctLen - TAG;
        final int type = Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, cipherOff + FspInnerHeader.MSG_TYPE_OFFSET));
        if (type != DATA_PACKET) {
            final byte[] plaintext = new byte[plainLen];
            MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, cipherOff, plaintext, 0, plainLen);
            pool.release(slot);
            events.offer(new DataPlaneEvent.SessionInnerReceived(s.remote, plaintext));
            return;
        }
        final NodeAddr self = table.self();
        final long packet = ShimBody.decodeInPlace(seg, cipherOff + INNER, plainLen - INNER,
                Ipv6Packet.fipsAddressHi(srcHi), Ipv6Packet.fipsAddressLo(srcHi, srcLo),
                Ipv6Packet.fipsAddressHi(self.hi()), Ipv6Packet.fipsAddressLo(self.hi(), self.lo()));
        if (packet < 0) {
            drop(slot, DataPlaneCounter.DROP_SESSION_MALFORMED);
            return;
        }
        final int packetLen = plainLen - INNER + ShimBody.BODY_SHRINK;
        if (ce) {
            Ipv6Packet.markEcnCe(seg, packet);
            counters.increment(DataPlaneCounter.CE_RECEIVED);
        }
        if (TcpMssClamp.clamp(seg, packet, packetLen, maxMss(s)) == TcpMssClamp.CLAMPED) {
            counters.increment(DataPlaneCounter.MSS_CLAMPED);
        }
        if (sink == null || sink.write(seg, packet, packetLen) != packetLen) {
            drop(slot, DataPlaneCounter.DROP_IPV6_SINK);
            return;
        }
        s.onReceived(now, packetLen);
        counters.increment(DataPlaneCounter.SESSION_PACKETS_IN);
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

    /** Holds a message for keys being installed ({@link SessionHold}); its place in the slot goes with it. */
    private void holdMessage(final int slot, final MemorySegment seg, final long m, final int len, final boolean ce,
                             final long srcHi, final long srcLo) {
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD, (int) m);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD, len);
        SlotMeta.forwardFlags(seg, ce ? 1 : 0);
        if (hold.hold(srcHi, srcLo, slot)) {
            counters.increment(DataPlaneCounter.SESSION_MESSAGES_HELD);
        } else {
            drop(slot, DataPlaneCounter.DROP_SESSION_HELD_OVERFLOW);
        }
    }

    /** Keys for {@code remote} are in: its held messages are opened, oldest first, before anything later. */
    private void releaseHeld(final ForwardingTable table, final NodeAddr remote) {
        final int n = hold.take(remote.hi(), remote.lo(), released);
        for (int i = 0; i < n; i++) {
            final int slot = released[i];
            if (table == null) {
                drop(slot, DataPlaneCounter.DROP_SESSION_UNKNOWN);
                continue;
            }
            final MemorySegment seg = pool.slotSegment(slot);
            counters.increment(DataPlaneCounter.SESSION_MESSAGES_RELEASED);
            onInbound(table, slot, seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD),
                    seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD), SlotMeta.forwardFlags(seg) != 0);
        }
    }

    /** Drops (and counts) held messages whose keys did not come within the hold time; cheap when none are held. */
    void expireHeld() {
        if (hold.active()) {
            final int dropped = hold.expire();
            if (dropped > 0) {
                counters.add(DataPlaneCounter.DROP_SESSION_HELD_EXPIRED, dropped);
            }
        }
    }

    /**
     * Trial decryption (§5.7): pending, previous, then current when the K bit differs from ours; current first
     * otherwise. The ciphertext is saved before an attempt that may be followed by another (only around a rekey),
     * or before any attempt when {@code keep}: then a failure leaves it intact.
     *
     * @return the generation that authenticated it, or null ({@link #openFailedOnReplay} says why; not counted)
     */
    private LinkSession open(final FspSession s, final MemorySegment seg, final long header, final long ct,
                             final int ctLen, final long counter, final int kFlag, final boolean keep) {
        final LinkSession a;
        final LinkSession b;
        final LinkSession c;
        if (kFlag != s.kFlag) {
            a = s.pending;
            b = s.previous;
            c = s.current;
        } else {
            a = s.current;
            b = s.pending;
            c = s.previous;
        }
        final int candidates = (a != null ? 1 : 0) + (b != null ? 1 : 0) + (c != null ? 1 : 0);
        if (candidates > 1 || keep) {
            MemorySegment.copy(seg, ct, trialCopy, 0, ctLen);
        }
        int left = candidates;
        boolean replayed = false;
        for (int i = 0; i < 3; i++) {
            final LinkSession g = i == 0 ? a : i == 1 ? b : c;
            if (g == null) {
                continue;
            }
            left--;
            if (!g.replay.check(counter)) {
                replayed = true;
                continue;
            }
            AeadCipher.fipsNonce(nonce, counter);
            if (cipher.open(g.recvKey, nonce, seg, header, FSP, seg, ct, ctLen) >= 0) {
                g.replay.accept(counter);
                return g;
            }
            if (left > 0 || keep) {
                MemorySegment.copy(trialCopy, 0, seg, ct, ctLen);
            }
        }
        openFailedOnReplay = replayed;
        return null;
    }

    /**
     * Path MTU echo (routing-session §6.5), the destination's half: the forward path's minimum MTU, as the datagram
     * arrived with it, goes back to the source in a PathMtuNotification on the first observation, at once when it
     * changed to a value below our own estimate toward the source (the reference's rule), else every 10 s (the
     * session layer has no SRTT here, so max(10 s, 5 SRTT) is 10 s). Nothing is allocated.
     */
    private void echoPathMtu(final ForwardingTable table, final FspSession s, final int observed, final long now) {
        final boolean first = s.observedPathMtu < 0;
        final boolean lower = !first && observed != s.observedPathMtu && observed < s.pathMtu;
        if (first || lower || now - s.lastPathMtuNotifyNanos >= PATH_MTU_NOTIFY_INTERVAL_NANOS) {
            s.observedPathMtu = observed;
            s.lastPathMtuNotifyNanos = now;
            sendMessage(table, s, PATH_MTU_NOTIFICATION, null, observed, false, now, -1);
        } else {
            s.observedPathMtu = observed;
        }
    }

    /** Cutover on a frame of the pending generation; confirmation and drain extension events. */
    private void onAuthenticated(final FspSession s, final LinkSession gen, final long now) {
        if (gen == s.pending) {
            promote(s, now);
            counters.increment(DataPlaneCounter.SESSION_CUTOVERS);
            events.offer(new DataPlaneEvent.SessionKeysAuthenticated(s.remote, true, now));
        } else if (gen == s.current) {
            if (s.awaitingConfirmation) {
                s.awaitingConfirmation = false;
                events.offer(new DataPlaneEvent.SessionKeysAuthenticated(s.remote, false, gen.startNanos));
            }
        } else if (s.lastPreviousEventNanos == Long.MIN_VALUE
                || now - s.lastPreviousEventNanos >= PREVIOUS_EVENT_INTERVAL_NANOS) {
            s.lastPreviousEventNanos = now;
            events.offer(new DataPlaneEvent.SessionPreviousKeysUsed(s.remote));
        }
    }

    /** Pending becomes current (K flips, counter and timestamps restart); current becomes previous. */
    private static void promote(final FspSession s, final long startNanos) {
        final LinkSession pending = s.pending;
        if (s.previous != null) {
            s.previous.wipe();
        }
        s.previous = s.current;
        s.current = pending;
        s.pending = null;
        s.kFlag ^= FspFlags.K;
        pending.startNanos = startNanos;
        pending.sendCounter = 0;
        s.mmp.resetForRekey(startNanos);
        s.publish();
    }

    // ------------------------------------------------------------------ commands (owning worker)

    void addSession(final ForwardingTable table, final FspSession s) {
        final FspSession old = sessions.put(s);
        if (old != null) {
            old.wipe();
        }
        releaseHeld(table, s.remote);
    }

    void installPending(final ForwardingTable table, final NodeAddr remote, final byte[] sendKey,
                        final byte[] recvKey) {
        final FspSession s = sessions.get(remote.hi(), remote.lo());
        if (s == null) {
            counters.increment(DataPlaneCounter.DROP_SESSION_UNKNOWN);
            return;
        }
        if (s.pending != null) {
            s.pending.wipe();
        }
        s.pending = new LinkSession(0, 0, sendKey, recvKey);
        releaseHeld(table, remote);
    }

    void cutover(final NodeAddr remote, final long sessionStartNanos) {
        final FspSession s = sessions.get(remote.hi(), remote.lo());
        if (s != null && s.pending != null) {
            promote(s, sessionStartNanos);
            counters.increment(DataPlaneCounter.SESSION_CUTOVERS);
            s.awaitingConfirmation = true;
        }
    }

    void dropPrevious(final NodeAddr remote) {
        final FspSession s = sessions.get(remote.hi(), remote.lo());
        if (s != null && s.previous != null) {
            s.previous.wipe();
            s.previous = null;
        }
    }

    void remove(final NodeAddr remote) {
        final FspSession s = sessions.remove(remote.hi(), remote.lo());
        if (s != null) {
            s.wipe();
        }
    }

    void setWarmup(final NodeAddr remote, final byte[] cpCoords, final int packets) {
        final FspSession s = sessions.get(remote.hi(), remote.lo());
        if (s == null) {
            return;
        }
        if (cpCoords == null || cpCoords.length > FspSession.MAX_CP_BYTES) {
            s.warmupRemaining = 0;
            s.cpLength = 0;
            return;
        }
        MemorySegment.copy(cpCoords, 0, s.cpCoords, ValueLayout.JAVA_BYTE, 0, cpCoords.length);
        s.cpLength = cpCoords.length;
        if (packets >= 0) {
            s.warmupRemaining = packets;
        }
    }

    void lowerPathMtu(final NodeAddr remote, final int mtu) {
        final FspSession s = sessions.get(remote.hi(), remote.lo());
        if (s != null && mtu > 0 && mtu < s.pathMtu) {
            s.pathMtu = mtu;
        }
    }

    void sendMessage(final ForwardingTable table, final NodeAddr remote, final int msgType, final byte[] body,
                     final boolean withCoords) {
        final FspSession s = sessions.get(remote.hi(), remote.lo());
        if (s == null) {
            counters.increment(DataPlaneCounter.DROP_SESSION_UNKNOWN);
            return;
        }
        sendMessage(table, s, msgType, body, withCoords && s.cpLength > 0, clock.getAsLong(), -1);
    }

    /** @return the messages sealed during the last call, which the worker sends (and clears) when it returns */
    SessionOutbox outbox() {
        return outbox;
    }

    /** Wipes every session (worker shutdown). */
    void close() {
        hold.clear();
        sessions.forEach(FspSession::wipe);
    }

    private void drop(final int slot, final DataPlaneCounter why) {
        counters.increment(why);
        pool.release(slot);
    }
}
