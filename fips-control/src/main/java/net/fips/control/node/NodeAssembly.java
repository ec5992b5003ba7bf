package net.fips.control.node;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

import net.fips.control.acl.AclWatcher;
import net.fips.control.acl.HostAliases;
import net.fips.control.config.FipsConfig;
import net.fips.control.config.LoadedConfig;
import net.fips.control.config.NodeConfig;
import net.fips.control.config.PeerConfig;
import net.fips.control.config.TunConfig;
import net.fips.control.ctl.ControlSocketServer;
import net.fips.control.dns.ArrivalFilter;
import net.fips.control.dns.DnsResponder;
import net.fips.control.dns.DnsServer;
import net.fips.control.dns.FipsNameResolver;
import net.fips.control.dns.HostsFile;
import net.fips.control.identity.IdentityCache;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.KeyFileException;
import net.fips.control.identity.KeyFiles;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.link.EcnCongestion;
import net.fips.control.link.LinkConductor;
import net.fips.control.link.LinkConfig;
import net.fips.control.link.PeerFilter;
import net.fips.control.mesh.MeshControl;
import net.fips.control.mesh.MeshSettings;
import net.fips.control.session.SessionConfig;
import net.fips.control.session.SessionLayer;
import net.fips.control.tree.SchnorrTreeCrypto;
import net.fips.dataplane.crypto.AeadCiphers;
import net.fips.dataplane.engine.DataPlane;
import net.fips.dataplane.engine.DataPlaneContext;
import net.fips.dataplane.engine.ThreadingMode;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.tun.TunDevice;
import net.fips.dataplane.tun.TunException;
import net.fips.dataplane.udp.UdpAddresses;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The composition root: builds and starts a {@link Node} from one {@link LoadedConfig}. In order: refuse a
 * config whose control socket is live, open the transports ({@link TransportFactories#REGISTERED}, one factory per
 * type), resolve the identity ({@link KeyFiles}), open the TUN device, build the {@link DataPlane}, the link layer
 * ({@link LinkConductor}), the routing layers ({@link MeshControl}), the session layer, the peer ACL and the
 * {@link ControlLoop}, dial the configured peers, then start the DNS responder, the transports' companions, the
 * control socket and the metrics endpoint. A failure closes everything opened so far.
 */
final class NodeAssembly {
    private static final System.Logger LOG = System.getLogger(Node.class.getName());

    private NodeAssembly() {
    }

    /**
     * Builds and starts a node.
     *
     * @param loaded  the configuration; its warnings are logged here
     * @param options hooks and overrides
     * @return the running node
     * @throws NodeStartException naming what failed; everything opened so far is closed again
     */
    static Node start(final LoadedConfig loaded, final NodeOptions options) throws NodeStartException {
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
        final NodeTransports opened = NodeTransports.open(TransportFactories.REGISTERED, cfg, options);
        final boolean sessionPath = !options.localDeliverySet();
        TunDevice tun = null;
        DataPlane dataPlane = null;
        ControlLoop loop = null;
        Node node = null;
        NostrDiscovery nostr = null;
        try {
            final KeyFiles.Resolved resolved = resolveIdentity(loaded, options);
            final NodeIdentity identity = resolved.identity();
            final byte[] epoch = new byte[Node.EPOCH_BYTES];
            new SecureRandom().nextBytes(epoch);
            if (cfg.tun().enabled() && sessionPath) {
                tun = openTun(cfg.tun(), identity, options.tunOpener());
            }

            final LongSupplier clock = options.nanoClock();
            opened.identityKnown(identity, clock);
            final List<Transport> transports = opened.all();
            final int maxMtu = maxMtu(transports, tun);
            final LoopHolder holder = new LoopHolder();
            final int workers = loaded.environment().encryptWorkers()
                    .orElse(NodeSettings.defaultWorkers(Runtime.getRuntime().availableProcessors()));
            final NodeSettings.Threading chosen = threading(options, loaded, workers);
            final ThreadingMode threading = chosen.mode();
            final String threadingReason = chosen.reason();
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
                    threading.name().toLowerCase(Locale.ROOT), threadingReason, workers,
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
            final MeshControl mesh = new MeshControl(identity, MeshSettings.from(nc), conductor::send,
                    dataPlane::setForwardingTable, random, System::currentTimeMillis, SchnorrTreeCrypto.verifier(),
                    id -> id >= 0 && id < transports.size() ? transports.get(id).mtu()
                            : DataPlaneContext.MAX_MTU_BYTES_DEFAULT,
                    now);
            final DataPlane dp = dataPlane;
            final SessionLayer sessions = sessionPath ? new SessionLayer(sessionConfig(nc), identity, epoch, mesh,
                    dataPlane, dp::sessionStats, tun != null, random, now) : null;
            if (sessions != null) {
                sessions.setMmpMode(nc.sessionMmp().mode().name().toLowerCase(Locale.ROOT));
            }
            conductor.setLinkListener(sessions == null ? mesh : new SessionAwareLinks(mesh, sessions));
            conductor.setEcn(new EcnCongestion(nc.ecn().enabled(), nc.ecn().lossThreshold(),
                    nc.ecn().etxThreshold(), transports));
            conductor.setAdmission(id -> id >= 0 && id < transports.size() && transports.get(id).acceptConnections());
            conductor.setConnectionCloser((id, address) -> {
                if (id >= 0 && id < transports.size()) {
                    transports.get(id).closeConnection(address);
                }
            });
            final List<LongConsumer> mediumTicks = opened.attach(identity, conductor);
            addConfiguredPeers(cfg.peers(), conductor, transports, cfg.nostr().enabled());

            final Map<String, String> displayNames = new LinkedHashMap<>();
            aliases.forEach((alias, npub) -> displayNames.put(npub, alias));
            loop = new ControlLoop(conductor, mesh, sessions, dataPlane, transports, acl, clock,
                    threading == ThreadingMode.SHARED, linkConfig.tickNanos(),
                    addr -> displayName(mesh, displayNames, addr, clock.getAsLong()),
                    nc.sessionMmp().mode().name().toLowerCase(Locale.ROOT));
            holder.loop = loop;
            for (final LongConsumer tick : mediumTicks) {
                loop.onTick(tick);
            }
            final MediumDiscovery others = new MediumDiscovery(transports, identity.publicKey(), conductor::connect);
            loop.onTick(others::tick);
            final LanService lan = new LanService(identity.npub(), transports, conductor::connect,
                    options.lanAddresses(), TimeUnit.SECONDS.toNanos(Math.max(1, nc.retry().baseIntervalSecs())),
                    TimeUnit.SECONDS.toNanos(Math.max(1, nc.retry().maxBackoffSecs())));
            loop.onTick(lan::tick);
            nostr = NostrDiscovery.startIfEnabled(cfg, identity, transports, conductor, options,
                    opened.natAdopter(), loop);
            if (sessions != null) {
                loop.stats().activeSessions(() -> sessions.sessions().establishedCount());
            }
            node = new Node(loaded, options, resolved, epoch, opened, dataPlane, conductor, acl, loop, tun,
                    displayNames, now);
            node.lan(lan);
            node.nostr(nostr);
            loop.start();
            lan.apply(cfg);
            if (sessionPath && cfg.dns().enabled()) {
                node.dns(startDns(cfg, aclDir.resolve("hosts"), HostAliases.of(aliases), tun, node));
            }
            opened.started(options);
            if (nc.control().enabled()) {
                node.controlSocket(startControlSocket(Path.of(nc.control().socketPath()), node));
            }
            if (nc.metrics().bind().isPresent()) {
                startMetrics(nc.metrics().bind().get(), node);
            }
            node.running();
            return node;
        } catch (final NodeStartException | RuntimeException e) {
            if (node == null && nostr != null) {
                nostr.close();
            }
            undo(node, loop, dataPlane, opened, tun);
            throw e;
        }
    }

    /** What a failed start leaves open, closed: the node when it exists, else the parts built so far. */
    private static void undo(final Node node, final ControlLoop loop, final DataPlane dataPlane,
            final NodeTransports opened, final TunDevice tun) {
        if (node != null) {
            node.close();
            return;
        }
        if (loop != null) {
            loop.stop(false);
        }
        if (dataPlane != null) {
            opened.close();
            dataPlane.close();
        } else {
            opened.closeAll();
        }
        if (tun != null) {
            tun.close();
        }
    }

    /** @return the threading the embedder set, else {@code node.dataplane.threading} with its environment override */
    private static NodeSettings.Threading threading(final NodeOptions options, final LoadedConfig loaded,
            final int workers) {
        if (options.threadingMode() != null) {
            return new NodeSettings.Threading(options.threadingMode(), "set by the embedder");
        }
        return NodeSettings.threading(loaded.config().node().dataplane().threading(),
                loaded.environment().threading(), workers);
    }

    /** @return the largest MTU of the transports and the TUN device, at least the data plane's default */
    private static int maxMtu(final List<Transport> transports, final TunDevice tun) {
        int maxMtu = DataPlaneContext.MAX_MTU_BYTES_DEFAULT;
        for (final Transport t : transports) {
            maxMtu = Math.max(maxMtu, t.mtu());
        }
        return tun == null ? maxMtu : Math.max(maxMtu, tun.mtu());
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

    private static TunDevice openTun(final TunConfig t, final NodeIdentity identity,
            final NodeOptions.TunOpener opener) throws NodeStartException {
        final Inet6Address address = identity.address().toInet6Address();
        try {
            // fqn: the data plane's TunConfig, beside config.TunConfig
            final TunDevice d = opener.open(net.fips.dataplane.tun.TunConfig.of(address).withName(t.name())
                    .withMtu(t.mtu()).withOffload(t.offload() == TunConfig.Offload.AUTO));
            LOG.log(Level.INFO, "TUN offload: {0}", d.offloadDescription());
            return d;
        } catch (final TunException e) {
            throw new NodeStartException("cannot open the TUN device " + t.name() + ": " + e.getMessage()
                    + " (set tun.enabled: false to run as a pure router)", false, e);
        }
    }

    /** @return the running .fips DNS responder, or null when it could not start (a warning says why) */
    private static DnsServer startDns(final FipsConfig cfg, final Path hostsPath, final HostAliases base,
                                      final TunDevice tun, final Node node) {
        final Optional<InetSocketAddress> bind = DnsServer.bindAddress(cfg.dns());
        if (bind.isEmpty()) {
            LOG.log(Level.WARNING, "dns.bind_addr {0} is not an IP address; no .fips DNS responder runs",
                    cfg.dns().bindAddr());
            return null;
        }
        final HostsFile hosts = new HostsFile(hostsPath, base);
        final DnsResponder responder = new DnsResponder(FipsNameResolver.hostsThenNpub(hosts::aliases),
                cfg.dns().ttl(), node::learnIdentity);
        try {
            final DnsServer dns = DnsServer.start(bind.get(), responder, hosts,
                    tun == null ? ArrivalFilter.NONE : ArrivalFilter.meshInterfaceNamed(tun.name()));
            LOG.log(Level.INFO, ".fips DNS responder on {0}", UdpAddresses.format(dns.localAddress()));
            return dns;
        } catch (final IOException e) {
            LOG.log(Level.WARNING, "cannot start the .fips DNS responder on {0}: {1}",
                    UdpAddresses.format(bind.get()), e.getMessage());
            return null;
        }
    }

    private static ControlSocketServer startControlSocket(final Path path, final Node node)
            throws NodeStartException {
        try {
            return ControlSocketServer.start(path, node.controlApi());
        } catch (final IOException | RuntimeException e) {
            throw new NodeStartException("cannot open the control socket " + path + ": " + e.getMessage(), false, e);
        }
    }

    private static void startMetrics(final String bind, final Node node) throws NodeStartException {
        try {
            final InetSocketAddress at = UdpAddresses.parse(bind);
            final PrometheusExporter metrics = PrometheusExporter.start(node, at);
            node.metrics(metrics, new InetSocketAddress(at.getAddress(), metrics.port()));
        } catch (final IOException | RuntimeException e) {
            throw new NodeStartException("cannot open the metrics endpoint " + bind + ": " + e.getMessage(), false, e);
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

    private static void addConfiguredPeers(final List<PeerConfig> peers, final LinkConductor conductor,
                                           final List<Transport> transports, final boolean nostrEnabled) {
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
            if (dial.isEmpty() && p.viaNostr() && p.addresses().isEmpty()) {
                LOG.log(Level.INFO, "peer {0}: no static address; dialled from its Nostr advert", name);
                continue;
            }
            if (dial.isEmpty() && NostrDiscovery.hasNatAddress(p)) {
                LOG.log(nostrEnabled ? Level.INFO : Level.WARNING, nostrEnabled
                        ? "peer {0}: reached by NAT traversal (udp nat) through Nostr signalling"
                        : "peer {0}: udp nat needs node.discovery.nostr.enabled; not dialled", name);
                continue;
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
}
