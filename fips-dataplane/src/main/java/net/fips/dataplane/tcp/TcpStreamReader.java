package net.fips.dataplane.tcp;

import java.lang.foreign.MemorySegment;

import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.transport.TransportPort;
import net.fips.ffm.Errno;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.IoVec;
import net.fips.ffm.linux.Syscalls;

/**
 * The inbound side of a {@link TcpTransport}'s loop: reads a ready connection into its receive buffer and cuts
 * packets with {@link FmpStreamFramer#next} (transports.md §3.3), copying each into a pool slot for
 * {@link TransportPort#deliver} with the connection's 4-byte source id; a framing violation closes the connection
 * (counted in {@code recv_errors}). When the pool is exhausted the bytes stay where they are (TCP holds the rest)
 * and the connection is retried on the next round. Loop thread only; nothing allocates per packet.
 */
final class TcpStreamReader {
    private static final int READS_PER_EVENT = 8;

    private final TransportPort port;
    private final TcpCounters counters;
    private final TcpConnectionTable table;
    private final boolean endOfStreamIsRecvError;
    private boolean anyStalled;

    TcpStreamReader(final TransportPort port, final TcpCounters counters, final TcpConnectionTable table,
                    final boolean endOfStreamIsRecvError) {
        this.port = port;
        this.counters = counters;
        this.table = table;
        this.endOfStreamIsRecvError = endOfStreamIsRecvError;
    }

    /** @return whether a connection waits for pool slots */
    boolean anyStalled() {
        return anyStalled;
    }

    /** Reads {@code c} (up to {@value #READS_PER_EVENT} reads) and delivers every complete packet. */
    void read(final CallState cs, final IoVec iov, final MemorySegment source, final TcpConnection c) {
        for (int i = 0; i < READS_PER_EVENT; i++) {
            if (c.stalled) {
                return;
            }
            if (c.inEnd == TcpConnection.IN_BUFFER_BYTES) {
                c.compactIn();
                if (c.inEnd == TcpConnection.IN_BUFFER_BYTES) {
                    return;
                }
            }
            iov.set(c.in, c.inEnd, TcpConnection.IN_BUFFER_BYTES - c.inEnd);
            final long r = Syscalls.readv(cs, c.fd, iov.segment(), 1);
            if (r > 0) {
                c.inEnd += (int) r;
                counters.add(TcpCounters.BYTES_RECV, r);
                deframe(source, c);
                // Wake the workers after every read (up to ~46 full frames), not once per round: a round can read
                // far more than a worker ring holds.
                port.flush();
                if (c.phase != TcpConnection.Phase.ESTABLISHED) {
                    return;
                }
            } else if (r == 0) {
                if (endOfStreamIsRecvError) {
                    counters.add(TcpCounters.RECV_ERRORS, 1);
                    table.closeWithWarning(c, "the stream ended (closed by the proxy or the peer behind it)");
                } else {
                    table.close(c, "closed by the peer");
                }
                return;
            } else if (r == -Errno.EAGAIN) {
                return;
            } else if (r != -Errno.EINTR) {
                counters.add(TcpCounters.RECV_ERRORS, 1);
                table.close(c, "read failed: " + Errno.strerror((int) -r));
                return;
            }
        }
    }

    /** Hands every complete packet in the receive buffer to the data plane; a violation closes (counted). */
    private void deframe(final MemorySegment source, final TcpConnection c) {
        while (true) {
            final int len = FmpStreamFramer.next(c.in, c.inStart, c.inEnd - c.inStart, c.rxMtu);
            if (len == FmpStreamFramer.NEED_MORE) {
                break;
            }
            if (len < 0) {
                counters.add(TcpCounters.RECV_ERRORS, 1);
                counters.add(TcpCounters.FRAMING_ERRORS, 1);
                table.close(c, FmpStreamFramer.describe(len));
                return;
            }
            final int slot = port.acquire();
            if (slot == PacketPool.NO_SLOT) {
                // Leave the bytes where they are (TCP holds the rest) and retry shortly.
                c.stalled = true;
                anyStalled = true;
                break;
            }
            final MemorySegment seg = port.pool().slotSegment(slot);
            MemorySegment.copy(c.in, c.inStart, seg, TransportPort.DATA_OFFSET, len);
            TcpAddressIds.write(source, c.addressId);
            port.deliver(slot, len, source, 0, TcpAddressIds.SOURCE_BYTES);
            counters.add(TcpCounters.PACKETS_RECV, 1);
            table.firstFrame(c);
            c.inStart += len;
        }
        if (c.inStart == c.inEnd) {
            c.inStart = 0;
            c.inEnd = 0;
        }
    }

    /** Deframes the connections that waited for pool slots. @return whether there were any */
    boolean retryStalled(final MemorySegment source) {
        anyStalled = false;
        boolean any = false;
        for (int id = 0; id < table.idLimit(); id++) {
            final TcpConnection c = table.conn(id);
            if (c != null && c.stalled) {
                c.stalled = false;
                deframe(source, c);
                any = true;
            }
        }
        return any;
    }
}
