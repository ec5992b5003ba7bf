package net.fips.dataplane.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.pool.SpscSlotRing;
import net.fips.dataplane.tun.TunDevice;
import net.fips.dataplane.tun.TunReader;
import net.fips.ffm.Errno;

/**
 * The receive loop of the TUN device (transports.md §7): one IPv6 packet per {@code read(2)} straight into a pool
 * slot at the default data offset (so the session path has all the headroom it needs to encapsulate in place), then
 * to the worker that owns the destination's session (by the 15-byte node prefix of the destination), so one flow's
 * packets are sealed in order by one thread. Packets that are not IPv6 go to worker 0, which counts and drops them.
 *
 * <p>On its own thread the agent blocks in poll while the device is empty; {@link #wakeup()} ends the wait.
 */
final class TunRxAgent implements Agent {
    /** Reads per duty cycle before the workers are signalled. */
    private final int batch;
    private final TunDevice device;
    private final TunReader reader;
    private final PacketPool pool;
    private final SpscSlotRing[] toWorkers;
    private final WakeSignal[] workerSignals;
    private final boolean[] workerFed;
    private final Counters counters;
    private final int receiveTimeoutMs;
    private final int capacity;
    private int slot = PacketPool.NO_SLOT;
    private boolean gone;

    TunRxAgent(final TunDevice device, final PacketPool pool, final SpscSlotRing[] toWorkers,
               final WakeSignal[] workerSignals, final Counters counters, final int batch,
               final int receiveTimeoutMs) {
        this.device = device;
        this.reader = device.reader();
        this.pool = pool;
        this.toWorkers = toWorkers;
        this.workerSignals = workerSignals;
        this.workerFed = new boolean[toWorkers.length];
        this.counters = counters;
        this.batch = batch;
        this.receiveTimeoutMs = receiveTimeoutMs;
        this.capacity = pool.maxMtuBytes();
    }

    @Override
    public String roleName() {
        return "fips-tun-rx";
    }

    @Override
    public int doWork() {
        if (gone) {
            return 0;
        }
        int n = 0;
        while (n < batch) {
            if (slot == PacketPool.NO_SLOT) {
                slot = pool.acquire();
                if (slot == PacketPool.NO_SLOT) {
                    counters.increment(DataPlaneCounter.DROP_POOL_EXHAUSTED);
                    break;
                }
            }
            final MemorySegment seg = pool.slotSegment(slot);
            final int rc = n == 0
                    ? reader.receive(seg, SlotDescriptor.DEFAULT_DATA_OFFSET, capacity, receiveTimeoutMs)
                    : reader.read(seg, SlotDescriptor.DEFAULT_DATA_OFFSET, capacity);
            if (rc == 0 || rc == -Errno.EAGAIN || rc == -Errno.EINTR) {
                break;
            }
            if (rc < 0) {
                if (TunDevice.isDeviceGone(rc)) {
                    gone = true;
                    break;
                }
                counters.increment(DataPlaneCounter.DROP_IPV6_NOT_ROUTABLE);
                continue;
            }
            onPacket(seg, rc);
            n++;
        }
        final boolean[] fed = workerFed;
        for (int w = 0; w < fed.length; w++) {
            if (fed[w]) {
                fed[w] = false;
                workerSignals[w].wake();
            }
        }
        return n;
    }

    private void onPacket(final MemorySegment seg, final int len) {
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD, SlotDescriptor.DEFAULT_DATA_OFFSET);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD, len);
        final int worker = SessionPath.workerOfPacket(seg, SlotDescriptor.DEFAULT_DATA_OFFSET, len,
                toWorkers.length);
        // release (inside offer): the worker sees the packet and its header fields before the index
        if (toWorkers[worker].offer(slot)) {
            workerFed[worker] = true;
        } else {
            counters.increment(DataPlaneCounter.DROP_WORKER_RING_FULL);
            pool.release(slot);
        }
        slot = PacketPool.NO_SLOT;
    }

    /** @return whether the device was deleted under us (reads stopped) */
    boolean deviceGone() {
        return gone;
    }

    @Override
    public void wakeup() {
        device.wakeup();
    }

    @Override
    public void onClose() {
        if (slot != PacketPool.NO_SLOT) {
            pool.release(slot);
            slot = PacketPool.NO_SLOT;
        }
    }
}
