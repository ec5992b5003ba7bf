package net.fips.dataplane.engine;

import java.lang.foreign.Arena;

import net.fips.dataplane.agent.Agent;
import net.fips.dataplane.agent.WakeSignal;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.pool.SpscSlotRing;
import net.fips.dataplane.udp.ReceiveBatch;
import net.fips.dataplane.udp.UdpTransport;

/**
 * The receive loop of one UDP transport: recvmmsg straight into pool slots, then {@link InboundDispatch} (the
 * FMP prefix check, handshakes to events, established frames to the worker their link is pinned to).
 *
 * <p>When it runs on its own thread the agent blocks in the kernel (poll) while the socket is empty;
 * {@link #wakeup()} ends the wait for shutdown.
 */
final class RxAgent implements Agent {
    private final int transportId;
    private final UdpTransport transport;
    private final PacketPool pool;
    private final InboundDispatch dispatch;
    private final SpscSlotRing[] toWorkers;
    private final WakeSignal[] workerSignals;
    private final Counters counters;
    private final int receiveTimeoutMs;
    private final int slotCapacity;
    private final Arena arena = Arena.ofShared();
    private final ReceiveBatch batch;
    private final int[] slots;
    private int held;

    RxAgent(final int transportId, final UdpTransport transport, final PacketPool pool, final SpscSlotRing[] toWorkers,
            final IndexTableHolder table, final LinkFrameHold hold, final EventQueue events,
            final Counters counters, final int batchSize, final int receiveTimeoutMs,
            final WakeSignal[] workerSignals) {
        this.transportId = transportId;
        this.transport = transport;
        this.pool = pool;
        this.dispatch = new InboundDispatch(transportId, transport, pool, toWorkers, workerSignals, table, events,
                counters, hold);
        this.toWorkers = toWorkers;
        this.workerSignals = workerSignals;
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
        dispatch.flush();
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
        dispatch.onPacket(slot, batch.length(k), batch.source(k), 0, batch.sourceLength(k));
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
