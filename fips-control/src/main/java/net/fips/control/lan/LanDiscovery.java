package net.fips.control.lan;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

import javax.jmdns.JmDNS;
import javax.jmdns.ServiceEvent;
import javax.jmdns.ServiceInfo;
import javax.jmdns.ServiceListener;

/**
 * LAN discovery over mDNS (discovery-gateway.md §3): announces this node's service on every given interface
 * address and browses for others, one JmDNS instance per address. What it finds and accepts
 * ({@link LanAdvert#refusal}) waits in a bounded queue for the control loop, which dials it ({@link #drain}); the
 * TXT {@code npub} is only a hint, since a node that claims someone else's npub fails the Noise IK handshake.
 *
 * <p>IPv4 and IPv6 alike (discovery-gateway.md §3.1-§3.2): an instance on an IPv6 address joins ff02::fb on its
 * interface and announces that address as an AAAA record. JmDNS hands resolved AAAA addresses over without a scope
 * id, so a link-local one gets the scope of the interface of the instance that heard it ({@link #withScope}); one
 * heard on loopback, which has no IPv6 multicast, is skipped as the reference skips a scope-less link-local address.
 *
 * <p>Threads: JmDNS's own; this class only queues from them.
 */
public final class LanDiscovery implements AutoCloseable {

    /**
     * One accepted announcement at one of its addresses.
     *
     * @param npub    the TXT npub
     * @param scope   the TXT scope, or null
     * @param address where to dial it: a resolved address and the announced port
     */
    public record Found(String npub, String scope, InetSocketAddress address) {
    }

    /** How many finds wait for the control loop at most; more are dropped and counted. */
    public static final int QUEUE = 256;
    /** How long {@link #close} waits for the instances to stop, at most. */
    public static final long CLOSE_WAIT_MS = 8_000;

    private static final System.Logger LOG = System.getLogger(LanDiscovery.class.getName());

    private final String serviceType;
    private final String npub;
    private final String scope;
    private final int port;
    private final List<JmDNS> instances = new ArrayList<>();
    private final BlockingQueue<Found> found = new ArrayBlockingQueue<>(QUEUE);
    private final BlockingQueue<String> gone = new ArrayBlockingQueue<>(QUEUE);
    private boolean closed;
    private final AtomicLong announcementsSeen = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();

    private LanDiscovery(final String serviceType, final String npub, final String scope, final int port) {
        this.serviceType = serviceType;
        this.npub = npub;
        this.scope = scope;
        this.port = port;
    }

    /**
     * Starts announcing and browsing.
     *
     * @param serviceType {@code node.discovery.lan.service_type}
     * @param npub        our npub
     * @param scope       our scope ({@link LanAdvert#scope}), empty for none
     * @param port        the UDP port to announce (our first UDP transport's)
     * @param addresses   the interface addresses to run on ({@link #interfaceAddresses()} in the node)
     * @return the running discovery
     * @throws IOException when no address could be used (each failure is named)
     */
    public static LanDiscovery start(final String serviceType, final String npub, final String scope,
            final int port, final List<InetAddress> addresses) throws IOException {
        if (!LanAdvert.validServiceType(serviceType)) {
            throw new IllegalArgumentException("service type " + serviceType
                    + " must end in ._udp.local. or ._tcp.local.");
        }
        final LanDiscovery d = new LanDiscovery(serviceType, npub, scope, port);
        final List<String> failures = new ArrayList<>();
        for (final InetAddress a : addresses) {
            try {
                d.startOn(a);
            } catch (final IOException | RuntimeException e) {
                failures.add(a.getHostAddress() + ": " + e);
            }
        }
        if (d.interfaces() == 0) {
            throw new IOException("mDNS could not run on any interface address" + (failures.isEmpty() ? ""
                    : ": " + String.join("; ", failures)));
        }
        for (final String f : failures) {
            LOG.log(System.Logger.Level.DEBUG, "mDNS skips {0}", f);
        }
        return d;
    }

    private void startOn(final InetAddress address) throws IOException {
        final String instance = LanAdvert.instanceName(npub);
        final NetworkInterface nif = address instanceof Inet6Address a6 && a6.getScopedInterface() != null
                ? a6.getScopedInterface() : NetworkInterface.getByInetAddress(address);
        final JmDNS jm = JmDNS.create(address, instance);
        synchronized (this) {
            if (closed) {
                jm.close();
                return;
            }
            instances.add(jm);
        }
        jm.addServiceListener(serviceType, new ServiceListener() {
            @Override
            public void serviceAdded(final ServiceEvent e) {
                jm.requestServiceInfo(e.getType(), e.getName());
            }

            @Override
            public void serviceRemoved(final ServiceEvent e) {
                LOG.log(System.Logger.Level.DEBUG, "mDNS: {0} left", e.getName());
                if (!gone.offer(e.getName())) {
                    dropped.incrementAndGet();
                }
            }

            @Override
            public void serviceResolved(final ServiceEvent e) {
                onResolved(e.getInfo(), nif);
            }
        });
        jm.registerService(ServiceInfo.create(serviceType, instance, port, 0, 0, LanAdvert.txt(npub, scope)));
    }

    private void onResolved(final ServiceInfo info, final NetworkInterface heardOn) {
        if (!info.getPropertyNames().hasMoreElements()) {
            // JmDNS may report a service resolved before its TXT record arrived (mdns-sd waits for it,
            // discovery-gateway.md §3.3); it reports it again once the TXT is in.
            return;
        }
        announcementsSeen.incrementAndGet();
        final String theirNpub = info.getPropertyString("npub");
        final String theirScope = info.getPropertyString("scope");
        String why = LanAdvert.refusal(theirNpub, theirScope, npub, scope);
        if (why == null && info.getPort() == 0) {
            why = "port 0";
        }
        if (why != null) {
            if (!"our own announcement".equals(why)) {
                refused.incrementAndGet();
                LOG.log(System.Logger.Level.DEBUG, "mDNS: ignoring {0}: {1}", info.getName(), why);
            }
            return;
        }
        for (final InetAddress resolved : info.getInetAddresses()) {
            final InetAddress a = withScope(resolved, heardOn);
            if (!LanAdvert.dialable(a)) {
                continue;
            }
            if (!found.offer(new Found(theirNpub, theirScope, new InetSocketAddress(a, info.getPort())))) {
                dropped.incrementAndGet();
            }
        }
    }

    /**
     * Gives a scope-less IPv6 link-local address the scope of the interface it was heard on, as mdns-sd gives it the
     * receiving interface's index (discovery-gateway.md §3.2). JmDNS does not say which interface a datagram came
     * in on; the instance's own interface stands for it (a host with several IPv6 links may hear an announcement on
     * an instance of another link, ADR 0059: a wrong scope fails its dial and the peer's other addresses are tried).
     *
     * @param address a resolved address
     * @param heardOn the interface of the instance that resolved it, or null when unknown
     * @return the address, scoped when it is a scope-less link-local IPv6 one and the interface is not loopback
     */
    static InetAddress withScope(final InetAddress address, final NetworkInterface heardOn) {
        if (!(address instanceof Inet6Address a6) || !a6.isLinkLocalAddress() || a6.getScopeId() != 0
                || a6.getScopedInterface() != null || heardOn == null) {
            return address;
        }
        try {
            if (heardOn.isLoopback()) {
                return address;
            }
            return Inet6Address.getByAddress(null, a6.getAddress(), heardOn);
        } catch (final IOException e) {
            // The interface went away since the instance started: the address stays scope-less and is skipped.
            return address;
        }
    }

    /**
     * @param max how many at most
     * @return the finds that waited, oldest first (the same peer may come more than once: announcements repeat)
     */
    public List<Found> drain(final int max) {
        final List<Found> out = new ArrayList<>();
        found.drainTo(out, max);
        return out;
    }

    /**
     * @param max how many at most
     * @return the instance names whose service was withdrawn (goodbye) or expired, oldest first
     */
    public List<String> drainGone(final int max) {
        final List<String> out = new ArrayList<>();
        gone.drainTo(out, max);
        return out;
    }

    /** @return the service type announced and browsed */
    public String serviceType() {
        return serviceType;
    }

    /** @return the scope announced and filtered by, empty for none */
    public String scope() {
        return scope;
    }

    /** @return the UDP port announced */
    public int port() {
        return port;
    }

    /** @return the instance name announced */
    public String instanceName() {
        return LanAdvert.instanceName(npub);
    }

    /** @return resolved announcements with a TXT record seen, ours included */
    public long announcementsSeen() {
        return announcementsSeen.get();
    }

    /** @return announcements refused (a TXT without npub, another scope, port 0) */
    public long refused() {
        return refused.get();
    }

    /** @return finds and withdrawals dropped because their queue was full */
    public long dropped() {
        return dropped.get();
    }

    /** @return how many interface addresses it runs on */
    public synchronized int interfaces() {
        return instances.size();
    }

    /**
     * @return the IPv4 addresses of every interface that is up and multicast-capable and the IPv6 ones of those that
     *         are not point-to-point either (a TUN such as the node's own fips0 has no link to announce on; ADR
     *         0059), then loopback's IPv4 addresses (the reference includes loopback, so two nodes on one host can
     *         find each other where the kernel loops multicast back; loopback has no IPv6 multicast); IPv6
     *         link-local ones carry their interface as scope
     * @throws SocketException when the interfaces cannot be listed
     */
    public static List<InetAddress> interfaceAddresses() throws SocketException {
        final List<InetAddress> out = new ArrayList<>();
        final List<InetAddress> loopback = new ArrayList<>();
        for (final NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nif.isUp() || !nif.supportsMulticast() && !nif.isLoopback()) {
                continue;
            }
            for (final InetAddress a : Collections.list(nif.getInetAddresses())) {
                if (a instanceof Inet4Address) {
                    (nif.isLoopback() ? loopback : out).add(a);
                } else if (a instanceof Inet6Address && !nif.isLoopback() && !nif.isPointToPoint()) {
                    out.add(a);
                }
            }
        }
        out.addAll(loopback);
        return out;
    }

    /**
     * Withdraws the announcements (goodbye records) and stops every instance; JmDNS's threads end with them. The
     * instances stop side by side: JmDNS takes about 4 s to stop one (it waits for the goodbye and its own cancel),
     * so one after the other a node with five interface addresses would need 20 s. Waits at most
     * {@value #CLOSE_WAIT_MS} ms; an instance still stopping then finishes on its own (daemon) thread. Idempotent; an
     * instance still being created by {@link #start} is closed as soon as it exists.
     */
    @Override
    public void close() {
        final List<JmDNS> running;
        synchronized (this) {
            closed = true;
            running = new ArrayList<>(instances);
            instances.clear();
        }
        final List<Thread> stopping = new ArrayList<>();
        for (final JmDNS jm : running) {
            stopping.add(Thread.ofPlatform().daemon().name("mdns-close").start(() -> {
                try {
                    jm.unregisterAllServices();
                    jm.close();
                } catch (final IOException | RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, "mDNS close: {0}", e.toString());
                }
            }));
        }
        final long deadline = System.nanoTime() + CLOSE_WAIT_MS * 1_000_000L;
        try {
            for (final Thread t : stopping) {
                final long left = deadline - System.nanoTime();
                if (left <= 0 || !t.join(Duration.ofNanos(left))) {
                    LOG.log(System.Logger.Level.DEBUG, "mDNS close: an instance is still stopping after {0} ms",
                            CLOSE_WAIT_MS);
                    return;
                }
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
