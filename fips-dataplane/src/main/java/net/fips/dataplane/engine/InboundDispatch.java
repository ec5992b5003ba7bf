package net.fips.dataplane.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.agent.WakeSignal;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.pool.SpscSlotRing;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.wire.FmpEstablishedHeader;
import net.fips.dataplane.wire.FmpMsg2;
import net.fips.dataplane.wire.FmpPrefix;

/**
 * The one classification of a received FMP packet, shared by every transport's receive side (the UDP
 * {@link RxAgent} and the {@link LoopPort} of loop-driven transports): check the FMP prefix (crypto-link.md §5.2),
 * turn handshakes into events (copied; rare), resolve an established frame's {@code (transport, receiver_idx)}
 * through the {@link IndexTable} (unknown index: dropped before any crypto) and hand the slot to the worker the link
 * is pinned to, so one link's frames are opened in arrival order by one thread. Single-threaded (one per receiving
 * thread); nothing allocated except for handshakes.
 */
final class InboundDispatch {
    /** msg2: prefix, sender_idx, then receiver_idx (crypto-link.md §5.3). */
    private static final int MSG2_RECEIVER_IDX_OFFSET = FmpPrefix.SIZE + Integer.BYTES;
    private static final long FOREIGN_REPORT_NANOS = DataPlaneEvent.ForeignVersionReceived.REPORT_INTERVAL_NANOS;
    private final int transportId;
    private final Transport transport;
    private final PacketPool pool;
    private final SpscSlotRing[] toWorkers;
    private final WakeSignal[] workerSignals;
    private final boolean[] workerFed;
    private final IndexTableHolder table;
    private final EventQueue events;
    private final Counters counters;
    private final LinkFrameHold hold;
    private final Msg1Admission admission;
    /** When the last {@link DataPlaneEvent.ForeignVersionReceived} was raised (valid once one was). */
    private long lastForeignReportNanos;
    private boolean foreignReported;

    InboundDispatch(final int transportId, final Transport transport, final PacketPool pool,
                    final SpscSlotRing[] toWorkers, final WakeSignal[] workerSignals,
                    final IndexTableHolder table, final EventQueue events, final Counters counters,
                    final LinkFrameHold hold) {
        this.transportId = transportId;
        this.transport = transport;
        this.pool = pool;
        this.toWorkers = toWorkers;
        this.workerSignals = workerSignals;
        this.workerFed = new boolean[toWorkers.length];
        this.table = table;
        this.events = events;
        this.counters = counters;
        this.hold = hold;
        this.admission = new Msg1Admission(hold.clock());
    }

    /**
     * @param slot the slot holding the packet at {@link SlotDescriptor#DEFAULT_DATA_OFFSET}; always consumed
     * @return true when it went to a worker or became an event
     */
    boolean onPacket(final int slot, final int len, final MemorySegment source, final long sourceOffset,
                     final int sourceLength) {
        final MemorySegment seg = pool.slotSegment(slot);
        final long off = SlotDescriptor.DEFAULT_DATA_OFFSET;
        if (len < FmpPrefix.SIZE) {
            return drop(slot, DataPlaneCounter.DROP_RUNT);
        }
        final int versionPhase = Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, off));
        if (versionPhase >>> 4 != FmpPrefix.VERSION) {
            reportForeignVersion(versionPhase >>> 4);
            return drop(slot, DataPlaneCounter.DROP_BAD_VERSION);
        }
        final int phase = versionPhase & 0x0F;
        if (phase == FmpPrefix.PHASE_ESTABLISHED) {
            return onEstablished(slot, seg, off, len, source, sourceOffset, sourceLength);
        } else if (phase == FmpPrefix.PHASE_MSG1 || phase == FmpPrefix.PHASE_MSG2) {
            return onHandshake(slot, seg, off, len, source, sourceOffset, sourceLength);
        } else {
            return drop(slot, DataPlaneCounter.DROP_BAD_PHASE);
        }
    }

    private boolean onEstablished(final int slot, final MemorySegment seg, final long off, final int len,
                                  final MemorySegment source, final long sourceOffset, final int sourceLength) {
        if (len < FmpEstablishedHeader.MIN_FRAME_SIZE) {
            return drop(slot, DataPlaneCounter.DROP_TRUNCATED);
        }
        // payload_len must be exact (crypto-link.md §5.1, §5.4): the reference's stream framing reads
        // 16 + payload_len + 16 bytes, so a frame whose length disagrees would break a TCP peer; checked before any
        // crypto, as the reference's framing does.
        if (Short.toUnsignedInt(seg.get(Layouts.U16, off + FmpEstablishedHeader.PAYLOAD_LEN_OFFSET))
                != len - FmpEstablishedHeader.MIN_FRAME_SIZE) {
            return drop(slot, DataPlaneCounter.DROP_BAD_PAYLOAD_LEN);
        }
        final int receiverIdx = seg.get(Layouts.U32, off + FmpEstablishedHeader.RECEIVER_IDX_OFFSET);
        final long key = IndexTable.key(transportId, receiverIdx);
        long linkId = table.lvTable().get(key);
        SlotMeta.transportId(seg, transportId);
        SlotMeta.source(seg, source, sourceOffset, sourceLength);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD, len);
        if (linkId == IndexTable.MISSING) {
            // Perhaps the index our control thread is installing right now (a msg2 just went up): held, not lost.
            linkId = hold.onMiss(table, key, receiverIdx, slot);
            if (linkId == LinkFrameHold.HELD) {
                counters.increment(DataPlaneCounter.LINK_FRAMES_HELD);
                return true;
            } else if (linkId == LinkFrameHold.NOT_EXPECTED) {
                return drop(slot, DataPlaneCounter.DROP_UNKNOWN_INDEX);
            } else if (linkId == LinkFrameHold.OVERFLOW) {
                return drop(slot, DataPlaneCounter.DROP_HELD_FRAME_OVERFLOW);
            }
        }
        SlotMeta.linkId(seg, linkId);
        // release (inside offer): the worker sees the datagram bytes and the metadata before the index
        final int worker = Pinning.ofLink(linkId, toWorkers.length);
        if (toWorkers[worker].offer(slot)) {
            workerFed[worker] = true;
            return true;
        }
        return drop(slot, DataPlaneCounter.DROP_WORKER_RING_FULL);
    }

    private boolean onHandshake(final int slot, final MemorySegment seg, final long off, final int len,
                                final MemorySegment source, final long sourceOffset, final int sourceLength) {
        final int phase = seg.get(ValueLayout.JAVA_BYTE, off) & 0x0F;
        if (phase == FmpPrefix.PHASE_MSG1) {
            // Budgets per source, network and transport before any copy or control-plane work (Msg1Admission).
            final DataPlaneCounter refused = switch (admission.admit(source, sourceOffset, sourceLength)) {
                case ADMITTED -> null;
                case SOURCE_BUDGET -> DataPlaneCounter.DROP_MSG1_SOURCE_BUDGET;
                case NETWORK_BUDGET -> DataPlaneCounter.DROP_MSG1_NETWORK_BUDGET;
                case TRANSPORT_BUDGET -> DataPlaneCounter.DROP_MSG1_TRANSPORT_BUDGET;
            };
            if (refused != null) {
                return drop(slot, refused);
            }
        } else if (phase == FmpPrefix.PHASE_MSG2 && len >= FmpMsg2.WIRE_SIZE) {
            // The peer promoted the link when it wrote this msg2 and may send on it before our control thread has
            // read it: frames for the index it names are held until the link is installed (LinkFrameHold).
            final int dropped = hold.expect(seg.get(Layouts.U32, off + MSG2_RECEIVER_IDX_OFFSET));
            if (dropped > 0) {
                counters.add(DataPlaneCounter.DROP_HELD_FRAME_OVERFLOW, dropped);
            }
        }
        final byte[] packet = new byte[len];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, off, packet, 0, len);
        final TransportAddr from = source == null || sourceLength <= 0 ? null
                : transport.sourceAddress(source, sourceOffset, sourceLength);
        pool.release(slot);
        if (from == null) {
            counters.increment(DataPlaneCounter.DROP_BAD_PHASE);
            return false;
        }
        counters.increment(DataPlaneCounter.HANDSHAKES_IN);
        events.offer(new DataPlaneEvent.HandshakeReceived(transportId, from, packet));
        return true;
    }

    /** Wakes the workers fed since the last call: once per batch rather than per frame (each wake costs a fence). */
    void flush() {
        final boolean[] fed = workerFed;
        for (int w = 0; w < fed.length; w++) {
            if (fed[w]) {
                fed[w] = false;
                workerSignals[w].wake();
            }
        }
    }

    /**
     * On an adopted NAT-traversal socket another FMP version means the peer cannot handshake with us at all: the
     * control plane is told (rate-limited) so it stops traversing to that peer (discovery-gateway.md §1.12).
     */
    private void reportForeignVersion(final int version) {
        if (!transport.bootstrapOnly()) {
            return;
        }
        final long now = hold.clock().getAsLong();
        if (foreignReported && now - lastForeignReportNanos < FOREIGN_REPORT_NANOS) {
            return;
        }
        foreignReported = true;
        lastForeignReportNanos = now;
        events.offer(new DataPlaneEvent.ForeignVersionReceived(transportId, version));
    }

    private boolean drop(final int slot, final DataPlaneCounter why) {
        counters.increment(why);
        pool.release(slot);
        return false;
    }
}
