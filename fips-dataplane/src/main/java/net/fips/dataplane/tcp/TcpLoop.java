package net.fips.dataplane.tcp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.Map;
import java.util.Queue;

import net.fips.dataplane.transport.ConnectionState;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportPort;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.EpollEvents;
import net.fips.ffm.linux.IoVec;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.SockAddrs;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.WakeFd;

/**
 * The event loop of one {@link TcpTransport} under the data plane (thread {@code fips-tcp-N}): waits in
 * {@code epoll_wait} on the listener, every connection and the wake-up eventfd, and per round applies queued
 * requests, sends what the workers queued ({@link TcpStreamWriter}), accepts ({@link TcpConnectionTable}), reads
 * and deframes ({@link TcpStreamReader}), wakes the fed workers and expires deadlines. Before sleeping it announces
 * so and re-checks its rings behind a full fence; {@link #wakeup()} writes the eventfd only while it sleeps (a
 * Dekker handshake). Returns every slot it holds when it ends.
 */
final class TcpLoop implements Runnable {
    private static final System.Logger LOG = System.getLogger(TcpLoop.class.getName());
    private static final int MAX_EVENTS = 64;
    private static final int DRAIN_BATCH = 64;
    /** The epoll data of the wake-up eventfd and the listener; connections use their id (0 and up). */
    static final long WAKE_ID = -1;
    static final long LISTENER_ID = -2;

    private final TcpTransport transport;
    private final TransportPort port;
    private final int epfd;
    private final WakeFd wake;
    private final Queue<TcpRequest> requests;
    private final TcpConnectionTable table;
    private final TcpStreamWriter writer;
    private final TcpStreamReader reader;
    private volatile boolean running = true;
    private volatile boolean sleeping;

    TcpLoop(final TcpTransport transport, final TransportPort port, final TcpTransportConfig cfg, final int epfd,
            final int listenFd, final WakeFd wake, final Queue<TcpRequest> requests, final TcpCounters counters,
            final TcpAddressIds ids, final Map<TransportAddr, ConnectionState> states, final String threadName) {
        this.transport = transport;
        this.port = port;
        this.epfd = epfd;
        this.wake = wake;
        this.requests = requests;
        this.table = new TcpConnectionTable(cfg, epfd, listenFd, counters, ids, states, requests, wake, port,
                this::running, threadName);
        this.writer = new TcpStreamWriter(port, counters, table, cfg.mtu());
        this.reader = new TcpStreamReader(port, counters, table, cfg.endOfStreamIsRecvError());
    }

    private boolean running() {
        return running;
    }

    /** Wakes the loop if it sleeps (any thread; an eventfd write only then). */
    void wakeup() {
        // Pairs with the loop's fence between announcing sleep and re-checking its rings (Dekker).
        VarHandle.fullFence();
        if (sleeping) {
            wake.wake();
        }
    }

    /** Tells the loop to end (it wakes and returns); the caller joins the thread. */
    void stop() {
        running = false;
        wake.wake();
    }

    @Override
    public void run() {
        try (Arena arena = Arena.ofConfined()) {
            final CallState cs = CallState.allocate(arena);
            final MemorySegment events = arena.allocate(EpollEvents.SIZE * MAX_EVENTS, 8);
            final MemorySegment wakeValue = arena.allocate(Long.BYTES, 8);
            final MemorySegment source = arena.allocate(TcpAddressIds.SOURCE_BYTES, 8);
            final MemorySegment acceptAddr = arena.allocate(SockAddrs.STORAGE_SIZE, 8);
            final MemorySegment acceptLen = arena.allocate(Integer.BYTES, 8);
            final IoVec iov = new IoVec(arena);
            final int[] slots = new int[DRAIN_BATCH];
            try {
                while (running) {
                    boolean busy = processRequests();
                    busy |= writer.sendQueued(cs, iov, slots);
                    if (reader.anyStalled()) {
                        busy |= reader.retryStalled(source);
                    }
                    int timeout = busy ? 0 : reader.anyStalled() ? 1 : table.nextTimeoutMs();
                    if (timeout != 0) {
                        sleeping = true;
                        VarHandle.fullFence();
                        if (port.hasOutbound() || !requests.isEmpty() || !running) {
                            timeout = 0;
                        }
                    }
                    final int n = Syscalls.epollWait(cs, epfd, events, MAX_EVENTS, timeout);
                    sleeping = false;
                    for (int i = 0; i < n; i++) {
                        final long data = EpollEvents.data(events, i);
                        if (data == WAKE_ID) {
                            Syscalls.read(cs, wake.fd(), wakeValue, Long.BYTES);
                        } else if (data == LISTENER_ID) {
                            table.acceptAll(cs, acceptAddr, acceptLen);
                        } else {
                            final TcpConnection c = table.conn((int) data);
                            if (c != null) {
                                onReady(cs, iov, source, c, EpollEvents.events(events, i));
                            }
                        }
                    }
                    port.flush();
                    table.expire();
                }
            } catch (final RuntimeException | Error e) {
                transport.loopFailed();
                LOG.log(System.Logger.Level.ERROR, transport.typeName() + " transport loop failed; it has stopped", e);
            } finally {
                table.disposeAll();
            }
        }
    }

    private boolean processRequests() {
        boolean any = false;
        TcpRequest r;
        while ((r = requests.poll()) != null) {
            any = true;
            if (r.lookupDone()) {
                table.lookedUp(r);
            } else if (r.connect()) {
                table.startConnect(r.address());
            } else {
                table.closeRequested(r.address());
            }
        }
        return any;
    }

    private void onReady(final CallState cs, final IoVec iov, final MemorySegment source, final TcpConnection c,
                         final int ev) {
        switch (c.phase) {
            case CONNECTING -> table.connectReady(c);
            case PRELINK -> table.stepPreLink(c);
            case ESTABLISHED -> {
                if ((ev & (Linux.EPOLLIN | Linux.EPOLLHUP | Linux.EPOLLERR | Linux.EPOLLRDHUP)) != 0) {
                    reader.read(cs, iov, source, c);
                }
                if (c.phase == TcpConnection.Phase.ESTABLISHED && (ev & Linux.EPOLLOUT) != 0) {
                    writer.onWritable(cs, iov, c);
                }
            }
            default -> {
            }
        }
    }
}
