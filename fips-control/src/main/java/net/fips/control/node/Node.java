package net.fips.control.node;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;

import net.fips.control.acl.AclWatcher;
import net.fips.control.config.LoadedConfig;
import net.fips.control.config.NodeConfig;
import net.fips.control.ctl.ControlApi;
import net.fips.control.ctl.ControlSocketServer;
import net.fips.control.ctl.NodeState;
import net.fips.control.dns.DnsServer;
import net.fips.control.identity.KeyFiles;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.link.LinkConductor;
import net.fips.control.link.LinkSnapshot;
import net.fips.control.mesh.MeshSnapshot;
import net.fips.control.nat.NatAdopter;
import net.fips.control.metrics.StatsSampler;
import net.fips.dataplane.crypto.AeadCiphers;
import net.fips.dataplane.engine.DataPlane;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.tun.TunDevice;
import net.fips.dataplane.udp.UdpAddresses;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportException;
import net.fips.dataplane.wire.NodeAddr;

/**
 * A running FIPS node built from one {@link LoadedConfig} by {@link NodeAssembly}: its identity ({@code
 * node.identity}, through {@link KeyFiles}), a fresh 8-byte startup epoch, the transports (one
 * {@link TransportFactory} per type), the {@link DataPlane} (AEAD from {@link AeadCiphers}), the
 * {@link LinkConductor} with the configured peers, the peer ACL ({@link AclWatcher}) and, when
 * {@code node.control.enabled}, the control socket. The node keeps that state, answers for it, reloads what can
 * change while running ({@link #reload}) and stops ({@link #close()}).
 *
 * <p>Threads: the data plane's own agents, one platform thread {@code fips-control} that owns the link layer
 * ({@link ControlLoop}), and the control socket's accept thread and per-client virtual threads, which only read
 * published snapshots and queue requests ({@link NodeControlApi}).
 *
 * <p>{@link #close()} sends Disconnect(Shutdown) to every peer, lets the data plane put it on the wire, stops every
 * thread, closes the sockets and removes the control socket file.
 */
public final class Node implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Node.class.getName());
    /** Bytes of the startup epoch (crypto-link §2.6). */
    public static final int EPOCH_BYTES = 8;

    private final LoadedConfig loaded;
    private final NodeOptions options;
    private final KeyFiles.Resolved resolved;
    private final byte[] epoch;
    private final NodeTransports opened;
    private final List<Transport> transports;
    private final DataPlane dataPlane;
    private final LinkConductor conductor;
    private final AclWatcher acl;
    private final ControlLoop loop;
    private final TunDevice tun;
    private final NodeControlApi api;
    private final Map<String, String> aliases;
    private final long startedNanos;
    private final long startedWallMs;
    private volatile NodeState state = NodeState.STARTING;
    private ControlSocketServer server;
    private DnsServer dns;
    private PrometheusExporter metrics;
    private InetSocketAddress metricsAddress;
    private NostrDiscovery nostr;
    private LanService lan;
    private boolean closed;

    Node(final LoadedConfig loaded, final NodeOptions options, final KeyFiles.Resolved resolved, final byte[] epoch,
         final NodeTransports opened, final DataPlane dataPlane, final LinkConductor conductor, final AclWatcher acl,
         final ControlLoop loop, final TunDevice tun, final Map<String, String> aliases, final long startedNanos) {
        this.loaded = loaded;
        this.options = options;
        this.resolved = resolved;
        this.epoch = epoch;
        this.opened = opened;
        this.transports = opened.all();
        this.dataPlane = dataPlane;
        this.conductor = conductor;
        this.acl = acl;
        this.loop = loop;
        this.tun = tun;
        this.aliases = Collections.unmodifiableMap(aliases);
        this.startedNanos = startedNanos;
        this.startedWallMs = System.currentTimeMillis();
        this.api = new NodeControlApi(this);
    }

    /**
     * Builds and starts a node with the daemon's defaults.
     *
     * @param loaded the configuration
     * @return the running node
     * @throws NodeStartException naming what failed
     */
    public static Node start(final LoadedConfig loaded) throws NodeStartException {
        return start(loaded, NodeOptions.defaults());
    }

    /**
     * Builds and starts a node ({@link NodeAssembly}).
     *
     * @param loaded  the configuration; its warnings are logged here
     * @param options hooks and overrides
     * @return the running node
     * @throws NodeStartException naming what failed; everything opened so far is closed again
     */
    public static Node start(final LoadedConfig loaded, final NodeOptions options) throws NodeStartException {
        return NodeAssembly.start(loaded, options);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Start-up, called by NodeAssembly on the starting thread before the node is returned

    /** The .fips DNS responder started (null when it could not). */
    void dns(final DnsServer server) {
        this.dns = server;
    }

    /** Nostr discovery started (null when {@code node.discovery.nostr.enabled} is false). */
    void nostr(final NostrDiscovery discovery) {
        this.nostr = discovery;
    }

    /** @return Nostr discovery, or null when it is off */
    NostrDiscovery nostr() {
        return nostr;
    }

    /** LAN discovery, started by the assembly after the control loop (it runs when enabled). */
    void lan(final LanService service) {
        this.lan = service;
    }

    /** @return LAN discovery's latest state ({@code show_lan}) */
    LanService.State lanState() {
        return lan == null ? null : lan.state();
    }

    /** The control socket started. */
    void controlSocket(final ControlSocketServer socket) {
        this.server = socket;
    }

    /** The metrics endpoint started, listening at {@code at}. */
    void metrics(final PrometheusExporter exporter, final InetSocketAddress at) {
        this.metrics = exporter;
        this.metricsAddress = at;
    }

    /** Everything started: the node is running. */
    void running() {
        state = NodeState.RUNNING;
        logStarted();
    }

    /** @return transport {@code id}'s extra {@code show_transports} object (Tor's monitoring), or null */
    JsonNode transportMonitoring(final int id) {
        return opened.monitoring(id);
    }

    /** @return where the Prometheus endpoint listens ({@code node.metrics.bind}), or empty when it is off */
    public Optional<InetSocketAddress> metricsAddress() {
        return Optional.ofNullable(metricsAddress);
    }

    private void logStarted() {
        final NodeIdentity id = resolved.identity();
        LOG.log(Level.INFO, "identity: {0} ({1})", id.npub(), describeSource());
        LOG.log(Level.INFO, "node_addr: {0}, address: {1}", id.nodeAddr(), id.address());
        for (int i = 0; i < transports.size(); i++) {
            final Transport t = transports.get(i);
            final String gro = t instanceof UdpTransport u
                    ? u.groActive() ? ", UDP GRO on" : ", UDP GRO off (" + u.groProblem() + ")" : "";
            LOG.log(Level.INFO, "transport {0} ({1}): {2} listening on {3}, mtu {4}{5}", String.valueOf(i),
                    t.instanceName() == null ? t.typeName() : t.instanceName(), t.typeName(),
                    t.localAddr() == null ? "-" : t.localAddr().toString(), String.valueOf(t.mtu()), gro);
        }
        LOG.log(Level.INFO, "control socket: {0}", server == null ? "disabled" : server.path());
        LOG.log(Level.INFO, "TUN: {0}", tun == null ? "disabled (pure router)" : tun.toString());
        if (metrics != null) {
            LOG.log(Level.INFO, "metrics endpoint: http://{0}/metrics",
                    UdpAddresses.format(metricsAddress().orElseThrow()));
        }
    }

    private String describeSource() {
        return switch (resolved.source()) {
            case CONFIG -> "from node.identity.nsec";
            case KEY_FILE -> "loaded from " + resolved.keyFile();
            case GENERATED -> "generated and saved to " + resolved.keyFile();
            case EPHEMERAL -> "ephemeral, new every start";
        };
    }

    // ---------------------------------------------------------------------------------------------------------
    // Observation

    /** @return this node's identity */
    public NodeIdentity identity() {
        return resolved.identity();
    }

    /** @return where the identity came from */
    public KeyFiles.Source identitySource() {
        return resolved.source();
    }

    /** @return a copy of this process's startup epoch */
    public byte[] startupEpoch() {
        return epoch.clone();
    }

    /** @return the lifecycle state */
    public NodeState state() {
        return state;
    }

    /**
     * @return the bound address of each transport, by transport id (null for a transport without an IP socket
     *         address, e.g. a TCP transport without a listener)
     */
    public List<InetSocketAddress> transportAddresses() {
        final List<InetSocketAddress> out = new ArrayList<>();
        for (final Transport t : transports) {
            if (t.drive() == Transport.Drive.DATA_PLANE_AGENTS) {
                out.add(UdpTransport.agentDriven(t).localAddress());
            } else {
                InetSocketAddress a = null;
                if (t.localAddr() != null && t.localAddr().text() != null) {
                    try {
                        a = UdpAddresses.parse(t.localAddr().text());
                    } catch (final UdpTransportException e) {
                        a = null;
                    }
                }
                out.add(a);
            }
        }
        return out;
    }

    /**
     * @return where NAT traversal hands a punched socket (discovery-gateway.md §2.6); empty unless
     *         {@code node.discovery.nostr} is enabled
     */
    public Optional<NatAdopter> natAdopter() {
        return opened.natAdopter();
    }

    /** @return the TUN device's name, or empty when the node runs without one */
    public Optional<String> tunName() {
        return Optional.ofNullable(tun).map(TunDevice::name);
    }

    /** @return the .fips DNS responder's address, or empty when none runs */
    public Optional<InetSocketAddress> dnsAddress() {
        return Optional.ofNullable(dns).map(DnsServer::localAddress);
    }

    /** @return the control socket path, or empty when the socket is disabled */
    public Optional<Path> controlSocketPath() {
        return Optional.ofNullable(server).map(ControlSocketServer::path);
    }

    /** @return the routing layers' latest published picture (any thread), at most one tick old */
    public MeshSnapshot meshSnapshot() {
        return loop.meshSnapshot();
    }

    /**
     * Asks the control thread to look {@code target} up (discovery, routing-session §3), as the session layer will
     * when a packet has no route; the key must be known first ({@link #learnIdentity}).
     *
     * @return false when the control thread's queue is full
     */
    boolean lookup(final NodeAddr target) {
        return loop.submit(() -> loop.mesh().lookup(target, options.nanoClock().getAsLong()));
    }

    /**
     * Teaches the identity cache a node's key, as a DNS answer or the hosts file will.
     *
     * @return false when the control thread's queue is full
     */
    boolean learnIdentity(final PeerIdentity peer) {
        if (peer == null) {
            return false;
        }
        return loop.submit(() -> loop.mesh().learnIdentity(peer, options.nanoClock().getAsLong()));
    }

    /**
     * @return the stats history's sampler: {@code stats().history()} answers {@code show_stats_*}, and
     *         {@code stats().activeSessions(source)} feeds {@code active_sessions} (the source runs on the control
     *         thread once per second)
     */
    public StatsSampler stats() {
        return loop.stats();
    }

    /** @return the link layer's latest published picture (any thread) */
    public LinkSnapshot linkSnapshot() {
        return conductor.snapshot();
    }

    /** @return the data plane, for sending datagrams ({@link DataPlane#sendDatagram}) and reading counters */
    public DataPlane dataPlane() {
        return dataPlane;
    }

    /** @return the control API the socket serves (also usable in process) */
    public ControlApi controlApi() {
        return api;
    }

    /** @return the configuration the node runs with */
    public LoadedConfig config() {
        return loaded;
    }

    /** @return the peer ACL */
    public AclWatcher acl() {
        return acl;
    }

    LinkConductor conductor() {
        return conductor;
    }

    /** @return every transport, by transport id */
    List<Transport> transports() {
        return transports;
    }

    ControlLoop loop() {
        return loop;
    }

    NodeOptions options() {
        return options;
    }

    Map<String, String> displayNames() {
        return aliases;
    }

    long uptimeNanos() {
        return options.nanoClock().getAsLong() - startedNanos;
    }

    long startedWallMs() {
        return startedWallMs;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Reload (SIGHUP)

    /**
     * What {@link #reload} did.
     *
     * @param reloaded      what was re-read or re-applied, in words
     * @param restartNeeded config paths whose new value only a restart applies
     */
    public record Reload(List<String> reloaded, List<String> restartNeeded) {
        /** Freezes the lists. */
        public Reload {
            reloaded = List.copyOf(reloaded);
            restartNeeded = List.copyOf(restartNeeded);
        }

        /** @return the one log line: what was reloaded and what needs a restart */
        public String summary() {
            return "reloaded: " + String.join("; ", reloaded) + (restartNeeded.isEmpty()
                    ? "; no changed setting needs a restart"
                    : "; changed settings that need a restart: " + String.join(", ", restartNeeded));
        }
    }

    /**
     * Applies what can change while running: re-reads the peer ACL files and the hosts file now (on the control
     * thread, as its 2 s poll would), hands the fresh effective log level to {@code applyLogLevel} (logging belongs
     * to the program embedding the node), restarts LAN discovery when its settings changed ({@link LanService#apply},
     * ADR 0042), and compares the rest of {@code fresh} with the running configuration to
     * name the settings that need a restart. Logs the summary as one INFO line (the new config's warnings and the
     * new ACL files' problems at WARN, as at start). The running configuration ({@link #config()}) stays the one
     * the node started with, so a setting keeps being reported until a restart applies it.
     *
     * @param fresh         the configuration just loaded (the daemon loads it the way it did at start)
     * @param applyLogLevel sets the log level and returns how to describe it in the summary, e.g.
     *                      {@code "log level info -> debug"}
     * @return what was reloaded
     */
    public Reload reload(final LoadedConfig fresh,
                         final Function<NodeConfig.LogLevel, String> applyLogLevel) {
        final CompletableFuture<AclWatcher.PollResult> poll = new CompletableFuture<>();
        AclWatcher.PollResult acl = null;
        if (loop.submit(() -> poll.complete(this.acl.pollForChanges()))) {
            try {
                acl = poll.get(5, TimeUnit.SECONDS);
            } catch (final TimeoutException | ExecutionException e) {
                acl = null;
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        final List<String> reloaded = new ArrayList<>();
        if (acl == null) {
            reloaded.add("peer ACL and hosts files not re-read (the control thread is busy; its 2 s poll will)");
        } else {
            reloaded.add(switch (acl.outcome()) {
                case UNCHANGED -> "peer ACL and hosts files checked (no change since the last read)";
                case RELOADED -> "peer ACL and hosts files re-read (" + this.acl.current().effectiveMode() + ")";
                case REJECTED -> "peer ACL change rejected (malformed file; the previous ACL stays in force)";
            });
            ControlLoop.logProblems(acl.problems());
        }
        reloaded.add(applyLogLevel.apply(fresh.effectiveLogLevel()));
        final String lanApplied = lan == null ? "" : lan.apply(fresh.config());
        if (!lanApplied.isEmpty()) {
            reloaded.add(lanApplied);
        }
        final String advertiseApplied = nostr == null ? "" : nostr.applyAdvertise(fresh.config().nostr().advertise());
        if (!advertiseApplied.isEmpty()) {
            reloaded.add(advertiseApplied);
        }
        for (final String w : fresh.warnings()) {
            LOG.log(Level.WARNING, "config: {0}", w);
        }
        final Reload r = new Reload(reloaded, ConfigDiff.restartNeeded(loaded.config(), fresh.config()));
        LOG.log(Level.INFO, r.summary());
        return r;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Shutdown

    /**
     * Stops the node: closes the control socket (removing its file), sends Disconnect(Shutdown) to every peer and
     * waits briefly for it to leave, stops the control thread and closes the data plane and transports.
     * Idempotent.
     */
    @Override
    public void close() {
        stop(true);
    }

    /** Stops without telling peers, as a crash would (tests of restart detection). */
    void closeSilently() {
        stop(false);
    }

    private void stop(final boolean sayGoodbye) {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        state = NodeState.STOPPING;
        if (server != null) {
            server.close();
        }
        if (dns != null) {
            dns.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        if (lan != null) {
            lan.close();
        }
        loop.stop(sayGoodbye);
        if (nostr != null) {
            nostr.close();
        }
        opened.close();
        dataPlane.close();
        if (tun != null) {
            tun.close();
        }
        state = NodeState.STOPPED;
        LOG.log(Level.INFO, "node stopped");
        if (loop.loopErrors() > 0) {
            LOG.log(Level.WARNING, "the control loop caught {0} unexpected error(s) while running", loop.loopErrors());
        }
    }
}
