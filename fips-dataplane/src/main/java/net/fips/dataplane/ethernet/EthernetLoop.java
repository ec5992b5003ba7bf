package net.fips.dataplane.ethernet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.dataplane.transport.TransportPort;
import net.fips.ffm.linux.PacketSockets;

/**
 * The event loop of one {@link EthernetTransport} under the data plane (thread {@code fips-eth-<iface>}): sends what
 * the workers and the control thread queued (one sendmmsg per batch, the frame header in each slot's headroom),
 * then receives one batch straight into pool slots and delivers each FMP packet with its 6-byte source MAC; when
 * nothing is queued it blocks in poll on the socket and the wake-up descriptor, so an idle node uses no CPU. Owns
 * its slots and returns them at the end. Nothing allocates per packet.
 */
final class EthernetLoop implements Runnable {
    private final EthernetTransport transport;
    private final TransportPort port;
    private final PacketPool pool;
    private final int batch;
    private final int slotCapacity;
    private final FrameReceiveBatch rb;
    private final FrameSendBatch sb;
    private final int[] held;
    private final int[] out;
    private final MemorySegment source;
    private volatile boolean running = true;

    EthernetLoop(final EthernetTransport transport, final TransportPort port, final int batch) {
        this.transport = transport;
        this.port = port;
        this.pool = port.pool();
        this.batch = batch;
        // Room for an MTU-sized packet plus the tailroom, so one above the MTU is seen (and fails later) rather than
        // truncated silently.
        this.slotCapacity = Math.min(transport.mtu(), pool.maxMtuBytes()) + SlotDescriptor.TAILROOM_BYTES;
        this.rb = new FrameReceiveBatch(batch);
        this.sb = new FrameSendBatch(batch);
        this.held = new int[batch];
        this.out = new int[batch];
        Arrays.fill(held, PacketPool.NO_SLOT);
        this.source = Arena.ofAuto().allocate(MacAddress.SIZE, 8);
    }

    void stop() {
        running = false;
        transport.wakeup();
    }

    @Override
    public void run() {
        try {
            while (running) {
                sendQueued();
                receiveBatch();
            }
        } finally {
            for (int i = 0; i < batch; i++) {
                if (held[i] != PacketPool.NO_SLOT) {
                    port.release(held[i]);
                    held[i] = PacketPool.NO_SLOT;
                }
            }
            int n;
            while ((n = port.drainOutbound(out, batch)) > 0) {
                for (int i = 0; i < n; i++) {
                    port.takeDestination(out[i]);
                    port.release(out[i]);
                }
            }
        }
    }

    private void sendQueued() {
        int n;
        while ((n = port.drainOutbound(out, batch)) > 0) {
            sb.clear();
            for (int i = 0; i < n; i++) {
                final int slot = out[i];
                final TransportDestination d = port.takeDestination(slot);
                final MemorySegment seg = pool.slotSegment(slot);
                final int off = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD);
                final int len = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD);
                if (d instanceof EthernetDestination e && off >= EthernetFrame.DATA_HEADER_SIZE) {
                    sb.add(seg, off, len, e.mac());
                } else {
                    transport.countUnsendable();
                }
            }
            transport.send(sb);
            sb.clear();
            for (int i = 0; i < n; i++) {
                port.release(out[i]);
            }
        }
    }

    private void receiveBatch() {
        int offered = 0;
        for (int i = 0; i < batch; i++) {
            if (held[i] == PacketPool.NO_SLOT) {
                held[i] = port.acquire();
            }
            if (held[i] == PacketPool.NO_SLOT) {
                break;
            }
            rb.slot(i, pool.slotSegment(held[i]), TransportPort.DATA_OFFSET, slotCapacity);
            offered++;
        }
        rb.offer(offered);
        if (offered == 0) {
            // Pool exhausted (counted by acquire): leave the frames in the kernel and look again in a moment.
            LockSupport.parkNanos(1_000_000L);
            return;
        }
        // Block in poll only when nothing waits to be sent; a worker's wakeup() ends the wait.
        final int n = transport.receive(rb, port.hasOutbound() ? 0 : -1);
        for (int k = 0; k < n; k++) {
            final int position = rb.slotIndex(k);
            final int slot = held[position];
            held[position] = PacketPool.NO_SLOT;
            PacketSockets.writeMac(source, 0, rb.source(k));
            port.deliver(slot, rb.length(k), source, 0, MacAddress.SIZE);
        }
        if (n > 0) {
            port.flush();
        }
    }
}
