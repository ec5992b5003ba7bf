package net.fips.control.nat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory internet with NAT routers, for the traversal state machines: each host sits behind its own router
 * with one public address in 198.18.0.0/15; a STUN server answers at {@link #STUN}. Routers map as they are told:
 * {@link Nat#CONE} keeps one public port per socket (endpoint-independent mapping) and lets in only what comes from
 * addresses that socket has sent to (port-restricted filtering, the masquerade + input-drop lab of §7.3);
 * {@link Nat#SYMMETRIC} opens a new public port for each destination ({@code masquerade fully-random}) and lets in
 * only that destination's replies. Several hosts may share one router ({@link #lanHost}): they reach each other's
 * private addresses directly, but a router does not hairpin (a datagram to its own public address from inside is
 * dropped), as many home routers do not. Delivery is immediate; every datagram a host sends is counted.
 */
final class SimNet {
    /** How a router maps. */
    enum Nat { CONE, SYMMETRIC }

    /** The STUN server's address. */
    static final InetSocketAddress STUN = new InetSocketAddress(ip("198.18.0.1"), 3478);

    private final Map<InetSocketAddress, Mapping> mappings = new HashMap<>();
    private final AtomicInteger nextPort = new AtomicInteger(40_000);
    private final AtomicInteger nextLocalPort = new AtomicInteger(50_000);
    private final Map<InetSocketAddress, Endpoint> lan = new HashMap<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong filtered = new AtomicLong();

    private static InetAddress ip(final String text) {
        try {
            return InetAddress.getByName(text);
        } catch (final UnknownHostException e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    /** One public port of a router and what may come in through it. */
    private record Mapping(Endpoint owner, InetSocketAddress publicAddress, Set<InetSocketAddress> permitted) {
    }

    /** A host behind a router. */
    final class Host {
        private final InetAddress publicIp;
        private final Nat nat;
        private final InetAddress privateIp;

        Host(final String publicIp, final Nat nat, final String privateIp) {
            this.publicIp = ip(publicIp);
            this.nat = nat;
            this.privateIp = privateIp == null ? null : ip(privateIp);
        }

        /** @return the host's LAN address, or null for a host alone behind its router */
        InetAddress privateIp() {
            return privateIp;
        }

        /** @return a fresh socket on this host */
        Endpoint open() {
            return new Endpoint(this);
        }
    }

    /** A socket on a host. */
    final class Endpoint implements DatagramPort {
        private final Host host;
        private final LinkedBlockingQueue<Object[]> in = new LinkedBlockingQueue<>();
        private final Map<InetSocketAddress, Mapping> byDestination = new HashMap<>();
        private final int localPort = nextLocalPort.getAndIncrement();
        private Mapping cone;
        private volatile boolean closed;

        Endpoint(final Host host) {
            this.host = host;
            if (host.privateIp != null) {
                synchronized (SimNet.this) {
                    lan.put(new InetSocketAddress(host.privateIp, localPort), this);
                }
            }
        }

        /** @return the socket's own (private side) port */
        int localPort() {
            return localPort;
        }

        @Override
        public int send(final byte[] data, final int length, final InetSocketAddress to) {
            if (closed) {
                return -9;
            }
            sent.incrementAndGet();
            final Mapping m;
            synchronized (SimNet.this) {
                m = mapping(to);
                m.permitted().add(to);
            }
            final byte[] copy = Arrays.copyOf(data, length);
            final Endpoint neighbour;
            synchronized (SimNet.this) {
                neighbour = host.privateIp == null ? null : lan.get(to);
            }
            if (neighbour != null && neighbour.host.publicIp.equals(host.publicIp)) {
                if (!neighbour.closed) {
                    neighbour.in.add(new Object[]{copy, new InetSocketAddress(host.privateIp, localPort)});
                }
                return length;   // same LAN: straight across, no NAT
            }
            if (to.getAddress().equals(host.publicIp)) {
                filtered.incrementAndGet();   // no hairpin
                return length;
            }
            if (STUN.equals(to)) {
                final byte[] txid = Stun.requestTxid(copy, length);
                if (txid != null) {
                    deliver(STUN, m.publicAddress(), Stun.bindingSuccess(txid, m.publicAddress()));
                }
                return length;
            }
            deliver(m.publicAddress(), to, copy);
            return length;
        }

        private Mapping mapping(final InetSocketAddress to) {
            if (host.nat == Nat.CONE) {
                if (cone == null) {
                    cone = newMapping();
                }
                return cone;
            }
            return byDestination.computeIfAbsent(to, t -> newMapping());
        }

        private Mapping newMapping() {
            final Mapping m = new Mapping(this, new InetSocketAddress(host.publicIp, nextPort.getAndIncrement()),
                    new HashSet<>());
            mappings.put(m.publicAddress(), m);
            return m;
        }

        @Override
        public Received receive(final byte[] into, final int timeoutMs) {
            try {
                final Object[] d = timeoutMs <= 0 ? in.poll() : in.poll(timeoutMs, TimeUnit.MILLISECONDS);
                if (d == null || closed) {
                    return null;
                }
                final byte[] bytes = (byte[]) d[0];
                final int n = Math.min(bytes.length, into.length);
                System.arraycopy(bytes, 0, into, 0, n);
                return new Received(n, (InetSocketAddress) d[1]);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        @Override
        public boolean isClosed() {
            return closed;
        }

        void close() {
            closed = true;
        }
    }

    private void deliver(final InetSocketAddress from, final InetSocketAddress to, final byte[] data) {
        final Mapping m;
        synchronized (this) {
            m = mappings.get(to);
            if (m == null || !m.permitted().contains(from)) {
                filtered.incrementAndGet();
                return;
            }
        }
        if (!m.owner().closed) {
            m.owner().in.add(new Object[]{data, from});
        }
    }

    /** @return a host with its own router */
    Host host(final String publicIp, final Nat nat) {
        return new Host(publicIp, nat, null);
    }

    /** @return a host on the LAN behind the router with {@code publicIp} (shared with other such hosts) */
    Host lanHost(final String publicIp, final Nat nat, final String privateIp) {
        return new Host(publicIp, nat, privateIp);
    }

    /** @return datagrams hosts sent so far (STUN requests, probes, acks) */
    long sent() {
        return sent.get();
    }

    /** @return datagrams a router's filter dropped */
    long filtered() {
        return filtered.get();
    }

    /** A {@link NatIo} for {@code host}: STUN against {@link #STUN} with the real client; adoption recorded. */
    NatIo io(final Host host, final List<String> adopted) {
        return io(host, adopted, null);
    }

    /**
     * A {@link NatIo} for {@code host} as {@link #io(Host, List)}, with host candidates from {@code locals} (null:
     * none) paired with each socket's own port.
     */
    NatIo io(final Host host, final List<String> adopted, final LocalCandidates locals) {
        final StunClient stun = new StunClient(System::nanoTime, InetAddress::getByName);
        return () -> {
            final Endpoint e = host.open();
            final StunClient.Result r = stun.discover(e, List.of("stun:198.18.0.1:3478"), 500);
            final List<InetSocketAddress> candidates = locals == null ? List.of() : locals.collect(e.localPort());
            return new NatIo.Attempt() {
                @Override
                public DatagramPort port() {
                    return e;
                }

                @Override
                public InetSocketAddress reflexive() {
                    return r.reflexive();
                }

                @Override
                public String stunServer() {
                    return r.server();
                }

                @Override
                public List<InetSocketAddress> locals() {
                    return candidates;
                }

                @Override
                public int adopt(final String npub, final InetSocketAddress remote) {
                    adopted.add(npub + "@" + remote);
                    return 7;
                }

                @Override
                public void close() {
                    e.close();
                }
            };
        };
    }
}
