package net.fips.dataplane.tcp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.transport.TransportDestination;
import net.fips.dataplane.transport.TransportPort;
import net.fips.ffm.Errno;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.IoVec;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.Syscalls;

/**
 * The outbound side of a {@link TcpTransport}'s loop: drains the slots the workers queued, copies each frame into
 * its connection's stream buffer and flushes every connection written to with one {@code writev} per round; a
 * partial write waits for EPOLLOUT, a frame that finds socket and buffer full waits, in order, in the connection's
 * pending queue (back-pressure, not loss) and past that is dropped and counted. A frame for an address without a
 * connection is counted in {@code send_errors} and starts a connect (transports.md §1.3). Loop thread only; nothing
 * allocates per frame.
 */
final class TcpStreamWriter {
    private final TransportPort port;
    private final PacketPool pool;
    private final TcpCounters counters;
    private final TcpConnectionTable table;
    private final int mtu;
    private int[] dirty = new int[16];
    private int dirtyCount;

    TcpStreamWriter(final TransportPort port, final TcpCounters counters, final TcpConnectionTable table,
                    final int mtu) {
        this.port = port;
        this.pool = port.pool();
        this.counters = counters;
        this.table = table;
        this.mtu = mtu;
    }

    /** Sends what is queued (up to 16 drains of {@code slots.length}). @return whether there was anything */
    boolean sendQueued(final CallState cs, final IoVec iov, final int[] slots) {
        boolean any = false;
        int n;
        int rounds = 0;
        while (rounds++ < 16 && (n = port.drainOutbound(slots, slots.length)) > 0) {
            any = true;
            for (int i = 0; i < n; i++) {
                final int slot = slots[i];
                final TransportDestination d = port.takeDestination(slot);
                if (!(d instanceof TcpDestination dst)) {
                    counters.add(TcpCounters.SEND_ERRORS, 1);
                    port.release(slot);
                } else if (!queue(cs, iov, dst, slot, pool.slotSegment(slot))) {
                    port.release(slot);
                }
            }
            flushDirty(cs, iov);
        }
        return any;
    }

    /**
     * Puts one frame on its connection's stream. A frame that finds the socket and the stream buffer full waits in
     * the connection's pending queue (TCP is reliable: back-pressure rather than loss) until EPOLLOUT.
     *
     * @return true when the connection kept the slot (pending); false when the caller releases it
     */
    private boolean queue(final CallState cs, final IoVec iov, final TcpDestination dst, final int slot,
                          final MemorySegment seg) {
        final int len = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD);
        if (len > mtu) {
            counters.add(TcpCounters.MTU_EXCEEDED, 1);
            return false;
        }
        TcpConnection c = dst.cached;
        if (c == null || c.phase == TcpConnection.Phase.CLOSED) {
            c = table.get(dst.address);
            dst.cached = c;
        }
        if (c == null) {
            counters.add(TcpCounters.SEND_ERRORS, 1);
            table.startConnect(dst.address);
            return false;
        }
        if (c.phase != TcpConnection.Phase.ESTABLISHED) {
            counters.add(TcpCounters.SEND_ERRORS, 1);
            return false;
        }
        if (c.pendingCount > 0 || !room(cs, iov, c, len)) {
            if (!c.hold(slot)) {
                counters.add(TcpCounters.SEND_ERRORS, 1);
                return false;
            }
            return true;
        }
        append(c, seg, len);
        return false;
    }

    /** Whether {@code len} more bytes fit the stream buffer, compacting and flushing once if needed. */
    private boolean room(final CallState cs, final IoVec iov, final TcpConnection c, final int len) {
        if (c.outFits(len)) {
            return true;
        }
        c.compactOut();
        if (c.outFits(len)) {
            return true;
        }
        flush(cs, iov, c);
        c.compactOut();
        return c.phase == TcpConnection.Phase.ESTABLISHED && c.outFits(len);
    }

    /** EPOLLOUT on an established connection: write what waits, then move held frames in while they fit. */
    void onWritable(final CallState cs, final IoVec iov, final TcpConnection c) {
        flush(cs, iov, c);
        if (c.pendingCount > 0) {
            drainPending(cs, iov, c);
        }
    }

    /** Moves pending frames into the stream buffer while they fit (after EPOLLOUT made room). */
    private void drainPending(final CallState cs, final IoVec iov, final TcpConnection c) {
        while (true) {
            while (c.pendingCount > 0 && c.phase == TcpConnection.Phase.ESTABLISHED) {
                final int slot = c.oldestHeld();
                final MemorySegment seg = pool.slotSegment(slot);
                final int len = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD);
                c.compactOut();
                if (!c.outFits(len)) {
                    break;
                }
                append(c, seg, len);
                port.release(slot);
                c.dropOldestHeld();
            }
            flush(cs, iov, c);
            // Stop when nothing waits, the connection died, or the socket is full again (EPOLLOUT is armed).
            if (c.pendingCount == 0 || c.phase != TcpConnection.Phase.ESTABLISHED || c.outEnd > c.outStart) {
                return;
            }
        }
    }

    private void append(final TcpConnection c, final MemorySegment seg, final int len) {
        final int off = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD);
        MemorySegment.copy(seg, off, c.out, c.outEnd, len);
        c.outEnd += len;
        counters.add(TcpCounters.PACKETS_SENT, 1);
        if (!c.dirty) {
            c.dirty = true;
            if (dirtyCount == dirty.length) {
                dirty = Arrays.copyOf(dirty, dirty.length * 2);
            }
            dirty[dirtyCount++] = c.id;
        }
    }

    private void flushDirty(final CallState cs, final IoVec iov) {
        for (int i = 0; i < dirtyCount; i++) {
            final TcpConnection c = table.conn(dirty[i]);
            if (c != null) {
                c.dirty = false;
                if (c.phase == TcpConnection.Phase.ESTABLISHED) {
                    flush(cs, iov, c);
                }
            }
        }
        dirtyCount = 0;
    }

    /** Writes as much of the stream buffer as the socket takes; the rest waits for EPOLLOUT. */
    private void flush(final CallState cs, final IoVec iov, final TcpConnection c) {
        while (c.outStart < c.outEnd) {
            iov.set(c.out, c.outStart, c.outEnd - c.outStart);
            final long r = Syscalls.writev(cs, c.fd, iov.segment(), 1);
            if (r > 0) {
                c.outStart += (int) r;
                counters.add(TcpCounters.BYTES_SENT, r);
            } else if (r == -Errno.EAGAIN) {
                table.watch(c, Linux.EPOLLIN | Linux.EPOLLRDHUP | Linux.EPOLLOUT);
                return;
            } else if (r != -Errno.EINTR) {
                counters.add(TcpCounters.SEND_ERRORS, 1);
                table.close(c, "write failed: " + Errno.strerror((int) -r));
                return;
            }
        }
        c.outStart = 0;
        c.outEnd = 0;
        table.watch(c, Linux.EPOLLIN | Linux.EPOLLRDHUP);
    }
}
