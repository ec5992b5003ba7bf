package net.fips.dataplane.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import net.fips.dataplane.agent.Agent;
import net.fips.dataplane.agent.WakeSignal;
import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.pool.SpscSlotRing;
import net.fips.dataplane.tun.TcpOffload;
import net.fips.dataplane.tun.TunDevice;
import net.fips.dataplane.tun.TunReader;
import net.fips.ffm.Errno;
import net.fips.ffm.linux.TunIoctl;

/**
 * The receive loop of the TUN device (transports.md §7): IPv6 packets into pool slots at the default data offset
 * (so the session path has all the headroom it needs to encapsulate in place), then to the worker that owns the
 * destination's session (by the 15-byte node prefix of the destination), so one flow's packets are sealed in order
 * by one thread. Packets that are not IPv6 go to worker 0, which counts and drops them.
 *
 * <p>Plain device: one packet per {@code read(2)} straight into the slot. Device in virtio-net header mode
 * ({@link TunDevice#vnetHeader()}): each read takes one frame (header + up to 64 KiB) into a frame buffer; a TCP
 * super-segment ({@code GSO_TCPV6}) is split into MTU-sized segments, each copied into its own slot with its
 * headers fixed and its checksum computed ({@link TcpOffload}); a packet with a partial checksum has it completed.
 * So every packet a worker sees, and every packet on the wire, is a plain IPv6 packet as without offloads.
 *
 * <p>A full worker ring is back-pressure, not a drop: the agent keeps the packet (and the rest of a super-segment)
 * and stops reading until the worker has taken some, so the device's own queue absorbs the burst and TCP sees it.
 * On its own thread the agent blocks in poll while the device is empty; {@link #wakeup()} ends the wait.
 */
final class TunRxAgent implements Agent {
    private static final ValueLayout.OfShort HOST_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.nativeOrder());
    /** Header + the largest IPv6 packet without a jumbogram (40 + 65535), so a read is never truncated. */
    private static final int FRAME_CAPACITY = TunIoctl.VIRTIO_NET_HDR_SIZE + TcpOffload.IPV6_HEADER + 65535;
    private static final int VNET = TunIoctl.VIRTIO_NET_HDR_SIZE;

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
    private final boolean vnet;
    private final MemorySegment frame;
    /** A slot read or filled but not yet taken by its worker (ring full), or NO_SLOT. */
    private int slot = PacketPool.NO_SLOT;
    private int slotWorker = -1;
    /** The super-segment being split: its length in {@link #frame} (after the header), 0 when none. */
    private int superLen;
    private int superHdrLen;
    private int superMss;
    private int superNext;
    private int superCount;
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
        this.vnet = device.vnetHeader();
        this.frame = vnet ? Arena.ofAuto().allocate(FRAME_CAPACITY, 8) : null;
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
        if (slot != PacketPool.NO_SLOT && slotWorker >= 0) {
            if (!handOver()) {
                return 0;   // the worker is still full: wait (back-off) without reading more
            }
            n++;
        }
        if (superLen > 0) {
            n += continueSplit();
            if (superLen > 0) {
                wakeFed();
                return n;
            }
        }
        int reads = 0;
        while (reads < batch) {
            if (slot == PacketPool.NO_SLOT) {
                slot = pool.acquire();
                if (slot == PacketPool.NO_SLOT) {
                    counters.increment(DataPlaneCounter.DROP_POOL_EXHAUSTED);
                    break;
                }
            }
            final int rc = vnet ? readFrame(n == 0) : readPlain(n == 0);
            if (rc == 0 || rc == -Errno.EAGAIN || rc == -Errno.EINTR) {
                break;
            }
            if (rc < 0) {
                if (TunDevice.isDeviceGone(rc)) {
                    gone = true;
                    break;
                }
                counters.increment(DataPlaneCounter.DROP_IPV6_NOT_ROUTABLE);
                reads++;
                continue;
            }
            reads++;
            n++;
            if (vnet) {
                onFrame(rc);
            } else {
                dispatch(rc);
            }
            if (slotWorker >= 0 || superLen > 0) {
                break;   // back-pressure: a worker ring is full
            }
        }
        wakeFed();
        return n;
    }

    private void wakeFed() {
        final boolean[] fed = workerFed;
        for (int w = 0; w < fed.length; w++) {
            if (fed[w]) {
                fed[w] = false;
                workerSignals[w].wake();
            }
        }
    }

    private int readPlain(final boolean wait) {
        final MemorySegment seg = pool.slotSegment(slot);
        return wait
                ? reader.receive(seg, SlotDescriptor.DEFAULT_DATA_OFFSET, capacity, receiveTimeoutMs)
                : reader.read(seg, SlotDescriptor.DEFAULT_DATA_OFFSET, capacity);
    }

    private int readFrame(final boolean wait) {
        return wait ? reader.receive(frame, 0, FRAME_CAPACITY, receiveTimeoutMs)
                : reader.read(frame, 0, FRAME_CAPACITY);
    }

    /** One frame read in header mode: a plain packet, one with a partial checksum, or a super-segment. */
    private void onFrame(final int rc) {
        final int len = rc - VNET;
        if (len <= 0) {
            counters.increment(DataPlaneCounter.DROP_IPV6_NOT_ROUTABLE);
            return;
        }
        final int flags = Byte.toUnsignedInt(frame.get(ValueLayout.JAVA_BYTE, TunIoctl.VNET_FLAGS_OFFSET));
        final int gso = Byte.toUnsignedInt(frame.get(ValueLayout.JAVA_BYTE, TunIoctl.VNET_GSO_TYPE_OFFSET))
                & ~TunIoctl.VIRTIO_NET_HDR_GSO_ECN;
        if (gso == TunIoctl.VIRTIO_NET_HDR_GSO_NONE) {
            if ((flags & TunIoctl.VIRTIO_NET_HDR_F_NEEDS_CSUM) != 0
                    && !TcpOffload.completeChecksum(frame, VNET, len,
                            Short.toUnsignedInt(frame.get(HOST_SHORT, TunIoctl.VNET_CSUM_START_OFFSET)),
                            Short.toUnsignedInt(frame.get(HOST_SHORT, TunIoctl.VNET_CSUM_OFFSET_OFFSET)))) {
                counters.increment(DataPlaneCounter.DROP_TUN_OFFLOAD);
                return;
            }
            if (len > capacity) {
                counters.increment(DataPlaneCounter.DROP_TUN_OFFLOAD);
                return;
            }
            MemorySegment.copy(frame, VNET, pool.slotSegment(slot), SlotDescriptor.DEFAULT_DATA_OFFSET, len);
            dispatch(len);
            return;
        }
        final int mss = Short.toUnsignedInt(frame.get(HOST_SHORT, TunIoctl.VNET_GSO_SIZE_OFFSET));
        final int hdrLen = gso == TunIoctl.VIRTIO_NET_HDR_GSO_TCPV6
                ? TcpOffload.tcpv6HeaderLength(frame, VNET, len) : -1;
        if (hdrLen < 0 || mss == 0 || hdrLen + mss > capacity) {
            // TCPv4 (never routed into the mesh), UDP, extension headers, or a segment larger than a slot
            counters.increment(DataPlaneCounter.DROP_TUN_OFFLOAD);
            return;
        }
        superLen = len;
        superHdrLen = hdrLen;
        superMss = mss;
        superNext = 0;
        superCount = TcpOffload.segmentCount(len, hdrLen, mss);
        counters.increment(DataPlaneCounter.TUN_SUPER_SEGMENTS);
        continueSplit();
    }

    /** Emits the remaining segments of the current super-segment until done or a worker ring is full. */
    private int continueSplit() {
        int n = 0;
        while (superNext < superCount) {
            if (slot == PacketPool.NO_SLOT) {
                slot = pool.acquire();
                if (slot == PacketPool.NO_SLOT) {
                    counters.increment(DataPlaneCounter.DROP_POOL_EXHAUSTED);
                    return n;   // retried on the next cycle
                }
            } else if (slotWorker >= 0) {
                return n;
            }
            final int segLen = TcpOffload.writeSegment(frame, VNET, superLen, superHdrLen, superMss, superNext,
                    pool.slotSegment(slot), SlotDescriptor.DEFAULT_DATA_OFFSET);
            superNext++;
            n++;
            if (superNext == superCount) {
                superLen = 0;
            }
            dispatch(segLen);
            if (slotWorker >= 0) {
                return n;
            }
        }
        superLen = 0;
        return n;
    }

    /** Points the held slot at a packet of {@code len} bytes and offers it to its worker. */
    private void dispatch(final int len) {
        final MemorySegment seg = pool.slotSegment(slot);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD, SlotDescriptor.DEFAULT_DATA_OFFSET);
        seg.set(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD, len);
        slotWorker = Pinning.ofPacket(seg, SlotDescriptor.DEFAULT_DATA_OFFSET, len, toWorkers.length);
        handOver();
    }

    /** @return whether the held slot went to its worker's ring (else it stays held, counted as back-pressure) */
    private boolean handOver() {
        // release (inside offer): the worker sees the packet and its header fields before the index
        if (toWorkers[slotWorker].offer(slot)) {
            workerFed[slotWorker] = true;
            slot = PacketPool.NO_SLOT;
            slotWorker = -1;
            return true;
        }
        counters.increment(DataPlaneCounter.TUN_BACKPRESSURE);
        workerSignals[slotWorker].wake();
        return false;
    }

    /**
     * @return whether the agent holds input it could not hand over yet (a packet whose worker ring was full, or the
     *         rest of a super-segment): the next cycle has work even though the device may be empty
     */
    boolean holdsInput() {
        return slotWorker >= 0 || superLen > 0;
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
            slotWorker = -1;
        }
        superLen = 0;
    }
}
