package net.fips.control.node;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.config.FipsConfig;
import net.fips.control.ctl.ControlJson;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.lan.LanAdvert;
import net.fips.control.lan.LanDiscovery;
import net.fips.control.lan.LanPeers;
import net.fips.control.link.LinkConductor;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportTypes;
import net.fips.dataplane.udp.UdpAddresses;
import net.fips.dataplane.udp.UdpTransportException;

/**
 * The node's LAN discovery over mDNS (discovery-gateway.md §3): with {@code node.discovery.lan.enabled} it announces
 * the port of the first UDP transport ({@link LanDiscovery}), and on each control-loop tick dials the peers found
 * there ({@link LanPeers} decides when) through the link layer's {@code connect}, the path of operator dials: the
 * peer ACL, the connection limit and the de-duplication of linked and dialling peers apply as to any dial. {@link
 * #apply} starts, restarts or stops it from a configuration (at start and on reload); {@link #close} stops it and
 * JmDNS's threads with it.
 *
 * <p>Threads: {@link #tick} runs on the control thread and alone touches the peer table; {@link #apply} and {@link
 * #close} run on the starting, reloading or stopping thread; {@link #state} is a snapshot published by the tick.
 */
final class LanService implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(LanService.class.getName());

    /** The link layer's connect. */
    @FunctionalInterface
    interface Dialer {
        LinkConductor.ConnectResult connect(PeerIdentity peer, int transportId, TransportAddr address);
    }

    /** What {@link #apply} settles on: the effective settings. */
    private record Settings(boolean enabled, String serviceType, String scope) {
    }

    /**
     * What {@code show_lan} reports.
     *
     * @param enabled           {@code node.discovery.lan.enabled}
     * @param running           whether mDNS runs (enabled, a UDP port to announce, an interface it could use)
     * @param problem           why it does not run although enabled, or null
     * @param serviceType       the service type announced and browsed
     * @param instanceName      our instance name
     * @param scope             our scope, empty for none
     * @param port              the UDP port announced, 0 when not running
     * @param interfaces        interface addresses mDNS runs on
     * @param announcementsSeen resolved announcements seen (ours included)
     * @param refused           announcements refused (no npub, another scope, port 0)
     * @param dropped           finds dropped on a full queue
     * @param dialsStarted      handshakes started to LAN peers
     * @param peers             the peers seen
     */
    record State(boolean enabled, boolean running, String problem, String serviceType, String instanceName,
            String scope, int port, int interfaces, long announcementsSeen, long refused, long dropped,
            long dialsStarted, List<LanPeers.Peer> peers) {
        /** Freezes the list. */
        State {
            peers = List.copyOf(peers);
        }
    }

    private final String npub;
    private final List<Transport> transports;
    private final Dialer dialer;
    private final NodeOptions.LanAddresses addresses;
    private final long baseNanos;
    private final long maxNanos;
    private volatile Settings settings = new Settings(false, "", "");
    private volatile LanDiscovery discovery;
    private volatile String problem;
    private volatile State state;
    private volatile boolean closed;
    // Control thread only.
    private LanPeers peers;
    /** The discovery whose finds {@link #peers} holds (null: none). */
    private LanDiscovery peersOf;

    /**
     * @param npub       our npub
     * @param transports the node's transports, by id
     * @param dialer     the link layer's connect
     * @param addresses  where mDNS runs
     * @param baseNanos  first redial backoff ({@code node.retry.base_interval_secs})
     * @param maxNanos   its cap ({@code node.retry.max_backoff_secs})
     */
    LanService(final String npub, final List<Transport> transports, final Dialer dialer,
            final NodeOptions.LanAddresses addresses, final long baseNanos, final long maxNanos) {
        this.npub = Objects.requireNonNull(npub, "npub");
        this.transports = List.copyOf(transports);
        this.dialer = Objects.requireNonNull(dialer, "dialer");
        this.addresses = Objects.requireNonNull(addresses, "addresses");
        this.baseNanos = baseNanos;
        this.maxNanos = Math.max(baseNanos, maxNanos);
        this.peers = new LanPeers(this.baseNanos, this.maxNanos);
        this.state = stateOf(settings, null, peers);
    }

    /**
     * Starts, restarts or stops LAN discovery to match a configuration; nothing happens when its effective settings
     * (enabled, service type, scope) are those running.
     *
     * @param cfg the configuration (at start, or the one a reload loaded)
     * @return what it did, in words (for the reload summary); empty when it was and stays off
     */
    synchronized String apply(final FipsConfig cfg) {
        if (closed) {
            return "LAN discovery stopped (node stopping)";
        }
        final Settings wanted = new Settings(cfg.lan().enabled(), cfg.lan().serviceType(),
                LanAdvert.scope(cfg.lan().scope().orElse(null), cfg.nostr().app()));
        if (wanted.equals(settings)) {
            return wanted.enabled() ? "LAN discovery unchanged" : "";
        }
        final boolean wasOn = settings.enabled();
        stopRunning();
        settings = wanted;
        if (wanted.enabled()) {
            startRunning(wanted);
        }
        state = stateOf(settings, discovery, null);
        if (!wanted.enabled()) {
            return "LAN discovery " + (wasOn ? "stopped" : "off");
        }
        return "LAN discovery " + (wasOn ? "restarted" : "started") + (discovery == null ? " but not running: "
                + problem : " (" + wanted.serviceType() + ", scope " + scopeText(wanted.scope()) + ")");
    }

    private void startRunning(final Settings s) {
        final int port = advertisedPort();
        if (port == 0) {
            problem = "no UDP transport with a bound port to announce";
            LOG.log(Level.WARNING, "LAN discovery enabled but not started: {0}", problem);
            return;
        }
        try {
            final List<InetAddress> where = addresses.list();
            final LanDiscovery d = LanDiscovery.start(s.serviceType(), npub, s.scope(), port, where);
            discovery = d;
            problem = null;
            LOG.log(Level.INFO, "LAN mDNS discovery enabled: {0} as {1}, UDP port {2}, scope {3}, {4} interface"
                    + " address(es)", s.serviceType(), d.instanceName(), Integer.toString(port), scopeText(s.scope()),
                    d.interfaces());
        } catch (final IOException | RuntimeException e) {
            problem = e.getMessage() == null ? e.toString() : e.getMessage();
            LOG.log(Level.WARNING, "LAN discovery enabled but not started: {0}", problem);
        }
    }

    private void stopRunning() {
        final LanDiscovery d = discovery;
        discovery = null;
        problem = null;
        if (d != null) {
            d.close();
            LOG.log(Level.DEBUG, "LAN mDNS discovery stopped");
        }
    }

    /**
     * @return the port of the lowest-id UDP transport with a bound port that is not a NAT traversal adoption slot
     *         (discovery-gateway.md §3.1: the reference skips its adopted transports too), else 0
     */
    private int advertisedPort() {
        for (final Transport t : transports) {
            if (!TransportTypes.UDP.equals(t.typeName()) || t.bootstrapOnly() || t.localAddr() == null
                    || t.state() == Transport.State.FAILED || t.state() == Transport.State.DOWN) {
                continue;
            }
            try {
                final int port = UdpAddresses.parse(t.localAddr().text()).getPort();
                if (port != 0) {
                    return port;
                }
            } catch (final UdpTransportException e) {
                LOG.log(Level.DEBUG, "LAN discovery: UDP transport {0}: {1}", t.instanceName(), e.getMessage());
            }
        }
        return 0;
    }

    /**
     * One control-loop tick: takes what mDNS found and withdrew, then dials the peers that are due (at most
     * {@value MediumDiscovery#DIALS_PER_TICK}).
     *
     * @param now the node clock's nanoseconds
     */
    void tick(final long now) {
        final LanDiscovery d = discovery;
        if (d != peersOf) {
            // Started, restarted (another scope or service) or stopped: what an earlier run found does not count.
            peers = new LanPeers(baseNanos, maxNanos);
            peersOf = d;
        }
        if (d != null) {
            for (final LanDiscovery.Found f : d.drain(LanDiscovery.QUEUE)) {
                if (NodeSettings.transportFor(f.address(), transports) < 0) {
                    // discovery-gateway.md §3.2: no UDP transport of this address family (an IPv4 socket cannot
                    // send to IPv6); the address is not kept, so it never takes a dial from a reachable one.
                    LOG.log(Level.DEBUG, "LAN discovery: no UDP transport reaches {0}; skipped for {1}",
                            TransportAddr.inetText(f.address()), f.npub());
                    continue;
                }
                if (peers.seen(f.npub(), f.scope(), f.address(), now)) {
                    LOG.log(Level.INFO, "LAN discovery: found {0} at {1}", f.npub(),
                            TransportAddr.inetText(f.address()));
                }
            }
            for (final String instance : d.drainGone(LanDiscovery.QUEUE)) {
                for (final String gone : peers.gone(instance)) {
                    LOG.log(Level.DEBUG, "LAN discovery: {0} withdrew its announcement", gone);
                }
            }
            int dials = 0;
            for (final LanPeers.Peer p : peers.due(now)) {
                if (dials++ >= MediumDiscovery.DIALS_PER_TICK) {
                    break;
                }
                dial(p, now);
            }
        }
        state = stateOf(settings, d, peers);
    }

    private void dial(final LanPeers.Peer p, final long now) {
        final PeerIdentity peer;
        try {
            peer = PeerIdentity.fromNpub(p.npub());
        } catch (final IdentityFormatException e) {
            peers.dialled(p.npub(), LanPeers.Outcome.REFUSED, now);
            LOG.log(Level.DEBUG, "LAN discovery: {0} is not a valid npub; not dialled", p.npub());
            return;
        }
        final int tid = NodeSettings.transportFor(p.address(), transports);
        if (tid < 0) {
            peers.dialled(p.npub(), LanPeers.Outcome.REFUSED, now);
            LOG.log(Level.DEBUG, "LAN discovery: no UDP transport reaches {0}; {1} not dialled",
                    TransportAddr.inetText(p.address()), peer.shortNpub());
            return;
        }
        final LinkConductor.ConnectResult r = dialer.connect(peer, tid, TransportAddr.ofInet(p.address()));
        final LanPeers.Outcome outcome = switch (r) {
            case STARTED -> LanPeers.Outcome.STARTED;
            case ALREADY_CONNECTED -> LanPeers.Outcome.LINKED;
            case IN_PROGRESS -> LanPeers.Outcome.IN_PROGRESS;
            case DENIED, LIMIT, SELF -> LanPeers.Outcome.REFUSED;
        };
        if (peers.dialled(p.npub(), outcome, now)) {
            LOG.log(Level.INFO, "LAN discovery: {0} at {1} is linked", p.npub(), TransportAddr.inetText(p.address()));
        } else if (outcome != LanPeers.Outcome.LINKED) {
            LOG.log(Level.DEBUG, "LAN discovery: dial {0} at {1}: {2}", peer.shortNpub(),
                    TransportAddr.inetText(p.address()), r);
        }
    }

    private State stateOf(final Settings s, final LanDiscovery d, final LanPeers table) {
        final boolean on = s.enabled() && !closed;
        return new State(on, d != null, on && d == null ? problem : null,
                s.enabled() ? s.serviceType() : null, LanAdvert.instanceName(npub), s.enabled() ? s.scope() : null,
                d == null ? 0 : d.port(), d == null ? 0 : d.interfaces(), d == null ? 0 : d.announcementsSeen(),
                d == null ? 0 : d.refused(), d == null ? 0 : d.dropped(),
                table == null ? 0 : table.dialsStarted(), table == null ? List.of() : table.snapshot());
    }

    /**
     * Renders a state for {@code show_lan} (an extension, ADR 0042): what runs, the counters and one object per peer
     * seen, with ages in milliseconds before {@code now}.
     *
     * @param s   the state
     * @param now the node clock's nanoseconds
     * @return the response's {@code data}
     */
    static ObjectNode json(final State s, final long now) {
        final ObjectNode o = ControlJson.MAPPER.createObjectNode();
        o.put("enabled", s.enabled());
        o.put("running", s.running());
        o.put("problem", s.problem());
        o.put("service_type", s.serviceType());
        o.put("instance_name", s.instanceName());
        o.put("scope", s.scope());
        if (s.running()) {
            o.put("port", s.port());
        } else {
            o.putNull("port");
        }
        o.put("interfaces", s.interfaces());
        o.put("announcements_seen", s.announcementsSeen());
        o.put("announcements_refused", s.refused());
        o.put("queue_dropped", s.dropped());
        o.put("dials_started", s.dialsStarted());
        final ArrayNode peers = o.putArray("peers");
        for (final LanPeers.Peer p : s.peers()) {
            final ObjectNode po = peers.addObject();
            po.put("npub", p.npub());
            po.put("address", TransportAddr.inetText(p.address()));
            final ArrayNode all = po.putArray("addresses");
            for (final InetSocketAddress a : p.addresses()) {
                all.add(TransportAddr.inetText(a));
            }
            po.put("scope", p.scope());
            po.put("present", p.present());
            po.put("first_seen_ms_ago", Math.max(0, (now - p.firstSeen()) / 1_000_000L));
            po.put("last_seen_ms_ago", Math.max(0, (now - p.lastSeen()) / 1_000_000L));
            po.put("dials", p.dials());
            po.put("last_dial", p.lastOutcome() == null ? null : p.lastOutcome().name().toLowerCase(Locale.ROOT));
        }
        return o;
    }

    /** @return the latest published state */
    State state() {
        return state;
    }

    /** Stops LAN discovery (goodbye records, JmDNS's threads end). Idempotent. */
    @Override
    public synchronized void close() {
        closed = true;
        stopRunning();
        state = stateOf(settings, null, null);
    }

    private static String scopeText(final String scope) {
        return scope.isEmpty() ? "(none)" : scope;
    }
}
