package net.fips.control.node;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.LongSupplier;

import net.fips.control.acl.AclWatcher;
import net.fips.control.acl.HostAliases;
import net.fips.control.config.FipsConfig;
import net.fips.control.config.LoadedConfig;
import net.fips.control.config.NodeConfig;
import net.fips.control.config.PeerConfig;
import net.fips.control.config.UdpConfig;
import net.fips.control.ctl.ControlApi;
import net.fips.control.ctl.ControlSocketServer;
import net.fips.control.ctl.NodeState;
import net.fips.control.identity.IdentityCache;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.KeyFileException;
import net.fips.control.identity.KeyFiles;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.link.LinkConductor;
import net.fips.control.link.LinkConfig;
import net.fips.control.link.LinkSnapshot;
import net.fips.control.link.PeerFilter;
import net.fips.control.mesh.MeshControl;
import net.fips.control.mesh.MeshSettings;
import net.fips.control.mesh.MeshSnapshot;
import net.fips.control.tree.SchnorrTreeCrypto;
import net.fips.dataplane.crypto.AeadCiphers;
import net.fips.dataplane.engine.DataPlane;
import net.fips.dataplane.engine.DataPlaneContext;
import net.fips.dataplane.engine.ThreadingMode;
import net.fips.dataplane.udp.UdpAddresses;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportConfig;
import net.fips.dataplane.wire.NodeAddr;

/**
 * A running FIPS node built from one {@link LoadedConfig}: its identity ({@code node.identity}, through
 * {@link KeyFiles}), a fresh 8-byte startup epoch, one {@link UdpTransport} per {@code transports.udp} instance,
 * the {@link DataPlane} (AEAD from {@link AeadCiphers}), the {@link LinkConductor} with the configured peers,
 * the peer ACL ({@link AclWatcher}) and, when {@code node.control.enabled}, the control socket.
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
    private final List<UdpTransport> transports;
    private final List<UdpConfig> transportConfigs;
    private final DataPlane dataPlane;
    private final LinkConductor conductor;
    private final AclWatcher acl;
    private final ControlLoop loop;
    private final NodeControlApi api;
    private final Map<String, String> aliases;
    private final long startedNanos;
    private final long startedWallMs;
    private volatile NodeState state = NodeState.STARTING;
    private ControlSocketServer server;
    private boolean closed;

    private Node(final LoadedConfig loaded, final NodeOptions options, final KeyFiles.Resolved resolved,
                 final byte[] epoch, final List<UdpTransport> transports, final DataPlane dataPlane,
                 final LinkConductor conductor, final AclWatcher acl, final ControlLoop loop,
                 final Map<String, String> aliases, final long startedNanos) {
        this.loaded = loaded;
        this.options = options;
        this.resolved = resolved;
        this.epoch = epoch;
        this.transports = List.copyOf(transports);
        this.transportConfigs = loaded.config().udp();
        this.dataPlane = dataPlane;
        this.conductor = conductor;
        this.acl = acl;
        this.loop = loop;
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
     * Builds and starts a node.
     *
     * @param loaded  the configuration; its warnings are logged here
     * @param options hooks and overrides
     * @return the running node
     * @throws NodeStartException naming what failed; everything opened so far is closed again
     */
    public static Node start(final LoadedConfig loaded, final NodeOptions options) throws NodeStartException {
        final FipsConfig cfg = loaded.config();
        final NodeConfig nc = cfg.node();
        for (final String w : loaded.warnings()) {
            LOG.log(Level.WARNING, "config: {0}", w);
        }
        // One node per config: a live control socket or a bound UDP address refuses the start before anything is
        // written (key files) or sent.
        if (nc.control().enabled()) {
            try {
                ControlSocketServer.requireNotInUse(Path.of(nc.control().socketPath()));
            } catch (final IOException e) {
                throw new NodeStartException(e.getMessage(), false, e);
            }
        }
        final List<UdpTransport> transports = openTransports(cfg.udp());
        DataPlane dataPlane = null;
        ControlLoop loop = null;
        Node node = null;
        try {
            final KeyFiles.Resolved resolved = resolveIdentity(loaded, options);
            final NodeIdentity identity = resolved.identity();
            final byte[] epoch = new byte[EPOCH_BYTES];
            new SecureRandom().nextBytes(epoch);

            final LongSupplier clock = options.nanoClock();
            int maxMtu = DataPlaneContext.MAX_MTU_BYTES_DEFAULT;
            for (final UdpTransport t : transports) {
                maxMtu = Math.max(maxMtu, t.mtu());
            }
            final LoopHolder holder = new LoopHolder();
            final int workers = loaded.environment().encryptWorkers().orElse(DataPlaneContext.WORKER_COUNT_DEFAULT);
            final DataPlaneContext ctx = new DataPlaneContext()
                    .maxMtuBytes(maxMtu)
                    .poolSlots(NodeSettings.poolSlots(nc, transports.size(), workers))
                    .workerCount(workers)
                    .cipherSupplier(AeadCiphers::create)
                    .localDelivery(options.localDelivery())
                    .nanoClock(clock)
                    .threadingMode(options.threadingMode())
                    .eventSignal(holder::wakeup);
            try {
                ctx.conclude();
            } catch (final IllegalArgumentException e) {
                throw new NodeStartException("data plane settings: " + e.getMessage(), true, e);
            }
            LOG.log(Level.DEBUG, "AEAD backend: {0}", AeadCiphers.defaultBackend());
            dataPlane = new DataPlane(ctx);
            for (final UdpTransport t : transports) {
                dataPlane.addTransport(t);
            }
            dataPlane.start();

            final Map<String, String> aliases = new LinkedHashMap<>();
            for (final PeerConfig p : cfg.peers()) {
                p.alias().ifPresent(a -> aliases.put(a, p.npub()));
            }
            final Path aclDir = options.aclDirectory();
            final AclWatcher acl = new AclWatcher(aclDir.resolve("peers.allow"), aclDir.resolve("peers.deny"),
                    aclDir.resolve("hosts"), HostAliases.of(aliases));
            ControlLoop.logProblems(acl.initialProblems());
            final PeerFilter filter = (peer, context) -> acl.decide(peer).allowed();

            final LinkConfig linkConfig = options.linkConfigTuner().apply(NodeSettings.linkConfig(nc));
            final Random random = options.randomOrSecure();
            final long now = clock.getAsLong();
            final LinkConductor conductor = new LinkConductor(identity, epoch, dataPlane, dataPlane::linkStats,
                    random, linkConfig, filter, now);
            final List<UdpTransport> mtus = List.copyOf(transports);
            final MeshControl mesh = new MeshControl(identity, MeshSettings.from(nc), conductor::send,
                    dataPlane::setForwardingTable, random, System::currentTimeMillis, SchnorrTreeCrypto.verifier(),
                    id -> id >= 0 && id < mtus.size() ? mtus.get(id).mtu() : DataPlaneContext.MAX_MTU_BYTES_DEFAULT,
                    now);
            conductor.setLinkListener(mesh);
            addConfiguredPeers(cfg.peers(), conductor, transports, cfg.udp());

            final Map<String, String> displayNames = new LinkedHashMap<>();
            aliases.forEach((alias, npub) -> displayNames.put(npub, alias));
            loop = new ControlLoop(conductor, mesh, dataPlane, transports, acl, clock,
                    options.threadingMode() == ThreadingMode.SHARED, linkConfig.tickNanos(),
                    addr -> displayName(mesh, displayNames, addr, clock.getAsLong()));
            holder.loop = loop;
            node = new Node(loaded, options, resolved, epoch, transports, dataPlane, conductor, acl, loop,
                    displayNames, now);
            loop.start();
            if (nc.control().enabled()) {
                node.startControlSocket(Path.of(nc.control().socketPath()));
            }
            node.state = NodeState.RUNNING;
            node.logStarted();
            return node;
        } catch (final NodeStartException | RuntimeException e) {
            if (node != null) {
                node.close();
            } else {
                if (loop != null) {
                    loop.stop(false);
                }
                if (dataPlane != null) {
                    dataPlane.close();
                } else {
                    transports.forEach(UdpTransport::close);
                }
            }
            throw e;
        }
    }

    /** The reference's display name of a node: its config alias, else a short npub when its key is known, else
     * the short hex of its address. Control thread (reads the mesh's identity cache). */
    private static String displayName(final MeshControl mesh, final Map<String, String> aliases, final NodeAddr addr,
                                      final long now) {
        if (addr.equals(mesh.nodeAddr())) {
            final String alias = aliases.get(mesh.npub());
            return alias != null ? alias : addr.shortHex();
        }
        final IdentityCache.Entry e = mesh.identityCache().lookup(addr, now);
        if (e == null) {
            return addr.shortHex();
        }
        final String alias = aliases.get(e.identity().npub());
        return alias != null ? alias : e.identity().shortNpub();
    }

    /** Lets the data plane's event signal reach a control loop that is created after the data plane. */
    private static final class LoopHolder {
        volatile ControlLoop loop;

        void wakeup() {
            final ControlLoop l = loop;
            if (l != null) {
                l.wakeup();
            }
        }
    }

    private static KeyFiles.Resolved resolveIdentity(final LoadedConfig loaded, final NodeOptions options)
            throws NodeStartException {
        final NodeConfig.Identity id = loaded.config().node().identity();
        final Path dir = options.keyDirectory() != null ? options.keyDirectory()
                : KeyFiles.directoryFor(loaded.files());
        try {
            final KeyFiles.Resolved r = KeyFiles.resolve(id.nsec().orElse(null), id.persistent(), dir);
            for (final KeyFileException f : r.writeFailures()) {
                LOG.log(id.persistent() ? Level.WARNING : Level.INFO, "identity: {0}", f.getMessage());
            }
            return r;
        } catch (final IdentityFormatException e) {
            throw new NodeStartException("node.identity.nsec: " + e.getMessage(), true, e);
        } catch (final KeyFileException e) {
            throw new NodeStartException("identity key file: " + e.getMessage(), true, e);
        }
    }

    private static List<UdpTransport> openTransports(final List<UdpConfig> configs) throws NodeStartException {
        final List<UdpTransport> out = new ArrayList<>();
        for (final UdpConfig u : configs) {
            final String where = "transports.udp" + u.name().map(n -> "." + n).orElse("") + " ("
                    + u.effectiveBindAddr() + ")";
            try {
                // No SO_REUSEPORT: a second daemon on the same address must fail here, not share the port and
                // steal the running node's packets.
                out.add(UdpTransport.open(new UdpTransportConfig().bindAddress(u.effectiveBindAddr()).reusePort(false)
                        .mtuBytes(u.mtu()).receiveBufferBytes(u.recvBufSize()).sendBufferBytes(u.sendBufSize())));
            } catch (final IOException | RuntimeException e) {
                out.forEach(UdpTransport::close);
                if (e instanceof IOException io && UdpTransport.isAddressInUse(io)) {
                    throw new NodeStartException("UDP address " + u.effectiveBindAddr() + " of transports.udp"
                            + u.name().map(n -> "." + n).orElse("") + " is already in use (one node per config:"
                            + " another fips daemon or program is bound to it)", false, e);
                }
                throw new NodeStartException("cannot open UDP transport " + where + ": " + e.getMessage(), false, e);
            }
        }
        return out;
    }

    private static void addConfiguredPeers(final List<PeerConfig> peers, final LinkConductor conductor,
                                           final List<UdpTransport> transports, final List<UdpConfig> configs) {
        for (final PeerConfig p : peers) {
            final String name = p.alias().orElse(p.identity().shortNpub());
            if (!p.isAutoConnect()) {
                LOG.log(Level.DEBUG, "peer {0}: connect_policy is not auto_connect; not dialled", name);
                continue;
            }
            final List<String> problems = new ArrayList<>();
            final Optional<NodeSettings.Dial> dial = NodeSettings.pickDial(p, transports, configs, problems);
            for (final String problem : problems) {
                LOG.log(Level.WARNING, "peer {0}: {1}", name, problem);
            }
            if (dial.isEmpty()) {
                LOG.log(Level.WARNING, "peer {0}: no usable UDP address; not dialled", name);
                continue;
            }
            final LinkConductor.ConnectResult r = conductor.addConfiguredPeer(p.identity(), dial.get().transportId(),
                    dial.get().address(), p.autoReconnect());
            LOG.log(Level.INFO, "peer {0}: dialling {1} ({2})", name,
                    UdpAddresses.format(dial.get().address()), r);
        }
    }

    private void startControlSocket(final Path path) throws NodeStartException {
        try {
            server = ControlSocketServer.start(path, api);
        } catch (final IOException | RuntimeException e) {
            throw new NodeStartException("cannot open the control socket " + path + ": " + e.getMessage(), false, e);
        }
    }

    private void logStarted() {
        final NodeIdentity id = resolved.identity();
        LOG.log(Level.INFO, "identity: {0} ({1})", id.npub(), describeSource());
        LOG.log(Level.INFO, "node_addr: {0}, address: {1}", id.nodeAddr(), id.address());
        for (int i = 0; i < transports.size(); i++) {
            LOG.log(Level.INFO, "transport {0} ({1}): udp listening on {2}, mtu {3}", String.valueOf(i),
                    transportConfigs.get(i).displayName(), UdpAddresses.format(transports.get(i).localAddress()),
                    String.valueOf(transports.get(i).mtu()));
        }
        LOG.log(Level.INFO, "control socket: {0}", server == null ? "disabled" : server.path());
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

    /** @return the bound address of each transport, by transport id */
    public List<InetSocketAddress> transportAddresses() {
        return transports.stream().map(UdpTransport::localAddress).toList();
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
    boolean learnIdentity(final net.fips.control.identity.PeerIdentity peer) {
        return loop.submit(() -> loop.mesh().learnIdentity(peer, options.nanoClock().getAsLong()));
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

    List<UdpTransport> transports() {
        return transports;
    }

    List<UdpConfig> transportConfigs() {
        return transportConfigs;
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
     * to the program embedding the node), and compares the rest of {@code fresh} with the running configuration to
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
                         final java.util.function.Function<NodeConfig.LogLevel, String> applyLogLevel) {
        final java.util.concurrent.CompletableFuture<AclWatcher.PollResult> poll =
                new java.util.concurrent.CompletableFuture<>();
        AclWatcher.PollResult acl = null;
        if (loop.submit(() -> poll.complete(this.acl.pollForChanges()))) {
            try {
                acl = poll.get(5, java.util.concurrent.TimeUnit.SECONDS);
            } catch (final java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
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
        loop.stop(sayGoodbye);
        dataPlane.close();
        state = NodeState.STOPPED;
        LOG.log(Level.INFO, "node stopped");
        if (loop.loopErrors() > 0) {
            LOG.log(Level.WARNING, "the control loop caught {0} unexpected error(s) while running", loop.loopErrors());
        }
    }
}
