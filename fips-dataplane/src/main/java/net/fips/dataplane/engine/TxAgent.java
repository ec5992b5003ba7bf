package net.fips.dataplane.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import net.fips.dataplane.agent.Agent;
import net.fips.dataplane.agent.WakeSignal;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.pool.SpscSlotRing;
import net.fips.dataplane.udp.SendBatch;
import net.fips.dataplane.udp.UdpDestination;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.dataplane.udp.UdpTransportException;

/**
 * The send loop of one UDP transport: collects sealed slots from every worker's ring into one batch and sends it, so
 * packets to one destination leave as GSO trains when they are of equal size and through sendmmsg otherwise
 * (transports.md §2.4). Also sends the control plane's plaintext handshake packets. Slots go back to the pool as
 * soon as the kernel has copied them.
 */
final class TxAgent implements Agent {
    /** A handshake packet to send as is. */
    record Handshake(TransportAddr to, byte[] packet) {
    }

    private final int transportId;
    private final UdpTransport transport;
    private final PacketPool pool;
    private final SpscSlotRing[] fromWorkers;
    private final TransportDestination[] slotDestination;
    private final Counters counters;
    private final WakeSignal signal;
    private final Queue<Handshake> handshakes = new ConcurrentLinkedQueue<>();
    private final SendBatch batch;
    private final int[] batchSlots;
    private final int[] drained;
    private int next;

    TxAgent(final int transportId, final UdpTransport transport, final PacketPool pool,
            final SpscSlotRing[] fromWorkers, final TransportDestination[] slotDestination, final Counters counters,
            final int batchSize, final WakeSignal signal) {
        this.transportId = transportId;
        this.transport = transport;
        this.pool = pool;
        this.fromWorkers = fromWorkers;
        this.slotDestination = slotDestination;
        this.counters = counters;
        this.signal = signal;
        this.batch = new SendBatch(batchSize);
        this.batchSlots = new int[batchSize];
        this.drained = new int[batchSize];
    }

    @Override
    public String roleName() {
        return "fips-tx-" + transportId;
    }

    /** Control thread: queues a handshake packet. */
    void enqueue(final Handshake handshake) {
        handshakes.add(handshake);
        signal.wake();
    }

    @Override
    public WakeSignal wakeSignal() {
        return signal;
    }

    @Override
    public boolean hasPendingWork() {
        if (!handshakes.isEmpty()) {
            return true;
        }
        for (final SpscSlotRing ring : fromWorkers) {
            if (!ring.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public int doWork() {
        int work = sendHandshakes();
        final SpscSlotRing[] rings = this.fromWorkers;
        final int w = rings.length;
        // Start at a rotating worker so a busy one cannot starve the others of batch space.
        for (int i = 0; i < w; i++) {
            final SpscSlotRing ring = rings[(next + i) % w];
            int n;
            while ((n = ring.drainTo(drained, batch.capacity() - batch.count())) > 0) {
                for (int j = 0; j < n; j++) {
                    add(drained[j]);
                }
                work += n;
                if (batch.isFull()) {
                    flush();
                }
            }
        }
        next = (next + 1) % w;
        flush();
        return work;
    }

    private void add(final int slot) {
        final MemorySegment seg = pool.slotSegment(slot);
        final int off = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD);
        final int len = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD);
        batchSlots[batch.count()] = slot;
        // Every destination queued for a UDP transport was made by it (Link and handshake destinations).
        batch.add(seg, off, len, (UdpDestination) slotDestination[slot]);
        slotDestination[slot] = null;
    }

    private void flush() {
        final int n = batch.count();
        if (n == 0) {
            return;
        }
        // Failures are counted inside the transport (MTU, back-pressure timeout, errors).
        transport.send(batch);
        batch.clear();
        for (int i = 0; i < n; i++) {
            pool.release(batchSlots[i]);
        }
    }

    private int sendHandshakes() {
        int n = 0;
        Handshake h;
        while ((h = handshakes.poll()) != null) {
            n++;
            final int slot = pool.acquire();
            if (slot == PacketPool.NO_SLOT) {
                counters.increment(DataPlaneCounter.DROP_POOL_EXHAUSTED);
                continue;
            }
            final UdpDestination dst;
            try {
                dst = transport.destination(h.to());
            } catch (final UdpTransportException | RuntimeException e) {
                pool.release(slot);
                counters.increment(DataPlaneCounter.DROP_NO_LINK);
                continue;
            }
            final int len = h.packet().length;
            if (len > transport.mtu() || len > pool.maxMtuBytes()) {
                pool.release(slot);
                counters.increment(DataPlaneCounter.DROP_MTU);
                continue;
            }
            final MemorySegment seg = pool.slotSegment(slot);
            MemorySegment.copy(h.packet(), 0, seg, ValueLayout.JAVA_BYTE, SlotDescriptor.DEFAULT_DATA_OFFSET, len);
            seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD, len);
            slotDestination[slot] = dst;
            add(slot);
            if (batch.isFull()) {
                flush();
            }
        }
        return n;
    }

    @Override
    public void onClose() {
        flush();
        for (final SpscSlotRing ring : fromWorkers) {
            int s;
            while ((s = ring.poll()) != SpscSlotRing.EMPTY) {
                slotDestination[s] = null;
                pool.release(s);
            }
        }
    }
}
