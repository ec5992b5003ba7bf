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
import net.fips.control.config.TcpConfig;
import net.fips.control.config.TorConfig;
import net.fips.control.tor.ControlAuth;
import net.fips.control.tor.OnionHostname;
import net.fips.control.tor.TorControlException;
import net.fips.control.tor.TorMonitorTask;
import net.fips.control.tor.TorMonitoring;
import net.fips.dataplane.tor.TorCounters;
import net.fips.dataplane.tor.TorTransport;
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
import net.fips.control.dns.ArrivalFilter;
import net.fips.control.dns.DnsResponder;
import net.fips.control.dns.DnsServer;
import net.fips.control.dns.FipsNameResolver;
import net.fips.control.dns.HostsFile;
import net.fips.control.session.SessionConfig;
import net.fips.control.session.SessionLayer;
import net.fips.control.tree.SchnorrTreeCrypto;
import net.fips.dataplane.tun.TunDevice;
import net.fips.dataplane.tun.TunException;
import net.fips.dataplane.crypto.AeadCiphers;
import net.fips.dataplane.engine.DataPlane;
import net.fips.dataplane.engine.DataPlaneContext;
import net.fips.dataplane.engine.ThreadingMode;
import net.fips.dataplane.udp.UdpAddresses;
import net.fips.dataplane.tcp.TcpTransport;
import net.fips.dataplane.tcp.TcpTransportConfig;
import net.fips.control.config.EthernetConfig;
import net.fips.control.ethernet.DiscoveredPeer;
import net.fips.control.ethernet.EthernetBeacons;
import net.fips.dataplane.ethernet.DiscoveredBeacon;
import net.fips.dataplane.ethernet.EthernetTransport;
import net.fips.dataplane.ethernet.EthernetTransportConfig;
import net.fips.dataplane.ethernet.EthernetTransportException;
import net.fips.dataplane.ethernet.MacAddress;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.udp.UdpTransport;
import net.fips.dataplane.udp.UdpTransportException;
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
    private final List<Transport> transports;
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
    private TunDevice tun;
    /** Tor control-port monitors by transport id (control_port mode, directory mode with control_addr). */
    private final Map<Integer, TorMonitorTask> torMonitors = new java.util.concurrent.ConcurrentHashMap<>();
    private DnsServer dns;
    private PrometheusExporter metrics;
    private InetSocketAddress metricsAddress;
    private boolean closed;
    private List<net.fips.control.ble.BleScanLoop> bleScans = List.of();

    private Node(final LoadedConfig loaded, final NodeOptions options, final KeyFiles.Resolved resolved,
                 final byte[] epoch, final List<Transport> transports, final DataPlane dataPlane,
                 final LinkConductor conductor, final AclWatcher acl, final ControlLoop loop,
                 final Map<String, String> aliases, final long startedNanos) {
        this.loaded = loaded;
        this.options = options;
        this.resolved = resolved;
        this.epoch = epoch;
        this.transports = List.copyOf(transports);
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
        final List<Transport> transports = openTransports(cfg);
        final List<BleReady> bleReady = checkBle(cfg.ble(), options);
        final List<net.fips.control.ble.BleScanLoop> bleScans = new ArrayList<>();
        final boolean sessionPath = !options.localDeliverySet();
        TunDevice tun = null;
        DataPlane dataPlane = null;
        ControlLoop loop = null;
        Node node = null;
        try {
            final KeyFiles.Resolved resolved = resolveIdentity(loaded, options);
            final NodeIdentity identity = resolved.identity();
            final byte[] epoch = new byte[EPOCH_BYTES];
            new SecureRandom().nextBytes(epoch);
            if (cfg.tun().enabled() && sessionPath) {
                tun = openTun(cfg.tun(), identity);
            }

            final LongSupplier clock = options.nanoClock();
            openBle(bleReady, identity, clock, transports, bleScans);
            int maxMtu = DataPlaneContext.MAX_MTU_BYTES_DEFAULT;
            for (final Transport t : transports) {
                maxMtu = Math.max(maxMtu, t.mtu());
            }
            if (tun != null) {
                maxMtu = Math.max(maxMtu, tun.mtu());
            }
            final LoopHolder holder = new LoopHolder();
            final int workers = loaded.environment().encryptWorkers()
                    .orElse(NodeSettings.defaultWorkers(Runtime.getRuntime().availableProcessors()));
            final ThreadingMode threading;
            final String threadingReason;
            if (options.threadingMode() != null) {
                threading = options.threadingMode();
                threadingReason = "set by the embedder";
            } else {
                final NodeSettings.Threading t = NodeSettings.threading(nc.dataplane().threading(),
                        loaded.environment().threading(), workers);
                threading = t.mode();
                threadingReason = t.reason();
            }
            final DataPlaneContext ctx = new DataPlaneContext()
                    .maxMtuBytes(maxMtu)
                    .poolSlots(NodeSettings.poolSlots(nc, transports.size(), workers))
                    .workerCount(workers)
                    .cipherSupplier(AeadCiphers::create)
                    .localDelivery(options.localDelivery())
                    .sessionPath(sessionPath)
                    .ipv6SinkSupplier(options.ipv6Sink())
                    .nanoClock(clock)
                    .threadingMode(threading)
                    .eventSignal(holder::wakeup);
            try {
                ctx.conclude();
            } catch (final IllegalArgumentException e) {
                throw new NodeStartException("data plane settings: " + e.getMessage(), true, e);
            }
            LOG.log(Level.DEBUG, "AEAD backend: {0}", AeadCiphers.defaultBackend());
            dataPlane = new DataPlane(ctx);
            for (final Transport t : transports) {
                dataPlane.addTransport(t);
            }
            if (tun != null) {
                dataPlane.attachTun(tun);
            }
            dataPlane.start();
            LOG.log(Level.INFO, "data plane: {0} threading ({1}), {2} worker(s), threads {3}",
                    threading.name().toLowerCase(java.util.Locale.ROOT), threadingReason, workers,
                    dataPlane.threadNames().isEmpty() ? "none (driven by the control loop)"
                            : String.join(" ", dataPlane.threadNames()));

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
            final List<Transport> mtus = List.copyOf(transports);
            final MeshControl mesh = new MeshControl(identity, MeshSettings.from(nc), conductor::send,
                    dataPlane::setForwardingTable, random, System::currentTimeMillis, SchnorrTreeCrypto.verifier(),
                    id -> id >= 0 && id < mtus.size() ? mtus.get(id).mtu() : DataPlaneContext.MAX_MTU_BYTES_DEFAULT,
                    now);
            final DataPlane dp = dataPlane;
            final SessionLayer sessions = sessionPath ? new SessionLayer(sessionConfig(nc), identity, epoch, mesh,
                    dataPlane, dp::sessionStats, tun != null, random, now) : null;
            if (sessions != null) {
                sessions.setMmpMode(nc.sessionMmp().mode().name().toLowerCase(java.util.Locale.ROOT));
            }
            conductor.setLinkListener(sessions == null ? mesh : new SessionAwareLinks(mesh, sessions));
            conductor.setEcn(new net.fips.control.link.EcnCongestion(nc.ecn().enabled(), nc.ecn().lossThreshold(),
                    nc.ecn().etxThreshold(), transports));
            final List<Transport> admitting = List.copyOf(transports);
            conductor.setAdmission(id -> id >= 0 && id < admitting.size() && admitting.get(id).acceptConnections());
            conductor.setConnectionCloser((id, address) -> {
                if (id >= 0 && id < admitting.size()) {
                    admitting.get(id).closeConnection(address);
                }
            });
            final EthernetDiscovery ethernet = ethernetDiscovery(cfg, transports, identity, conductor);
            addConfiguredPeers(cfg.peers(), conductor, transports);

            final Map<String, String> displayNames = new LinkedHashMap<>();
            aliases.forEach((alias, npub) -> displayNames.put(npub, alias));
            loop = new ControlLoop(conductor, mesh, sessions, dataPlane, transports, acl, clock,
                    threading == ThreadingMode.SHARED, linkConfig.tickNanos(),
                    addr -> displayName(mesh, displayNames, addr, clock.getAsLong()),
                    nc.sessionMmp().mode().name().toLowerCase(java.util.Locale.ROOT));
            holder.loop = loop;
            loop.onTick(ethernet::tick);
            final MediumDiscovery others = new MediumDiscovery(admitting, identity.publicKey(), conductor::connect);
            loop.onTick(others::tick);
            if (sessions != null) {
                loop.stats().activeSessions(() -> sessions.sessions().establishedCount());
            }
            node = new Node(loaded, options, resolved, epoch, transports, dataPlane, conductor, acl, loop,
                    displayNames, now);
            node.tun = tun;
            node.bleScans = bleScans;
            loop.start();
            if (sessionPath && cfg.dns().enabled()) {
                node.startDns(cfg, aclDir.resolve("hosts"), HostAliases.of(aliases));
            }
            node.startTorMonitors(cfg);
            if (nc.control().enabled()) {
                node.startControlSocket(Path.of(nc.control().socketPath()));
            }
            if (nc.metrics().bind().isPresent()) {
                node.startMetrics(nc.metrics().bind().get());
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
                    transports.forEach(Transport::close);
                }
                if (tun != null) {
                    tun.close();
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

    /** The session layer's settings from {@code node.session} and {@code node.rekey}. */
    static SessionConfig sessionConfig(final NodeConfig nc) {
        final SessionConfig d = SessionConfig.defaults();
        final NodeConfig.Session s = nc.session();
        final NodeConfig.Rekey r = nc.rekey();
        final long second = 1_000_000_000L;
        final long rekeyAfter = Math.max(1, r.afterSecs()) * second;
        // The reference's +-15 s jitter, kept below a quarter of a short test interval.
        final long jitter = Math.min(d.rekeyJitterNanos(), rekeyAfter / 4 / second * second);
        return new SessionConfig(s.idleTimeoutSecs() * second, d.handshakeTimeoutNanos(), d.resendBaseNanos(),
                d.maxResends(), s.pendingPacketsPerDest(), s.pendingMaxDestinations(), s.coordsWarmupPackets(),
                s.coordsResponseIntervalMs() * 1_000_000L, s.defaultTtl(), r.enabled(), rekeyAfter, jitter,
                r.afterMessages(), Math.min(d.rekeyDampeningNanos(), rekeyAfter / 2),
                Math.min(d.rekeyCutoverNanos(), rekeyAfter / 4), Math.min(d.rekeyDrainNanos(), rekeyAfter / 2));
    }

    private static TunDevice openTun(final net.fips.control.config.TunConfig t, final NodeIdentity identity)
            throws NodeStartException {
        final java.net.Inet6Address address = identity.address().toInet6Address();
        try {
            final TunDevice d = TunDevice.open(net.fips.dataplane.tun.TunConfig.of(address).withName(t.name())
                    .withMtu(t.mtu()).withOffload(t.offload() == net.fips.control.config.TunConfig.Offload.AUTO));
            LOG.log(Level.INFO, "TUN offload: {0}", d.offloadDescription());
            return d;
        } catch (final TunException e) {
            throw new NodeStartException("cannot open the TUN device " + t.name() + ": " + e.getMessage()
                    + " (set tun.enabled: false to run as a pure router)", false, e);
        }
    }

    private void startDns(final FipsConfig cfg, final Path hostsPath, final HostAliases base) {
        final Optional<InetSocketAddress> bind = DnsServer.bindAddress(cfg.dns());
        if (bind.isEmpty()) {
            LOG.log(Level.WARNING, "dns.bind_addr {0} is not an IP address; no .fips DNS responder runs",
                    cfg.dns().bindAddr());
            return;
        }
        final HostsFile hosts = new HostsFile(hostsPath, base);
        final DnsResponder responder = new DnsResponder(FipsNameResolver.hostsThenNpub(hosts::aliases),
                cfg.dns().ttl(), this::learnIdentity);
        try {
            dns = DnsServer.start(bind.get(), responder, hosts,
                    tun == null ? ArrivalFilter.NONE : ArrivalFilter.meshInterfaceNamed(tun.name()));
            LOG.log(Level.INFO, ".fips DNS responder on {0}", UdpAddresses.format(dns.localAddress()));
        } catch (final IOException e) {
            LOG.log(Level.WARNING, "cannot start the .fips DNS responder on {0}: {1}",
                    UdpAddresses.format(bind.get()), e.getMessage());
        }
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

    /** A {@code transports.ble} instance whose kernel and adapter checks passed. */
    private record BleReady(net.fips.control.config.BleConfig config, net.fips.control.ble.BlueZ.Adapter adapter) {
    }

    /**
     * Each {@code transports.ble} instance is checked once (kernel L2CAP support, then the BlueZ adapter); one that
     * fails is skipped with one line naming the reason and the node runs on without it (transports.md §1.4).
     */
    private static List<BleReady> checkBle(final List<net.fips.control.config.BleConfig> configs,
            final NodeOptions options) {
        final List<BleReady> ready = new ArrayList<>();
        for (final net.fips.control.config.BleConfig b : configs) {
            final net.fips.control.ble.BleAvailability.Result r = net.fips.control.ble.BleAvailability.check(b,
                    options.l2capProbe(), net.fips.control.ble.DbusBlueZ::systemBus);
            if (r.usable()) {
                options.bleOutcome(b.displayName() + ": adapter " + r.adapter().name() + " " + r.adapter().address());
                ready.add(new BleReady(b, r.adapter()));
            } else {
                options.bleOutcome(b.displayName() + ": " + r.reason());
                LOG.log(Level.WARNING, "transport {0} (ble): skipped: {1}", b.displayName(), r.reason());
            }
        }
        return ready;
    }

    /**
     * Appends one {@code BleTransport} per ready instance (BLE ids come last, transports.md §1.4) and starts its
     * BlueZ side (advertising, scanning, probing) on a thread of its own; a BlueZ failure there leaves the L2CAP
     * transport running without discovery, and says so.
     */
    private static void openBle(final List<BleReady> ready, final NodeIdentity identity, final LongSupplier clock,
            final List<Transport> transports, final List<net.fips.control.ble.BleScanLoop> scans) {
        final net.fips.dataplane.ble.PeerKeys keys = new net.fips.dataplane.ble.PeerKeys() {
            @Override
            public boolean isValidXOnly(final byte[] xOnly) {
                return net.fips.control.crypto.Secp256k1.isValidXOnly(xOnly);
            }

            @Override
            public net.fips.dataplane.wire.NodeAddr nodeAddr(final byte[] xOnly) {
                return net.fips.control.identity.NodeAddrs.fromPublicKey(xOnly);
            }
        };
        for (final BleReady r : ready) {
            final net.fips.control.config.BleConfig c = r.config();
            final net.fips.dataplane.ble.BleTransport t = new net.fips.dataplane.ble.BleTransport(
                    new net.fips.dataplane.ble.L2capFamily(r.adapter().name(), r.adapter().address(), c.psm(), c.mtu()),
                    new net.fips.dataplane.ble.BleTransport.Settings(c.name().orElse(null), c.maxConnections(),
                            c.mtu(), c.connectTimeoutMs(), net.fips.dataplane.ble.PubkeyExchange.DEFAULT_TIMEOUT_MS,
                            c.acceptConnections(), c.autoConnect()),
                    identity.publicKey(), keys, clock);
            transports.add(t);
            final String prefix = r.adapter().name() + "/";
            try {
                final net.fips.control.ble.BleScanLoop scan = new net.fips.control.ble.BleScanLoop(
                        net.fips.control.ble.DbusBlueZ.systemBus(), c, new net.fips.control.ble.ProbeScheduler.Sink() {
                            @Override
                            public boolean isConnected(final String address) {
                                return t.connectionState(net.fips.dataplane.transport.TransportAddr.ofText(prefix + address))
                                        == net.fips.dataplane.transport.ConnectionState.CONNECTED;
                            }

                            @Override
                            public void scanResult() {
                                t.countScanResult();
                            }

                            @Override
                            public void advertised() {
                                t.countAdvertisement();
                            }

                            @Override
                            public void probe(final String address, final boolean random) {
                                t.connect(net.fips.dataplane.transport.TransportAddr.ofText(prefix + address + (random ? "/random" : "")));
                            }
                        });
                scan.start();
                scan.startPolling(clock);
                scans.add(scan);
            } catch (final net.fips.control.ble.BlueZException e) {
                LOG.log(Level.WARNING, "transport {0} (ble): advertising/scanning unavailable: {1}", c.displayName(),
                        e.getMessage());
            }
            LOG.log(Level.INFO, "transport ble ({0}): L2CAP on {1} {2}, psm 0x{3}, mtu {4}", c.displayName(),
                    r.adapter().name(), r.adapter().address(), Integer.toHexString(c.psm()), String.valueOf(c.mtu()));
        }
    }

    /**
     * Opens every configured transport, ids in the reference's order (transports.md §1.4): UDP, Ethernet, TCP,
     * Tor, Nym, BLE, each type in config order. A failure closes what was opened and refuses the start, except an
     * Ethernet interface that does not exist yet, which its transport waits for.
     */
    private static List<Transport> openTransports(final FipsConfig cfg) throws NodeStartException {
        final List<Transport> out = new ArrayList<>();
        for (final UdpConfig u : cfg.udp()) {
            final String where = "transports.udp" + u.name().map(n -> "." + n).orElse("") + " ("
                    + u.effectiveBindAddr() + ")";
            try {
                // No SO_REUSEPORT: a second daemon on the same address must fail here, not share the port and
                // steal the running node's packets.
                out.add(UdpTransport.open(new UdpTransportConfig().bindAddress(u.effectiveBindAddr()).reusePort(false)
                        .mtuBytes(u.mtu()).receiveBufferBytes(u.recvBufSize()).sendBufferBytes(u.sendBufSize())
                        .instanceName(u.name().orElse(null))
                        .acceptConnections(!u.outboundOnly() && u.acceptConnections())));
            } catch (final IOException | RuntimeException e) {
                out.forEach(Transport::close);
                if (e instanceof IOException io && UdpTransport.isAddressInUse(io)) {
                    throw new NodeStartException("UDP address " + u.effectiveBindAddr() + " of transports.udp"
                            + u.name().map(n -> "." + n).orElse("") + " is already in use (one node per config:"
                            + " another fips daemon or program is bound to it)", false, e);
                }
                throw new NodeStartException("cannot open UDP transport " + where + ": " + e.getMessage(), false, e);
            }
        }
        // Reference id order: UDP, Ethernet, TCP, Tor, Nym, BLE (config order within a type).
        for (final EthernetConfig e : cfg.ethernet()) {
            final String where = "transports.ethernet" + e.name().map(n -> "." + n).orElse("") + " ("
                    + e.interfaceName() + ")";
            try {
                // An interface that is not there yet (a USB adapter, a VLAN made later) is waited for, not an error.
                final EthernetTransport t = EthernetTransport.openOrAwait(EthernetTransportConfig.of(e.interfaceName())
                        .withEtherType(e.etherType()).withMtu(e.mtu().orElse(0))
                        .withBuffers(e.recvBufSize(), e.sendBufSize()).withDiscovery(e.listen())
                        .withRole(e.name().orElse(null), e.autoConnect(), e.acceptConnections()));
                out.add(t);
                if (t.awaitingInterface()) {
                    LOG.log(Level.WARNING, "{0}: no interface {1} in this network namespace yet; the transport"
                            + " opens it when it appears (tried about once a second; mtu {2} until then)", where,
                            e.interfaceName(), String.valueOf(t.mtu()));
                }
            } catch (final EthernetTransportException | RuntimeException x) {
                out.forEach(Transport::close);
                throw new NodeStartException("cannot open Ethernet transport " + where + ": " + x.getMessage(),
                        x instanceof EthernetTransportException t
                                && t.reason() == EthernetTransportException.Reason.INVALID_CONFIG, x);
            }
        }
        for (final TcpConfig c : cfg.tcp()) {
            final String where = "transports.tcp" + c.name().map(n -> "." + n).orElse("")
                    + c.bindAddr().map(b -> " (" + b + ")").orElse(" (outbound only)");
            try {
                out.add(TcpTransport.open(new TcpTransportConfig().bindAddress(c.bindAddr().orElse(null))
                        .mtu(c.mtu()).connectTimeoutMs(c.connectTimeoutMs()).nodelay(c.nodelay())
                        .keepaliveSecs(c.keepaliveSecs()).recvBufferBytes(c.recvBufSize())
                        .sendBufferBytes(c.sendBufSize())
                        .maxInboundConnections(c.maxInboundConnections()
                                .orElse(cfg.node().limits().maxConnections()))
                        .instanceName(c.name().orElse(null))));
            } catch (final IOException | RuntimeException e) {
                out.forEach(Transport::close);
                if (e instanceof IOException io && TcpTransport.isAddressInUse(io)) {
                    throw new NodeStartException("TCP address " + c.bindAddr().orElse("?") + " of " + where
                            + " is already in use (one node per config: another fips daemon or program is bound to"
                            + " it)", false, e);
                }
                throw new NodeStartException("cannot open TCP transport " + where + ": " + e.getMessage(), false, e);
            }
        }
        for (final TorConfig c : cfg.tor()) {
            final String where = "transports.tor" + c.name().map(n -> "." + n).orElse("") + " (" + c.mode().configName()
                    + ")";
            final boolean directory = c.mode() == TorConfig.Mode.DIRECTORY;
            try {
                final String onion = directory ? OnionHostname.read(Path.of(c.directoryService().hostnameFile())) : null;
                out.add(TorTransport.open(new TcpTransportConfig()
                        .bindAddress(directory ? c.directoryService().bindAddr() : null)
                        .mtu(c.mtu()).connectTimeoutMs((int) Math.min(Integer.MAX_VALUE, c.connectTimeoutMs()))
                        .nodelay(true).keepaliveSecs(net.fips.dataplane.tor.TorConnector.KEEPIDLE_SECS)
                        .maxInboundConnections(c.maxInboundConnections())
                        .instanceName(c.name().orElse(null)), c.socks5Addr(), c.mode().configName(), onion,
                        new TorCounters()));
                if (directory) {
                    LOG.log(Level.INFO, "{0}: onion service {1} active, listening on {2}", where, onion,
                            c.directoryService().bindAddr());
                }
            } catch (final IOException | RuntimeException e) {
                out.forEach(Transport::close);
                throw new NodeStartException("cannot open Tor transport " + where + ": " + e.getMessage(), false, e);
            }
        }
        return out;
    }

    /**
     * The Ethernet instances' beacons and discovery (transports.md §1.6, §4.4), run on the control thread's tick:
     * each instance announces our key when configured to, and with {@code auto_connect} the peers its beacons
     * found are dialled (at most {@value MediumDiscovery#DIALS_PER_TICK} per instance and tick, every medium's
     * budget; the conductor ignores peers already linked or being dialled, and the ACL applies as to any dial).
     */
    private record EthernetDiscovery(List<Integer> ids, List<EthernetBeacons> beacons, LinkConductor conductor) {
        void tick(final long now) {
            for (int i = 0; i < ids.size(); i++) {
                int dials = 0;
                for (final DiscoveredPeer p : beacons.get(i).tick(now)) {
                    if (dials++ >= MediumDiscovery.DIALS_PER_TICK) {
                        break;
                    }
                    final LinkConductor.ConnectResult r = conductor.connect(p.identity(), ids.get(i),
                            TransportAddr.ofMac(MacAddress.toBytes(p.address().mac())));
                    LOG.log(r == LinkConductor.ConnectResult.STARTED ? Level.INFO : Level.DEBUG,
                            "ethernet: beacon from {0} at {1}: {2}", p.identity().shortNpub(), p.address(), r);
                }
            }
        }
    }

    private static EthernetDiscovery ethernetDiscovery(final FipsConfig cfg, final List<Transport> transports,
                                                       final NodeIdentity identity, final LinkConductor conductor) {
        final List<Integer> ids = new ArrayList<>();
        final List<EthernetBeacons> beacons = new ArrayList<>();
        int k = 0;
        for (int id = 0; id < transports.size(); id++) {
            if (transports.get(id) instanceof EthernetTransport et) {
                et.announceAs(identity.publicKey());
                final EthernetConfig ec = cfg.ethernet().get(k++);
                ids.add(id);
                beacons.add(new EthernetBeacons(ec, new EthernetBeacons.Medium() {
                    @Override
                    public int sendBeacon() {
                        return et.sendBeacon();
                    }

                    @Override
                    public List<DiscoveredBeacon> drainBeacons() {
                        return et.drainBeacons();
                    }
                }, identity.publicKey()));
            }
        }
        return new EthernetDiscovery(ids, beacons, conductor);
    }

    /**
     * Connects the Tor control-port monitors (transports.md §6.1, §6.6): in control_port mode a connect or
     * authentication failure refuses the start; in directory mode with an explicit control_addr it only warns and
     * the monitor retries at each poll. Transport ids follow {@link #openTransports}: UDP, Ethernet, TCP, then Tor.
     */
    private void startTorMonitors(final FipsConfig cfg) throws NodeStartException {
        final int first = cfg.udp().size() + cfg.ethernet().size() + cfg.tcp().size();
        for (int i = 0; i < cfg.tor().size(); i++) {
            final TorConfig c = cfg.tor().get(i);
            if (!c.usesControlPort()) {
                continue;
            }
            final int id = first + i;
            final TorTransport t = (TorTransport) transports.get(id);
            final TorMonitorTask task = new TorMonitorTask(c.displayName(), c.effectiveControlAddr(),
                    ControlAuth.parse(c.controlAuth(), c.cookiePath()), t.torCounters(), options.nanoClock());
            try {
                task.connect();
            } catch (final TorControlException e) {
                if (c.mode() == TorConfig.Mode.CONTROL_PORT) {
                    throw new NodeStartException("Tor control port " + c.effectiveControlAddr() + " of transports.tor"
                            + c.name().map(n -> "." + n).orElse("") + ": " + e.getMessage(), false, e);
                }
                LOG.log(Level.WARNING, "{0}: Tor control port {1}: {2} (monitoring retries every 10 s)",
                        c.displayName(), c.effectiveControlAddr(), e.getMessage());
            }
            task.start();
            torMonitors.put(id, task);
        }
    }

    /** @return the latest Tor monitoring snapshot of transport {@code id}, or null */
    TorMonitoring torMonitoring(final int id) {
        final TorMonitorTask t = torMonitors.get(id);
        return t == null ? null : t.latest();
    }

    private static void addConfiguredPeers(final List<PeerConfig> peers, final LinkConductor conductor,
                                           final List<Transport> transports) {
        for (final PeerConfig p : peers) {
            final String name = p.alias().orElse(p.identity().shortNpub());
            if (!p.isAutoConnect()) {
                LOG.log(Level.DEBUG, "peer {0}: connect_policy is not auto_connect; not dialled", name);
                continue;
            }
            final List<String> problems = new ArrayList<>();
            final Optional<NodeSettings.Dial> dial = NodeSettings.pickDial(p, transports, problems);
            for (final String problem : problems) {
                LOG.log(Level.WARNING, "peer {0}: {1}", name, problem);
            }
            if (dial.isEmpty()) {
                LOG.log(Level.WARNING, "peer {0}: no usable address; not dialled", name);
                continue;
            }
            final LinkConductor.ConnectResult r = conductor.addConfiguredPeer(p.identity(), dial.get().transportId(),
                    dial.get().address(), p.autoReconnect());
            LOG.log(Level.INFO, "peer {0}: dialling {1} {2} ({3})", name,
                    transports.get(dial.get().transportId()).typeName(), dial.get().address(), r);
        }
    }

    private void startControlSocket(final Path path) throws NodeStartException {
        try {
            server = ControlSocketServer.start(path, api);
        } catch (final IOException | RuntimeException e) {
            throw new NodeStartException("cannot open the control socket " + path + ": " + e.getMessage(), false, e);
        }
    }

    private void startMetrics(final String bind) throws NodeStartException {
        try {
            final InetSocketAddress at = UdpAddresses.parse(bind);
            metrics = PrometheusExporter.start(this, at);
            metricsAddress = new InetSocketAddress(at.getAddress(), metrics.port());
        } catch (final IOException | RuntimeException e) {
            throw new NodeStartException("cannot open the metrics endpoint " + bind + ": " + e.getMessage(), false, e);
        }
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
            LOG.log(Level.INFO, "transport {0} ({1}): {2} listening on {3}, mtu {4}", String.valueOf(i),
                    t.instanceName() == null ? t.typeName() : t.instanceName(), t.typeName(),
                    t.localAddr() == null ? "-" : t.localAddr().toString(), String.valueOf(t.mtu()));
        }
        LOG.log(Level.INFO, "control socket: {0}", server == null ? "disabled" : server.path());
        LOG.log(Level.INFO, "TUN: {0}", tun == null ? "disabled (pure router)" : tun.toString());
        if (metrics != null) {
            LOG.log(Level.INFO, "metrics endpoint: http://{0}/metrics", UdpAddresses.format(metricsAddress().orElseThrow()));
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
    boolean learnIdentity(final net.fips.control.identity.PeerIdentity peer) {
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
    public net.fips.control.metrics.StatsSampler stats() {
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
        if (dns != null) {
            dns.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        torMonitors.values().forEach(TorMonitorTask::close);
        loop.stop(sayGoodbye);
        bleScans.forEach(net.fips.control.ble.BleScanLoop::close);
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
