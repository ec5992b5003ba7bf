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
import net.fips.dataplane.ipv6.ShimBody;
import net.fips.dataplane.ipv6.TcpMssClamp;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.route.ForwardingTable;
import net.fips.dataplane.route.NextHop;
import net.fips.dataplane.wire.FspFlags;
import net.fips.dataplane.wire.FspHeader;
import net.fips.dataplane.wire.FspInnerHeader;
import net.fips.dataplane.wire.FspPrefix;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionDatagramHeader;
import net.fips.dataplane.wire.SessionMessageType;
import net.fips.dataplane.wire.PortHeader;

/**
 * The end-to-end session data path of one worker (routing-session.md §5.3, §5.6-§5.9): the FSP half of what the
 * worker does for the sessions pinned to it.
 *
 * <p>Outbound, in the slot the IPv6 packet was read into: checks (FIPS destination, Packet Too Big), TCP MSS clamp,
 * the port-256 shim in place, the FSP inner header, optional CP coordinates, the 12-byte FSP header as associated
 * data, ChaCha20-Poly1305 in place, the SessionDatagram header in front; {@link #onOutbound} returns the next hop
 * and the worker FMP-seals the datagram in the same slot for that link. Inbound, in the slot the frame arrived in:
 * FSP open by trial over the key generations (pending first when the K bit differs, with the cutover it implies),
 * then the shim is expanded back into an IPv6 packet in place (CE copied into ECN, MSS clamped) and written to the
 * {@link Ipv6Sink}. Nothing is allocated per packet; only the rare control-bound cases (no session yet, handshake
 * messages, reports) copy bytes into events.
 *
 * <p>Helpers: {@link FspCrypto} (seal, trial open, promote), {@link SessionIpv6Out} (the sink and ICMPv6 errors),
 * {@link SessionMessages} (messages it originates, queued in its {@link SessionOutbox} for the worker to send: it
 * never calls back into the worker). Single-threaded: owned by its worker, like the sessions in its
 * {@link SessionMap}.
 */
final class SessionPath {
    /** {@link #onOutbound}: the slot was consumed. */
    static final int NOTHING_TO_SEND = -1;

    private static final long PREVIOUS_EVENT_INTERVAL_NANOS = 1_000_000_000L;
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
    private final EventQueue events;
    private final Counters counters;
    private final LongSupplier clock;
    private final FspCrypto crypto;
    private final SessionIpv6Out ipv6;
    private final NextHop nextHop = new NextHop();
    /** Session-layer messages sealed during a call, for the worker to send when it returns. */
    private final SessionOutbox outbox = new SessionOutbox();
    private final SessionMessages messages;
    private final SessionMap sessions = new SessionMap();
    /** Messages that arrived for keys the control plane is installing; see {@link SessionHold}. */
    private final SessionHold hold;
    private final int[] released = new int[SessionHold.MAX_PER_REMOTE];
    /** The smallest transport MTU (the reference's transport_mtu()). */
    private final int transportMtu;
    private final int globalMaxMss;

    SessionPath(final PacketPool pool, final AeadCipher cipher, final EventQueue events, final Counters counters,
                final LongSupplier clock, final Ipv6Sink sink, final int transportMtu, final Arena arena) {
        this.pool = pool;
        this.events = events;
        this.counters = counters;
        this.clock = clock;
        this.crypto = new FspCrypto(cipher, pool, arena);
        this.ipv6 = new SessionIpv6Out(pool, counters, sink);
        this.messages = new SessionMessages(pool, events, counters, crypto, nextHop, outbox);
        this.transportMtu = transportMtu;
        this.globalMaxMss = EncapsulationBudget.maxMss(transportMtu);
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
                ipv6.destinationUnreachable(table, seg, off, len);
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
            ipv6.packetTooBig(seg, off, len, limit, now);
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
            final int cpLen = SessionMessages.encodeWarmupCoords(table, s, now);
            // §5.3 step 2: piggy-back when it fits the smallest transport MTU, else a standalone CoordsWarmup first.
            final int shimLen = bodyLen - PortHeader.SIZE;
            if (EncapsulationBudget.FIPS_OVERHEAD + PortHeader.SIZE + cpLen + shimLen
                    <= transportMtu && body - INNER - cpLen - FSP - DATAGRAM >= LOWEST_DATAGRAM_OFFSET) {
                cp = cpLen;
            } else {
                messages.send(table, s, COORDS_WARMUP, null, true, now, peer);
            }
        }
        final long inner = body - INNER;
        final int plainLen = INNER + bodyLen;
        final LinkSession gen = s.current;
        SessionMessages.writeInner(seg, inner, gen, DATA_PACKET, now);
        final long header = inner - cp - FSP;
        if (cp > 0) {
            MemorySegment.copy(s.cpCoords, 0, seg, header + FSP, cp);
        }
        if (!crypto.seal(s, seg, header, cp > 0 ? FspFlags.CP | s.kFlag : s.kFlag, inner, plainLen)) {
            drop(slot, DataPlaneCounter.DROP_COUNTER_EXHAUSTED);
            return NOTHING_TO_SEND;
        }
        final long datagram = header - DATAGRAM;
        SessionMessages.writeDatagramHeader(seg, datagram, s, table);
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
                && ipv6.unreachableAllowed(seg, off, now)) {
            ipv6.destinationUnreachable(table, seg, off, len);
        }
        messages.noRouteEvent(s, now);
    }

    private void toControl(final int slot, final MemorySegment seg, final long off, final int len) {
        final byte[] packet = new byte[len];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, off, packet, 0, len);
        pool.release(slot);
        counters.increment(DataPlaneCounter.SESSION_PACKETS_TO_CONTROL);
        events.offer(new DataPlaneEvent.OutboundWithoutSession(packet));
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
        final LinkSession gen = crypto.open(s, seg, payload, cipherOff, ctLen, counter, flags & FspFlags.K, expecting);
        if (gen == null) {
            if (expecting) {
                // New keys for this sender are being installed (a rekey's msg3, or a new session replacing this
                // one, whose low counters the old keys' replay window refuses): held, the ciphertext intact, and
                // tried again once they are in (a true replay is refused then).
                holdMessage(slot, seg, m, len, ce, srcHi, srcLo);
                return;
            }
            s.onDropIn();
            drop(slot, crypto.lastFailureWasReplay() ? DataPlaneCounter.DROP_SESSION_REPLAY
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
        if (!ipv6.write(seg, packet, packetLen)) {
            drop(slot, DataPlaneCounter.DROP_IPV6_SINK);
            return;
        }
        s.onReceived(now, packetLen);
        counters.increment(DataPlaneCounter.SESSION_PACKETS_IN);
        pool.release(slot);
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
            messages.sendU16(table, s, PATH_MTU_NOTIFICATION, observed, now);
        } else {
            s.observedPathMtu = observed;
        }
    }

    /** Cutover on a frame of the pending generation; confirmation and drain extension events. */
    private void onAuthenticated(final FspSession s, final LinkSession gen, final long now) {
        if (gen == s.pending) {
            FspCrypto.promote(s, now);
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
            FspCrypto.promote(s, sessionStartNanos);
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

    void setWarmup(final NodeAddr remote, final int packets) {
        final FspSession s = sessions.get(remote.hi(), remote.lo());
        if (s != null && packets >= 0) {
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
        messages.send(table, s, msgType, body, withCoords, clock.getAsLong(), -1);
    }

    /** An IPv6 packet the control plane built (an ICMPv6 error): written as is. */
    void writeIpv6(final byte[] packet) {
        ipv6.writeIpv6(packet);
    }

    /**
     * End of a worker duty cycle: the sink writes what it held back (a coalesced TCP train); packets that write
     * lost are counted as {@link DataPlaneCounter#DROP_IPV6_SINK}.
     */
    void flushIpv6() {
        ipv6.flushIpv6();
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
