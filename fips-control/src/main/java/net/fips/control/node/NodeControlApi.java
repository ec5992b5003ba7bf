package net.fips.control.node;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import net.fips.control.config.NodeConfig;
import net.fips.control.config.PeerConfig;
import net.fips.control.ctl.AclSnapshot;
import net.fips.control.ctl.ConnectResult;
import net.fips.control.ctl.ConnectionSnapshot;
import net.fips.control.ctl.Connectivity;
import net.fips.control.ctl.ControlApi;
import net.fips.control.ctl.ControlException;
import net.fips.control.ctl.ControlJson;
import net.fips.control.ctl.DisconnectResult;
import net.fips.control.ctl.ForwardingCounters;
import net.fips.control.ctl.HandshakeState;
import net.fips.control.ctl.LinkDirection;
import net.fips.control.ctl.LinkMmp;
import net.fips.control.ctl.LinkSnapshot;
import net.fips.control.ctl.LinkState;
import net.fips.control.ctl.PeerSnapshot;
import net.fips.control.ctl.Sparklines;
import net.fips.control.ctl.StatsView;
import net.fips.control.ctl.StatusSnapshot;
import net.fips.control.ctl.TrafficStats;
import net.fips.control.ctl.TransportSnapshot;
import net.fips.control.ctl.TransportState;
import net.fips.control.ctl.TunState;
import net.fips.control.ctl.UnconnectedPeer;
import net.fips.control.identity.FipsAddress;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.NodeAddrs;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.link.DialSnapshot;
import net.fips.control.link.LinkConductor;
import net.fips.control.mesh.MeshSnapshot;
import net.fips.control.nostr.FailureState;
import net.fips.dataplane.engine.DataPlaneCounter;
import net.fips.dataplane.udp.UdpAddresses;
import net.fips.dataplane.transport.Transport;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.transport.TransportTypes;
import net.fips.dataplane.udp.UdpTransportException;
import net.fips.control.ctl.ListeningSockets;
import net.fips.control.ctl.NodeState;
import net.fips.control.link.EcnCongestion;
import net.fips.control.link.RetrySnapshot;
import net.fips.control.metrics.NodeMetric;
import net.fips.control.metrics.StatsHistory;
import net.fips.control.mmp.PeerReport;
import net.fips.control.mmp.ReceiverFigures;
import net.fips.dataplane.tor.TorTransport;

/**
 * The control socket's view of a {@link Node}. Every {@code show_*} maps the link layer's latest published
 * snapshot, the data plane's counters and the transports' counters into the control records; nothing here waits
 * for the control thread. {@code connect} and {@code disconnect} check what they can on the caller's thread and
 * queue the rest for the control thread.
 */
final class NodeControlApi implements ControlApi {
    private static final System.Logger LOG = System.getLogger(NodeControlApi.class.getName());
    /** Transport MTU minus this is the IPv6 MTU offered to applications (crypto-link §2.4). */
    static final int FIPS_IPV6_OVERHEAD = 77;
    /** Samples per {@code show_status} sparkline, as the reference. */
    static final int SPARK_N = 30;

    private static final MeshSnapshot.PeerRouting NO_ROUTING =
            new MeshSnapshot.PeerRouting(false, null, false, false, false, 0, null);
    private final Node node;
    private final Map<String, String> shortNames = new ConcurrentHashMap<>();
    private final StatsView statsView;

    NodeControlApi(final Node node) {
        this.node = node;
        this.statsView = new StatsView(node.stats().history(), node.options().nanoClock(),
                npub -> node.displayNames().get(npub), this::displayName);
    }

    @Override
    public StatusSnapshot showStatus() {
        final NodeIdentity id = node.identity();
        // fqn: the link layer's LinkSnapshot and PeerSnapshot, beside ctl's records of the same names
        final net.fips.control.link.LinkSnapshot snap = node.linkSnapshot();
        final NodeConfig nc = node.config().config().node();
        int mtu = Integer.MAX_VALUE;
        for (final Transport t : node.transports()) {
            if (t.state() == Transport.State.UP) {
                mtu = Math.min(mtu, t.mtu());
            }
        }
        final int ipv6Mtu = mtu == Integer.MAX_VALUE ? 0 : Math.max(0, mtu - FIPS_IPV6_OVERHEAD);
        final ProcessHandle self = ProcessHandle.current();
        final ForwardingCounters fwd = forwarding();
        final MeshSnapshot mesh = node.meshSnapshot();
        return new StatusSnapshot(node.options().version(), id.npub(), id.nodeAddr().toString(),
                id.address().toString(), node.state(), nc.leafOnly(), snap.peers().size(),
                node.loop().sessionsSnapshot().path("sessions").size(), snap.peers().size(),
                node.transports().size(), snap.pendingOutbound(),
                node.tunName().isPresent() ? TunState.ACTIVE : TunState.DISABLED, node.tunName().orElse(null), ipv6Mtu,
                node.controlSocketPath().map(Object::toString).orElse(nc.control().socketPath()), self.pid(),
                self.info().command().orElse(null), node.uptimeNanos() / 1_000_000_000L, mesh.meshSize(),
                nc.identity().persistent() || nc.identity().nsec().isPresent(), mesh.root(), mesh.isRoot(),
                peersByTransportType(snap), fwd, sparklines());
    }

    /** The reference's {@code show_status.sparklines}: the last {@value #SPARK_N} 1 s samples of six series. */
    private Sparklines sparklines() {
        final StatsHistory h = node.stats().history();
        return new Sparklines(recent(h, NodeMetric.MESH_SIZE),
                recent(h, NodeMetric.TREE_DEPTH),
                recent(h, NodeMetric.PEER_COUNT),
                recent(h, NodeMetric.BYTES_IN),
                recent(h, NodeMetric.BYTES_OUT),
                recent(h, NodeMetric.LOSS_RATE));
    }

    private static List<Double> recent(final StatsHistory h,
                                       final NodeMetric m) {
        final List<Double> out = new ArrayList<>();
        for (final double v : h.recent(m, SPARK_N)) {
            out.add(v);
        }
        return out;
    }

    /**
     * The forwarding family from the data plane's packet counters. The data plane counts packets, not bytes, per
     * outcome, so every {@code *_bytes} figure but {@code drop_mtu_exceeded_bytes} is null (not measured);
     * {@code drop_mtu_exceeded_*} are transit datagrams too big for the next hop (answered with MtuExceeded);
     * {@code originated_packets} counts the
     * session datagrams the data plane sealed for our own sessions (DataPackets, reports, notifications; the few
     * handshake and error-signal datagrams the control plane sends are not in it).
     */
    private ForwardingCounters forwarding() {
        final var dp = node.dataPlane();
        final long delivered = dp.counter(DataPlaneCounter.DATAGRAMS_DELIVERED);
        final long forwarded = dp.counter(DataPlaneCounter.FORWARDED);
        final long noRoute = dp.counter(DataPlaneCounter.DROP_NO_ROUTE);
        final long ttl = dp.counter(DataPlaneCounter.DROP_TTL_EXHAUSTED);
        final long malformed = dp.counter(DataPlaneCounter.DROP_MALFORMED_DATAGRAM);
        final long sendErrors = dp.counter(DataPlaneCounter.DROP_HANDOFF_RING_FULL);
        final long mtuExceeded = dp.counter(DataPlaneCounter.DROP_FORWARD_MTU_EXCEEDED);
        final long originated = dp.counter(DataPlaneCounter.SESSION_PACKETS_OUT)
                + dp.counter(DataPlaneCounter.SESSION_MESSAGES_OUT);
        return new ForwardingCounters(null, malformed, null, delivered,
                dp.counter(DataPlaneCounter.FORWARD_MTU_EXCEEDED_BYTES), mtuExceeded, null, noRoute, null, sendErrors,
                null, forwarded, null, originated, null,
                delivered + forwarded + noRoute + ttl + malformed + sendErrors + mtuExceeded,
                dp.counter(DataPlaneCounter.ROUTE_CROSSLINK_ASCEND),
                dp.counter(DataPlaneCounter.ROUTE_CROSSLINK_DESCEND),
                dp.counter(DataPlaneCounter.ROUTE_DIRECT_PEER), dp.counter(DataPlaneCounter.ROUTE_TREE_DOWN),
                dp.counter(DataPlaneCounter.ROUTE_TREE_DOWN_CROSS), dp.counter(DataPlaneCounter.ROUTE_TREE_UP),
                null, ttl);
    }

    @Override
    public JsonNode showTree() {
        return node.meshSnapshot().tree();
    }

    @Override
    public JsonNode showBloom() {
        return node.meshSnapshot().bloom();
    }

    @Override
    public JsonNode showCache() {
        return node.meshSnapshot().cache();
    }

    @Override
    public JsonNode showIdentityCache() {
        return node.meshSnapshot().identityCache();
    }

    @Override
    public JsonNode showRouting() {
        final ObjectNode o = node.meshSnapshot().routing().deepCopy();
        final long[] pending = node.loop().pendingTun();
        o.put("pending_tun_destinations", pending[0]);
        o.put("pending_tun_packets", pending[1]);
        final ArrayNode retries = o.putArray("retries");
        final long nowMs = System.currentTimeMillis();
        for (final RetrySnapshot r : node.linkSnapshot().retries()) {
            final ObjectNode ro = retries.addObject();
            ro.put("node_addr", r.nodeAddr());
            ro.put("display_name", displayName(r.npub()));
            ro.put("retry_count", r.retryCount());
            ro.put("retry_after_ms", nowMs + r.retryInMs());
            ro.put("auto_reconnect", r.autoReconnect());
        }
        o.set("forwarding", ControlJson.MAPPER.valueToTree(forwarding()));
        o.set("congestion", congestion());
        return o;
    }

    private ObjectNode congestion() {
        final ObjectNode congestion = ControlJson.MAPPER.createObjectNode();
        final var dp = node.dataPlane();
        // The data plane counts the CE relay and marking (routing-session §6.6); congestion_detected counts
        // forwards towards a link the control plane flagged congested (net.fips.control.link.EcnCongestion).
        congestion.put("ce_forwarded", dp.counter(DataPlaneCounter.CE_FORWARDED));
        congestion.put("ce_received", dp.counter(DataPlaneCounter.CE_RECEIVED));
        congestion.put("congestion_detected", dp.counter(DataPlaneCounter.CONGESTION_DETECTED));
        final EcnCongestion ecn = node.conductor().ecn();
        if (ecn == null) {
            congestion.putNull("kernel_drop_events");
        } else {
            congestion.put("kernel_drop_events", ecn.kernelDropEvents());
        }
        return congestion;
    }

    /**
     * {@code show_metrics}: the same counters {@code show_routing}, {@code show_tree} and {@code show_bloom} carry,
     * in the reference's six families ({@code errors} is {@code show_routing.error_signals}).
     */
    @Override
    public JsonNode showMetrics() {
        final MeshSnapshot mesh = node.meshSnapshot();
        final ObjectNode o = ControlJson.MAPPER.createObjectNode();
        o.set("forwarding", ControlJson.MAPPER.valueToTree(forwarding()));
        o.set("discovery", mesh.routing().path("discovery").deepCopy());
        o.set("tree", mesh.tree().path("stats").deepCopy());
        o.set("bloom", mesh.bloom().path("stats").deepCopy());
        o.set("congestion", congestion());
        o.set("errors", mesh.routing().path("error_signals").deepCopy());
        return o;
    }

    /** Config aliases ({@code peers[].alias}), matched case-insensitively as hosts-file names are. */
    @Override
    public String resolvePeer(final String name) throws ControlException {
        if (name.startsWith("npub1")) {
            return name;
        }
        for (final Map.Entry<String, String> e : node.displayNames().entrySet()) {
            if (e.getValue().equalsIgnoreCase(name)) {
                return e.getKey();
            }
        }
        throw ControlException.unknownPeerName(name);
    }

    @Override
    public JsonNode showLan() {
        final LanService.State s = node.lanState();
        return s == null ? ControlJson.MAPPER.createObjectNode().put("enabled", false)
                : LanService.json(s, node.options().nanoClock().getAsLong());
    }

    @Override
    public JsonNode showListeningSockets() {
        return ListeningSockets.query(node.identity().address().toBytes());
    }

    @Override
    public Optional<StatsView> stats() {
        return Optional.of(statsView);
    }

    @Override
    public List<UnconnectedPeer> showUnconnectedPeers() {
        final List<Transport> transports = node.transports();
        return unconnected(node.config().config().peers(), node.linkSnapshot(),
                id -> id >= 0 && id < transports.size() ? transports.get(id).typeName() : null, this::displayName);
    }

    /**
     * The configured peers that are not established in {@code snap}, in config order: {@code connecting} while a
     * dial of ours is in flight, else {@code retrying} while a redial is scheduled, else {@code disconnected}.
     *
     * @param configured    {@code peers[]}
     * @param snap          the link layer now
     * @param transportType a transport id's type name, or null
     * @param displayName   an npub's display name
     * @return one entry per configured peer that is down
     */
    static List<UnconnectedPeer> unconnected(final List<PeerConfig> configured,
                                             // fqn: the link layer's LinkSnapshot, beside ctl's
                                             final net.fips.control.link.LinkSnapshot snap,
                                             final IntFunction<String> transportType,
                                             final UnaryOperator<String> displayName) {
        final List<UnconnectedPeer> out = new ArrayList<>();
        for (final PeerConfig p : configured) {
            final String npub = p.identity().npub();
            if (snap.peer(npub) != null) {
                continue;
            }
            final String nodeAddr = p.identity().nodeAddr().toString();
            final DialSnapshot dial = snap.dials().stream().filter(d -> d.npub().equals(npub)).findFirst()
                    .orElse(null);
            if (dial != null) {
                out.add(new UnconnectedPeer(npub, displayName.apply(npub), nodeAddr, UnconnectedPeer.CONNECTING,
                        transportType.apply(dial.transportId()), dial.address(), null, null));
                continue;
            }
            final List<PeerConfig.Address> addresses = p.addressesByPriority();
            final String type = addresses.isEmpty() ? null : addresses.get(0).kind();
            final String addr = addresses.isEmpty() ? null : addresses.get(0).addr();
            final RetrySnapshot retry = snap.retries().stream()
                    .filter(r -> r.npub().equals(npub)).findFirst().orElse(null);
            out.add(retry == null
                    ? new UnconnectedPeer(npub, displayName.apply(npub), nodeAddr, UnconnectedPeer.DISCONNECTED, type,
                            addr, null, null)
                    : new UnconnectedPeer(npub, displayName.apply(npub), nodeAddr, UnconnectedPeer.RETRYING, type,
                            addr, Math.max(0L, retry.retryInMs()), retry.retryCount()));
        }
        return out;
    }

    @Override
    public List<PeerSnapshot> showPeers() {
        final long wallNow = System.currentTimeMillis();
        final String mode = node.config().config().node().mmp().mode().name().toLowerCase(Locale.ROOT);
        final List<PeerSnapshot> out = new ArrayList<>();
        final MeshSnapshot mesh = node.meshSnapshot();
        // fqn: the link layer's LinkSnapshot and PeerSnapshot, beside ctl's records of the same names
        for (final net.fips.control.link.PeerSnapshot p : node.linkSnapshot().peers()) {
            final Double srttMs = p.srttMicros() < 0 ? null : p.srttMicros() / 1000.0;
            final MeshSnapshot.PeerRouting r = mesh.peers().getOrDefault(p.nodeAddr(), NO_ROUTING);
            out.add(new PeerSnapshot(p.nodeAddr(), p.npub(), displayName(p.npub()), ipv6Of(p.nodeAddr()),
                    Connectivity.CONNECTED, p.linkId(), wallNow - p.linkAgeMs(), wallNow - p.lastReceivedAgoMs(),
                    r.hasTreePosition(), r.hasFilter(), r.filterSequence(), r.isParent(), r.isChild(),
                    p.address(), direction(p.direction()), "udp", r.treeDepth(), r.effectiveDepth(),
                    new TrafficStats(p.packetsOut(), p.packetsIn(), p.bytesOut(), p.bytesIn()), p.replayDrops(),
                    p.consecutiveDecryptFailures(), nostrTraversal(p.npub()),
                    new PeerSnapshot.NoiseCounters(p.sendCounter(), p.highestCounterIn()),
                    PeerSnapshot.sessionIndexHex((int) p.ourIndex()), p.rekeyInProgress(), p.draining(),
                    p.kBit() == 1, LinkMmp.of(mode, srttMs,
                            p.deliveryForward() == null ? null : 1.0 - p.deliveryForward(), p.etx(), p.goodputBps(),
                            p.deliveryForward(), p.deliveryReverse(), null, null), p.rekeys(),
                    p.restarts(), p.decryptFailures()));
        }
        return out;
    }

    /** @return the peer's Nostr failure record as {@code show_peers[].nostr_traversal}, or null for none */
    private PeerSnapshot.NostrTraversal nostrTraversal(final String npub) {
        final NostrDiscovery nostr = node.nostr();
        final FailureState.View v = nostr == null ? null : nostr.failureOf(npub);
        return v == null ? null : new PeerSnapshot.NostrTraversal(v.consecutiveFailures(), v.cooldownUntilMs(),
                v.lastObservedSkewMs());
    }

    @Override
    public JsonNode showNostr() {
        final NostrDiscovery nostr = node.nostr();
        return nostr == null ? NostrStatusView.disabled() : nostr.status();
    }

    @Override
    public JsonNode showSessions() {
        return node.loop().sessionsSnapshot();
    }

    /**
     * {@code show_mmp}: link layer per peer (what show_peers measures: SRTT, loss, ETX, goodput and delivery ratios
     * from the ReceiverReports, ecn_ce_count and jitter_trend from the peer's last one), session layer per established
     * session; each entry adds our {@code receiver{}} and {@code peer_report{}} figures (jitter, OWD trend, bursts,
     * reorder, CE).
     */
    @Override
    public JsonNode showMmp() {
        final String mode = node.config().config().node().mmp().mode().name().toLowerCase(Locale.ROOT);
        final ObjectNode data = ControlJson.MAPPER.createObjectNode();
        final ArrayNode peers = data.putArray("peers");
        // fqn: the link layer's LinkSnapshot and PeerSnapshot, beside ctl's records of the same names
        for (final net.fips.control.link.PeerSnapshot p : node.linkSnapshot().peers()) {
            final ObjectNode o = peers.addObject();
            o.put("peer", p.nodeAddr());
            o.put("display_name", displayName(p.npub()));
            o.put("mode", mode);
            final ObjectNode l = o.putObject("link_layer");
            l.put("loss_rate", p.deliveryForward() == null ? null : 1.0 - p.deliveryForward());
            l.put("etx", p.etx());
            l.put("goodput_bps", p.goodputBps());
            l.putNull("spin_bit_role");   // the spin bit is not implemented
            if (p.srttMicros() >= 0) {
                l.put("srtt_ms", p.srttMicros() / 1000.0);
            }
            l.put("delivery_ratio_forward", p.deliveryForward());
            l.put("delivery_ratio_reverse", p.deliveryReverse());
            final PeerReport.Figures report = p.peerReport();
            if (report != null) {
                l.put("jitter_trend", report.jitterTrend());
            }
            // The reference shows the CE count the peer last reported (of our frames); null before a report.
            if (report == null) {
                l.putNull("ecn_ce_count");
            } else {
                l.put("ecn_ce_count", report.ecnCeCount());
            }
            // Ours (no reference equivalent): our receiver's per-frame figures of the peer's frames, and the
            // peer-reported ones of ours.
            ReceiverFigures.putJson(o.putObject("receiver"), p.receiver());
            PeerReport.Figures.putJson(o.putObject("peer_report"), report);
        }
        data.set("sessions", node.loop().sessionsMmpSnapshot());
        return data;
    }


    @Override
    public List<LinkSnapshot> showLinks() {
        final long wallNow = System.currentTimeMillis();
        final List<LinkSnapshot> out = new ArrayList<>();
        // fqn: the link layer's LinkSnapshot and PeerSnapshot, beside ctl's records of the same names
        for (final net.fips.control.link.PeerSnapshot p : node.linkSnapshot().peers()) {
            out.add(new LinkSnapshot(p.linkId(), p.transportId(), p.address(), direction(p.direction()),
                    LinkState.CONNECTED, wallNow - p.linkAgeMs(), new LinkSnapshot.Stats(p.packetsOut(),
                    p.packetsIn(), p.bytesOut(), p.bytesIn(), wallNow - p.lastReceivedAgoMs()), p.replayDrops(),
                    p.decryptFailures(), p.rekeys()));
        }
        return out;
    }

    @Override
    public List<ConnectionSnapshot> showConnections() {
        final long wallNow = System.currentTimeMillis();
        final List<ConnectionSnapshot> out = new ArrayList<>();
        for (final DialSnapshot d : node.linkSnapshot().dials()) {
            // No link id exists before msg2; the dial's index identifies it instead.
            out.add(new ConnectionSnapshot(d.ourIndex(), LinkDirection.OUTBOUND, HandshakeState.SENT_MSG1,
                    wallNow - d.ageMs(), d.ageMs(), d.resends(), d.npub()));
        }
        return out;
    }

    private static TransportState stateOf(final Transport.State s) {
        return switch (s) {
            case CONFIGURED -> TransportState.CONFIGURED;
            case STARTING -> TransportState.STARTING;
            case UP -> TransportState.UP;
            case DOWN -> TransportState.DOWN;
            case FAILED -> TransportState.FAILED;
        };
    }

    /** show_status {@code peers_by_transport}: established peers per transport type name. */
    // fqn: the link layer's LinkSnapshot and PeerSnapshot, beside ctl's records of the same names
    private Map<String, Long> peersByTransportType(final net.fips.control.link.LinkSnapshot snap) {
        final Map<String, Long> out = new TreeMap<>();
        for (final Transport t : node.transports()) {
            out.putIfAbsent(t.typeName(), 0L);
        }
        for (final var p : snap.peers()) {
            final int id = p.transportId();
            if (id >= 0 && id < node.transports().size()) {
                out.merge(node.transports().get(id).typeName(), 1L, Long::sum);
            }
        }
        return out;
    }

    @Override
    public List<TransportSnapshot> showTransports() {
        final List<TransportSnapshot> out = new ArrayList<>();
        for (int i = 0; i < node.transports().size(); i++) {
            final Transport t = node.transports().get(i);
            if (t.bootstrapOnly() && t.state() == Transport.State.DOWN) {
                continue;   // a vacant NAT adoption slot (ADR 0046): the reference has no transport there yet
            }
            if (t instanceof TorTransport tor) {
                out.add(new TransportSnapshot(i, t.typeName(), stateOf(t.state()), t.mtu(), t.instanceName(),
                        t.localAddr() == null ? null : t.localAddr().toString(), tor.mode(), tor.onionAddress(),
                        node.transportMonitoring(i), t.stats()));
                continue;
            }
            out.add(new TransportSnapshot(i, t.typeName(), stateOf(t.state()), t.mtu(), t.instanceName(),
                    t.localAddr() == null ? null : t.localAddr().toString(), null, null, null, t.stats()));
        }
        return out;
    }

    @Override
    public AclSnapshot showAcl() {
        return AclSnapshot.of(node.acl());
    }

    @Override
    public ConnectResult connect(final String npub, final String address, final String transport)
            throws ControlException {
        final PeerIdentity peer;
        try {
            peer = PeerIdentity.parse(npub);
        } catch (final IdentityFormatException e) {
            throw new ControlException("invalid npub '" + npub + "': " + e.getMessage());
        }
        final TransportAddr to;
        final int tid;
        if (TransportTypes.UDP.equals(transport)) {
            final InetSocketAddress inet;
            try {
                inet = UdpAddresses.parse(address);
            } catch (final UdpTransportException e) {
                throw new ControlException("invalid address: " + e.getMessage());
            }
            tid = NodeSettings.transportFor(inet, node.transports());
            to = TransportAddr.ofInet(inet);
        } else if (TransportTypes.ETHERNET.equals(transport)) {
            final NodeSettings.Dial d;
            try {
                d = NodeSettings.ethernetDial(address, node.transports());
            } catch (final IllegalArgumentException e) {
                throw new ControlException("invalid address: " + e.getMessage());
            }
            tid = d.transportId();
            to = d.address();
        } else {
            tid = NodeSettings.transportOfType(transport, null, node.transports());
            to = TransportAddr.ofText(address);
        }
        if (tid < 0) {
            throw new ControlException(TransportTypes.rank(transport) < 0 ? "unsupported transport: " + transport
                    : "no " + transport + " transport can reach " + address);
        }
        if (!node.acl().decide(peer).allowed()) {
            throw new ControlException("peer denied by ACL: " + npub);
        }
        if (node.linkSnapshot().peer(peer.npub()) != null) {
            return new ConnectResult(npub, address, transport, true);
        }
        final LinkConductor conductor = node.conductor();
        submit(() -> {
            final LinkConductor.ConnectResult r = conductor.connect(peer, tid, to);
            LOG.log(Level.INFO, "control connect {0} at {1}: {2}", peer.shortNpub(), address, r);
        });
        return new ConnectResult(npub, address, transport);
    }

    @Override
    public DisconnectResult disconnect(final String npub) throws ControlException {
        final PeerIdentity peer;
        try {
            peer = PeerIdentity.parse(npub);
        } catch (final IdentityFormatException e) {
            throw ControlException.invalidNpub(npub, e.getMessage());
        }
        if (node.linkSnapshot().peer(peer.npub()) == null) {
            throw ControlException.peerNotFound(npub);
        }
        final LinkConductor conductor = node.conductor();
        submit(() -> {
            final boolean done = conductor.disconnect(peer);
            LOG.log(Level.INFO, "control disconnect {0}: {1}", peer.shortNpub(), done ? "done" : "not connected");
        });
        return new DisconnectResult(npub);
    }

    private void submit(final Runnable request) throws ControlException {
        if (node.state() != NodeState.RUNNING) {
            throw new ControlException("node shutting down");
        }
        if (!node.loop().submit(request)) {
            throw new ControlException("node busy: too many queued requests, try again");
        }
    }

    private String displayName(final String npub) {
        final String alias = node.displayNames().get(npub);
        if (alias != null) {
            return alias;
        }
        return shortNames.computeIfAbsent(npub, n -> {
            final String data = n.substring(5);
            return "npub1" + data.substring(0, 4) + "..." + data.substring(data.length() - 4);
        });
    }

    private static String ipv6Of(final String nodeAddrHex) {
        try {
            return FipsAddress.fromNodeAddr(NodeAddrs.parse(nodeAddrHex)).toString();
        } catch (final IdentityFormatException e) {
            return "-";
        }
    }

    private static LinkDirection direction(final String d) {
        return "outbound".equals(d) ? LinkDirection.OUTBOUND : LinkDirection.INBOUND;
    }

}
