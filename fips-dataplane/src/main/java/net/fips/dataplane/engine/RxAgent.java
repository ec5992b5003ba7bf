package net.fips.dataplane.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;

import net.fips.dataplane.DataPlaneEvent;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.pool.SpscSlotRing;
import net.fips.dataplane.udp.ReceiveBatch;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.wire.FmpEstablishedHeader;
import net.fips.dataplane.wire.FmpPrefix;
import net.fips.ffm.linux.SockAddrException;

/**
 * The receive loop of one transport: recvmmsg straight into pool slots, then classify by the FMP prefix
 * (crypto-link.md §5.2). Handshakes become events (copied; rare). Established frames are resolved to a link
 * through the {@link IndexTable} (unknown index: dropped before any crypto) and handed to the worker the link is
 * pinned to, so one link's frames are opened in arrival order by one thread.
 *
 * <p>When it runs on its own thread the agent blocks in the kernel (poll) while the socket is empty;
 * {@link #wakeup()} ends the wait for shutdown.
 */
final class RxAgent implements Agent {
    private final int transportId;
    private final UdpTransport transport;
    private final PacketPool pool;
    private final SpscSlotRing[] toWorkers;
    private final WakeSignal[] workerSignals;
    private final boolean[] workerFed;
    private final DataPlane.IndexTableHolder table;
    private final EventQueue events;
    private final Counters counters;
    private final int receiveTimeoutMs;
    private final int slotCapacity;
    private final Arena arena = Arena.ofShared();
    private final ReceiveBatch batch;
    private final int[] slots;
    private int held;

    RxAgent(final int transportId, final UdpTransport transport, final PacketPool pool, final SpscSlotRing[] toWorkers,
            final DataPlane.IndexTableHolder table, final EventQueue events, final Counters counters,
            final int batchSize, final int receiveTimeoutMs, final WakeSignal[] workerSignals) {
        this.transportId = transportId;
        this.transport = transport;
        this.pool = pool;
        this.toWorkers = toWorkers;
        this.workerSignals = workerSignals;
        this.workerFed = new boolean[toWorkers.length];
        this.table = table;
        this.events = events;
        this.counters = counters;
        this.receiveTimeoutMs = receiveTimeoutMs;
        // Room for an MTU-sized datagram plus the tailroom, so one slightly above the MTU is seen (and later fails
        // authentication) instead of being truncated silently.
        this.slotCapacity = Math.min(transport.mtu(), pool.maxMtuBytes()) + SlotDescriptor.TAILROOM_BYTES;
        this.batch = new ReceiveBatch(arena, batchSize);
        this.slots = new int[batchSize];
    }

    @Override
    public String roleName() {
        return "fips-rx-" + transportId;
    }

    @Override
    public int doWork() {
        // Back-pressure instead of loss: receive only when every worker ring has room for a whole batch (this agent
        // is their only producer, so no offer below can fail); otherwise the datagrams wait in the socket buffer.
        for (int w = 0; w < toWorkers.length; w++) {
            final SpscSlotRing ring = toWorkers[w];
            if (ring.capacity() - ring.size() < slots.length) {
                counters.increment(DataPlaneCounter.RX_BACKPRESSURE);
                workerSignals[w].wake();
                return 0;
            }
        }
        if (!refill()) {
            counters.increment(DataPlaneCounter.DROP_POOL_EXHAUSTED);
            return 0;
        }
        final int n = transport.receive(batch, receiveTimeoutMs);
        for (int k = 0; k < n; k++) {
            final int position = batch.slotIndex(k);
            final int slot = slots[position];
            slots[position] = PacketPool.NO_SLOT;
            onDatagram(slot, k);
        }
        // Once per batch rather than per frame: each wake-up costs a fence.
        final boolean[] fed = workerFed;
        for (int w = 0; w < fed.length; w++) {
            if (fed[w]) {
                fed[w] = false;
                workerSignals[w].wake();
            }
        }
        return n;
    }

    /** Tops the offered slots up to the batch size; false if none could be offered. */
    private boolean refill() {
        final int[] slots = this.slots;
        int valid = 0;
        for (int i = 0; i < held; i++) {
            if (slots[i] != PacketPool.NO_SLOT) {
                slots[valid++] = slots[i];
            }
        }
        while (valid < slots.length) {
            final int s = pool.acquire();
            if (s == PacketPool.NO_SLOT) {
                break;
            }
            slots[valid++] = s;
        }
        for (int i = valid; i < slots.length; i++) {
            slots[i] = PacketPool.NO_SLOT;
        }
        held = valid;
        for (int i = 0; i < valid; i++) {
            batch.slot(i, pool.slotSegment(slots[i]), SlotDescriptor.DEFAULT_DATA_OFFSET, slotCapacity);
        }
        batch.offer(valid);
        return valid > 0;
    }

    private void onDatagram(final int slot, final int k) {
        final MemorySegment seg = pool.slotSegment(slot);
        final long off = SlotDescriptor.DEFAULT_DATA_OFFSET;
        final int len = batch.length(k);
        if (len < FmpPrefix.SIZE) {
            drop(slot, DataPlaneCounter.DROP_RUNT);
            return;
        }
        final int versionPhase = Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, off));
        if (versionPhase >>> 4 != FmpPrefix.VERSION) {
            drop(slot, DataPlaneCounter.DROP_BAD_VERSION);
            return;
        }
        final int phase = versionPhase & 0x0F;
        if (phase == FmpPrefix.PHASE_ESTABLISHED) {
            onEstablished(slot, seg, off, len, k);
        } else if (phase == FmpPrefix.PHASE_MSG1 || phase == FmpPrefix.PHASE_MSG2) {
            onHandshake(slot, seg, off, len, k);
        } else {
            drop(slot, DataPlaneCounter.DROP_BAD_PHASE);
        }
    }

    private void onEstablished(final int slot, final MemorySegment seg, final long off, final int len, final int k) {
        if (len < FmpEstablishedHeader.MIN_FRAME_SIZE) {
            drop(slot, DataPlaneCounter.DROP_TRUNCATED);
            return;
        }
        // payload_len must be exact (crypto-link.md §5.1, §5.4): the reference's stream framing reads
        // 16 + payload_len + 16 bytes, so a frame whose length disagrees would break a TCP peer; checked before any
        // crypto, as the reference's framing does.
        if (Short.toUnsignedInt(seg.get(DataPlane.U16, off + FmpEstablishedHeader.PAYLOAD_LEN_OFFSET))
                != len - FmpEstablishedHeader.MIN_FRAME_SIZE) {
            drop(slot, DataPlaneCounter.DROP_BAD_PAYLOAD_LEN);
            return;
        }
        final int receiverIdx = seg.get(DataPlane.U32, off + FmpEstablishedHeader.RECEIVER_IDX_OFFSET);
        final long linkId = table.lvTable().get(IndexTable.key(transportId, receiverIdx));
        if (linkId == IndexTable.MISSING) {
            drop(slot, DataPlaneCounter.DROP_UNKNOWN_INDEX);
            return;
        }
        SlotMeta.linkId(seg, linkId);
        SlotMeta.transportId(seg, transportId);
        SlotMeta.source(seg, batch.source(k), batch.sourceLength(k));
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD, len);
        // release (inside offer): the worker sees the datagram bytes and the metadata before the index
        final int worker = DataPlane.workerOf(linkId, toWorkers.length);
        if (toWorkers[worker].offer(slot)) {
            workerFed[worker] = true;
        } else {
            drop(slot, DataPlaneCounter.DROP_WORKER_RING_FULL);
        }
    }

    private void onHandshake(final int slot, final MemorySegment seg, final long off, final int len, final int k) {
        final byte[] packet = new byte[len];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, off, packet, 0, len);
        InetSocketAddress from;
        try {
            from = batch.sourceAddress(k);
        } catch (final SockAddrException e) {
            from = null;
        }
        pool.release(slot);
        if (from == null) {
            counters.increment(DataPlaneCounter.DROP_BAD_PHASE);
            return;
        }
        counters.increment(DataPlaneCounter.HANDSHAKES_IN);
        events.offer(new DataPlaneEvent.HandshakeReceived(transportId, from, packet));
    }

    private void drop(final int slot, final DataPlaneCounter why) {
        counters.increment(why);
        pool.release(slot);
    }

    @Override
    public void wakeup() {
        transport.wakeup();
    }

    @Override
    public void onClose() {
        for (int i = 0; i < held; i++) {
            if (slots[i] != PacketPool.NO_SLOT) {
                pool.release(slots[i]);
                slots[i] = PacketPool.NO_SLOT;
            }
        }
        held = 0;
        arena.close();
    }
}
