package net.fips.dataplane.ble;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.function.LongSupplier;

import net.fips.dataplane.pool.PacketPool;
import net.fips.dataplane.pool.SlotDescriptor;
import net.fips.dataplane.transport.ConnectionState;
import net.fips.dataplane.transport.TransportPort;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.ffm.Errno;
import net.fips.ffm.ErrnoException;
import net.fips.ffm.linux.CallState;
import net.fips.ffm.linux.IoVec;
import net.fips.ffm.linux.Linux;
import net.fips.ffm.linux.PollFds;
import net.fips.ffm.linux.Syscalls;
import net.fips.ffm.linux.WakeFd;

/**
 * The event loop of one {@link BleTransport} under the data plane (thread {@code fips-ble[-name]}): per pass it
 * applies queued close and connect requests, writes the queued frames (one SDU per packet, writev from the slot),
 * polls the wake-up eventfd, the listener and every socket, accepts, and moves each socket on: a connect that
 * completed starts the {@link PubkeyHello} exchange, an exchange that finished passes the {@link TieBreak} into the
 * pool (evicting the oldest when full), a pooled socket is read straight into pool slots. Deadlines (connect,
 * exchange) bound the poll. Closes every socket when it ends.
 */
final class BleLoop implements Runnable {
    private static final int BATCH = 64;
    private static final int MAX_POLL_MS = 1_000;

    private final BleTransport transport;
    private final TransportPort port;
    private final int listenFd;
    private final WakeFd wake;
    private final SeqPacketFamily family;
    private final BleTransport.Settings settings;
    private final byte[] ownKey;
    private final NodeAddr ownAddr;
    private final PeerKeys keys;
    private final LongSupplier nanoClock;
    private final Map<String, ConnectionState> states;
    private final Map<String, Integer> linkMtus;
    private final Queue<String> connectRequests;
    private final Queue<String> closeRequests;
    /** The pool, by address. */
    private final Map<String, BleSocket> pooled = new HashMap<>();

    BleLoop(final BleTransport transport, final TransportPort port, final int listenFd, final WakeFd wake) {
        this.transport = transport;
        this.port = port;
        this.listenFd = listenFd;
        this.wake = wake;
        this.family = transport.family();
        this.settings = transport.settings();
        this.ownKey = transport.ownKey();
        this.ownAddr = transport.ownAddr();
        this.keys = transport.keys();
        this.nanoClock = transport.nanoClock();
        this.states = transport.states();
        this.linkMtus = transport.linkMtus();
        this.connectRequests = transport.connectRequests();
        this.closeRequests = transport.closeRequests();
    }

    @Override
    public void run() {
        final int cap = settings.maxConnections() * 2 + 16;
        final List<BleSocket> socks = new ArrayList<>(cap);
        long order = 0;
        try (Arena arena = Arena.ofConfined()) {
            final CallState cs = CallState.allocate(arena);
            final PollFds pfd = new PollFds(arena, cap + 2);
            final IoVec iov = new IoVec(arena);
            final MemorySegment scratch = arena.allocate(64);
            final MemorySegment addr = arena.allocate(Math.max(family.sockaddrSize(), 128), 8);
            final MemorySegment addrLen = arena.allocate(4, 4);
            final int[] slots = new int[BATCH];
            final PacketPool pool = port.pool();
            final int recvCap = (int) Math.min(pool.maxMtuBytes(),
                    pool.slotSegment(0).byteSize() - TransportPort.DATA_OFFSET);
            final BleSocket[] polled = new BleSocket[cap + 2];
            while (!transport.stopping()) {
                // 1. requests from other threads
                applyRequests(socks, cap, arena);
                // 2. outbound frames
                int n;
                while ((n = port.drainOutbound(slots, BATCH)) > 0) {
                    for (int i = 0; i < n; i++) {
                        final BleDestination d = (BleDestination) port.takeDestination(slots[i]);
                        final BleSocket s = d == null ? null : pooled.get(d.text());
                        final MemorySegment seg = pool.slotSegment(slots[i]);
                        final int off = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_OFFSET_FIELD);
                        final int len = seg.get(ValueLayout.JAVA_INT, SlotDescriptor.DATA_LENGTH_FIELD);
                        if (s == null) {
                            transport.count(BleTransport.Counter.SEND_ERRORS);
                            if (d != null) {
                                transport.connect(d.text());
                            }
                        } else if (len > s.mtu) {
                            transport.count(BleTransport.Counter.MTU_EXCEEDED);
                        } else {
                            iov.set(seg, off, len);
                            final long rc = Syscalls.writev(cs, s.fd, iov.segment(), 1);
                            if (rc == len) {
                                transport.count(BleTransport.Counter.PACKETS_SENT);
                                transport.add(BleTransport.Counter.BYTES_SENT, len);
                            } else {
                                transport.count(BleTransport.Counter.SEND_ERRORS);
                                if (rc != -Errno.EAGAIN) {
                                    pooled.remove(s.address, s);
                                    drop(socks, s, null);
                                }
                            }
                        }
                        port.release(slots[i]);
                    }
                }
                // 3. poll
                final long now = nanoClock.getAsLong();
                long timeout = MAX_POLL_MS;
                int np = 0;
                pfd.set(np, wake.fd(), Linux.POLLIN);
                polled[np++] = null;
                if (listenFd >= 0) {
                    pfd.set(np, listenFd, Linux.POLLIN);
                    polled[np++] = null;
                }
                for (int i = 0; i < socks.size(); i++) { // indexed: no iterator per pass
                    final BleSocket s = socks.get(i);
                    pfd.set(np, s.fd, s.phase == BleSocket.Phase.CONNECTING ? Linux.POLLOUT : Linux.POLLIN);
                    polled[np++] = s;
                    if (s.phase != BleSocket.Phase.POOLED) {
                        timeout = Math.min(timeout, Math.max(0, (s.deadline - now + 999_999) / 1_000_000));
                    }
                }
                for (int i = np; i < cap + 2; i++) {
                    pfd.set(i, -1, (short) 0); // ignored by poll
                }
                final int ready = pfd.poll(cs, (int) timeout);
                if (ready < 0 && ready != -Errno.EINTR) {
                    break;
                }
                if ((pfd.revents(0) & Linux.POLLIN) != 0) {
                    Syscalls.read(cs, wake.fd(), scratch, Long.BYTES); // reset the eventfd counter
                }
                // 4. accept
                if (listenFd >= 0 && (pfd.revents(1) & Linux.POLLIN) != 0) {
                    for (int k = 0; k < BATCH && socks.size() < cap; k++) {
                        final int fd = Syscalls.accept4(cs, listenFd, addr, addrLen,
                                Linux.SOCK_NONBLOCK | Linux.SOCK_CLOEXEC);
                        if (fd < 0) {
                            break;
                        }
                        final String from = family.acceptedAddress(addr, addrLen.get(ValueLayout.JAVA_INT, 0));
                        final BleSocket s = new BleSocket(from, fd, false, arena);
                        startExchange(socks, s, scratch, cs);
                    }
                }
                // 5. sockets
                final int first = listenFd >= 0 ? 2 : 1;
                boolean delivered = false;
                final long t = nanoClock.getAsLong();
                for (int i = first; i < np; i++) {
                    final BleSocket s = polled[i];
                    final short rev = pfd.revents(i);
                    if (!socks.contains(s)) {
                        continue; // dropped earlier in this pass
                    }
                    switch (s.phase) {
                        case CONNECTING -> {
                            if (rev != 0) {
                                int err;
                                try {
                                    err = Syscalls.getsockoptInt(s.fd, Linux.SOL_SOCKET, Linux.SO_ERROR, "SO_ERROR");
                                } catch (final ErrnoException e) {
                                    err = e.errno();
                                }
                                if (err == 0) {
                                    startExchange(socks, s, scratch, cs);
                                } else {
                                    drop(socks, s, ConnectionState.FAILED);
                                }
                            } else if (t - s.deadline >= 0) {
                                transport.count(BleTransport.Counter.CONNECT_TIMEOUTS);
                                drop(socks, s, ConnectionState.FAILED);
                            }
                        }
                        case EXCHANGE -> {
                            if (rev != 0) {
                                order = finishExchange(socks, pooled, s, scratch, cs, arena, order);
                            } else if (t - s.deadline >= 0) {
                                reject(socks, s);
                            }
                        }
                        case POOLED -> {
                            if (rev != 0) {
                                delivered |= readPooled(port, pool, pooled, socks, s, iov, cs, recvCap);
                            }
                        }
                    }
                }
                if (delivered) {
                    port.flush();
                }
            }
        } finally {
            for (final BleSocket s : List.copyOf(socks)) {
                Syscalls.closeQuietly(s.fd);
                states.remove(s.address);
                linkMtus.remove(s.address);
            }
            Syscalls.closeQuietly(listenFd);
        }
    }

    private void startExchange(final List<BleSocket> socks, final BleSocket s, final MemorySegment scratch,
            final CallState cs) {
        final int n = PubkeyHello.encode(ownKey, scratch);
        final int rc = Syscalls.send(cs, s.fd, scratch, n, Linux.MSG_DONTWAIT);
        if (!socks.contains(s)) {
            socks.add(s);
        }
        if (rc != n) {
            if (s.outbound) {
                drop(socks, s, ConnectionState.FAILED);
            } else {
                reject(socks, s);
            }
            return;
        }
        s.phase = BleSocket.Phase.EXCHANGE;
        s.deadline = nanoClock.getAsLong() + settings.exchangeTimeoutMs() * 1_000_000L;
    }

    private long finishExchange(final List<BleSocket> socks, final Map<String, BleSocket> pooled, final BleSocket s,
            final MemorySegment scratch, final CallState cs, final Arena arena, final long order) {
        final int rc = Syscalls.recv(cs, s.fd, scratch, (int) scratch.byteSize(), Linux.MSG_DONTWAIT);
        if (rc == -Errno.EAGAIN || rc == -Errno.EINTR) {
            return order;
        }
        if (rc <= 0 || PubkeyHello.check(scratch, 0, rc, keys) != null) {
            if (s.outbound) {
                drop(socks, s, ConnectionState.FAILED);
            } else {
                reject(socks, s);
            }
            return order;
        }
        final byte[] key = PubkeyHello.key(scratch, 0);
        transport.report(s.address, key);
        final NodeAddr peer = keys.nodeAddr(key);
        if (s.outbound ? !TieBreak.keepOutbound(ownAddr, peer)
                : !TieBreak.keepInbound(ownAddr, peer) || pooled.containsKey(s.address)) {
            if (s.outbound) {
                drop(socks, s, null); // the peer's connection to us wins
            } else {
                reject(socks, s);
            }
            return order;
        }
        final int send = family.sendMtu(s.fd);
        final int recv = family.recvMtu(s.fd);
        if (send <= 0 || recv <= 0) {
            drop(socks, s, s.outbound ? ConnectionState.FAILED : null);
            return order;
        }
        s.mtu = Math.min(send, recv);
        s.peerKey = key;
        s.order = order + 1;
        s.sourceLength = family.encodeSource(s.address, s.source);
        if (pooled.size() >= settings.maxConnections()) {
            // full: the oldest goes first, so nobody sees more than maxConnections pooled
            BleSocket oldest = null;
            for (final BleSocket x : pooled.values()) {
                if (oldest == null || x.order < oldest.order) {
                    oldest = x;
                }
            }
            pooled.remove(oldest.address);
            drop(socks, oldest, null);
            transport.count(BleTransport.Counter.POOL_EVICTIONS);
        }
        s.phase = BleSocket.Phase.POOLED;
        pooled.put(s.address, s);
        linkMtus.put(s.address, s.mtu);
        states.put(s.address, ConnectionState.CONNECTED);
        transport.count(s.outbound ? BleTransport.Counter.CONNECTIONS_ESTABLISHED
                : BleTransport.Counter.CONNECTIONS_ACCEPTED);
        return order + 1;
    }

    private boolean readPooled(final TransportPort port, final PacketPool pool, final Map<String, BleSocket> pooled,
            final List<BleSocket> socks, final BleSocket s, final IoVec iov, final CallState cs, final int recvCap) {
        boolean delivered = false;
        for (int k = 0; k < BATCH; k++) {
            final int slot = port.acquire();
            if (slot == PacketPool.NO_SLOT) {
                return delivered; // pool exhausted (counted by the port): leave the rest in the kernel
            }
            iov.set(pool.slotSegment(slot), TransportPort.DATA_OFFSET, recvCap);
            final long n = Syscalls.readv(cs, s.fd, iov.segment(), 1);
            if (n == -Errno.EAGAIN || n == -Errno.EINTR) {
                port.release(slot);
                return delivered;
            }
            if (n <= 0) {
                port.release(slot);
                if (n < 0) {
                    transport.count(BleTransport.Counter.RECV_ERRORS);
                }
                pooled.remove(s.address, s);
                drop(socks, s, null); // 0: the peer closed
                return delivered;
            }
            if (n >= recvCap) {
                port.release(slot); // larger than any packet we accept: cut, never delivered
                transport.count(BleTransport.Counter.RECV_ERRORS);
                continue;
            }
            transport.count(BleTransport.Counter.PACKETS_RECV);
            transport.add(BleTransport.Counter.BYTES_RECV, n);
            port.deliver(slot, (int) n, s.source, 0, s.sourceLength);
            delivered = true;
        }
        return delivered;
    }

    private void reject(final List<BleSocket> socks, final BleSocket s) {
        transport.count(BleTransport.Counter.CONNECTIONS_REJECTED);
        socks.remove(s);
        Syscalls.closeQuietly(s.fd);
    }

    private void drop(final List<BleSocket> socks, final BleSocket s, final ConnectionState after) {
        socks.remove(s);
        Syscalls.closeQuietly(s.fd);
        final BleSocket current = pooled.get(s.address);
        if (current != null && current != s) {
            return; // another connection to the same peer is pooled (a crossed connect): its state stands
        }
        if (s.phase == BleSocket.Phase.POOLED) {
            linkMtus.remove(s.address);
        }
        if (s.outbound || s.phase == BleSocket.Phase.POOLED) {
            if (after == null) {
                states.remove(s.address);
            } else {
                states.put(s.address, after);
            }
        }
    }

    /** Applies the close and connect requests other threads queued (a connect opens a socket, never blocks). */
    private void applyRequests(final List<BleSocket> socks, final int cap, final Arena arena) {
        String a;
        while ((a = closeRequests.poll()) != null) {
            final BleSocket s = pooled.remove(a);
            if (s != null) {
                drop(socks, s, null);
            }
        }
        while ((a = connectRequests.poll()) != null) {
            if (pooled.containsKey(a) || socks.size() >= cap) {
                if (!pooled.containsKey(a)) {
                    states.put(a, ConnectionState.FAILED);
                }
                continue;
            }
            try {
                final int fd = family.connect(a);
                final BleSocket s = new BleSocket(a, fd, true, arena);
                s.phase = BleSocket.Phase.CONNECTING;
                s.deadline = nanoClock.getAsLong() + settings.connectTimeoutMs() * 1_000_000L;
                socks.add(s);
            } catch (final ErrnoException | IllegalArgumentException e) {
                states.put(a, ConnectionState.FAILED);
            }
        }
    }
}
