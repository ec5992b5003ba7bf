package net.fips.dataplane.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import net.fips.dataplane.agent.WakeSignal;
import net.fips.dataplane.pool.MpscSlotRing;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.pool.SpscSlotRing;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.dataplane.transport.TransportException;
import net.fips.dataplane.transport.TransportPort;

/**
 * The {@link TransportPort} of a transport that runs its own event loop (every transport but UDP): inbound through
 * the shared {@link InboundDispatch}, outbound from one SPSC ring per worker plus one MPSC ring for the control
 * thread's handshake packets. The transport's loop thread is the single consumer of the outbound rings and the
 * single producer into the worker rings.
 */
final class LoopPort implements TransportPort {
    private final int transportId;
    private final Transport transport;
    private final PacketPool pool;
    private final InboundDispatch dispatch;
    private final SpscSlotRing[] fromWorkers;
    private final MpscSlotRing fromControl;
    private final TransportDestination[] slotDestination;
    private final Counters counters;
    private int next;

    LoopPort(final int transportId, final Transport transport, final PacketPool pool,
             final SpscSlotRing[] toWorkers, final WakeSignal[] workerSignals, final IndexTableHolder table,
             final LinkFrameHold hold, final EventQueue events, final Counters counters,
             final SpscSlotRing[] fromWorkers,
             final int ringCapacity, final TransportDestination[] slotDestination) {
        this.transportId = transportId;
        this.transport = transport;
        this.pool = pool;
        this.dispatch = new InboundDispatch(transportId, transport, pool, toWorkers, workerSignals, table, events,
                counters, hold);
        this.fromWorkers = fromWorkers;
        this.fromControl = new MpscSlotRing(ringCapacity);
        this.slotDestination = slotDestination;
        this.counters = counters;
    }

    @Override
    public int transportId() {
        return transportId;
    }

    @Override
    public PacketPool pool() {
        return pool;
    }

    @Override
    public int acquire() {
        final int slot = pool.acquire();
        if (slot == PacketPool.NO_SLOT) {
            counters.increment(DataPlaneCounter.DROP_POOL_EXHAUSTED);
        }
        return slot;
    }

    @Override
    public boolean deliver(final int slot, final int length, final MemorySegment source, final long sourceOffset,
                           final int sourceLength) {
        return dispatch.onPacket(slot, length, source, sourceOffset, sourceLength);
    }

    @Override
    public void flush() {
        dispatch.flush();
    }

    @Override
    public boolean hasOutbound() {
        if (fromControl.size() > 0) {
            return true;
        }
        for (final SpscSlotRing r : fromWorkers) {
            if (!r.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public int drainOutbound(final int[] slots, final int max) {
        final int limit = Math.min(max, slots.length);
        final int w = fromWorkers.length;
        int n = 0;
        // Start at a rotating worker so a busy one cannot starve the others.
        for (int i = 0; i < w && n < limit; i++) {
            n += drain(fromWorkers[(next + i) % w], slots, n, limit - n);
        }
        next = w == 0 ? 0 : (next + 1) % w;
        while (n < limit) {
            final int s = fromControl.poll();
            if (s == MpscSlotRing.EMPTY) {
                break;
            }
            slots[n++] = s;
        }
        return n;
    }

    private static int drain(final SpscSlotRing ring, final int[] slots, final int at, final int room) {
        int n = 0;
        while (n < room) {
            final int s = ring.poll();
            if (s == SpscSlotRing.EMPTY) {
                break;
            }
            slots[at + n++] = s;
        }
        return n;
    }

    @Override
    public TransportDestination takeDestination(final int slot) {
        final TransportDestination d = slotDestination[slot];
        slotDestination[slot] = null;
        return d;
    }

    @Override
    public void release(final int slot) {
        slotDestination[slot] = null;
        pool.release(slot);
    }

    /** Control thread: queues a handshake packet for the loop (copied into a slot); drops are counted. */
    void enqueueHandshake(final TransportAddr to, final byte[] packet) {
        final TransportDestination dst;
        try {
            dst = transport.destination(to);
        } catch (final TransportException | RuntimeException e) {
            counters.increment(DataPlaneCounter.DROP_NO_LINK);
            return;
        }
        final int len = packet.length;
        if (len > transport.mtu() || len > pool.maxMtuBytes()) {
            counters.increment(DataPlaneCounter.DROP_MTU);
            return;
        }
        final int slot = pool.acquire();
        if (slot == PacketPool.NO_SLOT) {
            counters.increment(DataPlaneCounter.DROP_POOL_EXHAUSTED);
            return;
        }
        final MemorySegment seg = pool.slotSegment(slot);
        MemorySegment.copy(packet, 0, seg, ValueLayout.JAVA_BYTE, SlotDescriptor.DEFAULT_DATA_OFFSET, len);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD, SlotDescriptor.DEFAULT_DATA_OFFSET);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD, len);
        slotDestination[slot] = dst;
        if (!fromControl.offer(slot)) {
            slotDestination[slot] = null;
            pool.release(slot);
            counters.increment(DataPlaneCounter.DROP_TX_RING_FULL);
            return;
        }
        transport.wakeup();
    }

    /** After the transport stopped and the workers stopped: hands back every slot still queued. */
    void onClose() {
        for (final SpscSlotRing ring : fromWorkers) {
            int s;
            while ((s = ring.poll()) != SpscSlotRing.EMPTY) {
                release(s);
            }
        }
        int s;
        while ((s = fromControl.poll()) != MpscSlotRing.EMPTY) {
            release(s);
        }
    }
}
