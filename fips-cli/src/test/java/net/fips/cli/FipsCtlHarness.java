package net.fips.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import com.fasterxml.jackson.databind.JsonNode;

import net.fips.control.ctl.AclSnapshot;
import net.fips.control.ctl.ConnectResult;
import net.fips.control.ctl.ConnectionSnapshot;
import net.fips.control.ctl.Connectivity;
import net.fips.control.ctl.ControlApi;
import net.fips.control.ctl.ControlException;
import net.fips.control.ctl.ControlJson;
import net.fips.control.ctl.ControlSocketServer;
import net.fips.control.ctl.DisconnectResult;
import net.fips.control.ctl.HandshakeState;
import net.fips.control.ctl.LinkDirection;
import net.fips.control.ctl.LinkSnapshot;
import net.fips.control.ctl.LinkState;
import net.fips.control.ctl.NodeState;
import net.fips.control.ctl.PeerSnapshot;
import net.fips.control.ctl.StatsView;
import net.fips.control.ctl.StatusSnapshot;
import net.fips.control.ctl.TransportSnapshot;
import net.fips.control.ctl.TransportState;
import net.fips.control.ctl.TunState;
import net.fips.control.ctl.UnconnectedPeer;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.metrics.NodeSample;
import net.fips.control.metrics.PeerSample;
import net.fips.control.metrics.StatsHistory;
import net.fips.control.mesh.MeshControl;
import net.fips.control.mesh.MeshSettings;
import net.fips.control.mesh.MeshSnapshot;

/**
 * The shared harness of the fipsctl tests (one test class per command family): a control socket server in a temp
 * dir in front of a small daemon stand-in, {@code fipsctl} run in process against it, and the terminal and plot
 * width pinned for each test.
 */
abstract class FipsCtlHarness {

    static final NodeIdentity SELF = NodeIdentity.generate();
    static final NodeIdentity PEER = NodeIdentity.generate();
    static final NodeIdentity DOWN = NodeIdentity.generate();
    private static final IntSupplier REAL_PLOT_COLUMNS = StatsTables.plotColumns;

    @TempDir
    Path dir;

    ControlSocketServer server;
    /** The history the fake daemon serves: the spec's example peer series (operator.md §2.4). */
    private final StatsHistory history = new StatsHistory();
    /** What the stand-in's {@code connect} received, in order. */
    final List<ConnectResult> connects = new CopyOnWriteArrayList<>();

    /** One run of fipsctl: its exit status and what it printed. */
    record Result(int code, String out, String err) {
    }

    /** A small daemon stand-in: one peer, one link, one handshake, one transport. */
    private final class Api implements ControlApi {
        @Override
        public StatusSnapshot showStatus() {
            return new StatusSnapshot("0.1.0-test", SELF.npub(), SELF.nodeAddr().toString(),
                    SELF.address().toString(), NodeState.RUNNING, false, 1, 0, 1, 1, 1, TunState.DISABLED, null,
                    1203, "/run/fips/control.sock", 42, null, 7, null, false, SELF.nodeAddr().toString(), true,
                    Map.of("udp", 1L), null, null);
        }

        @Override
        public List<PeerSnapshot> showPeers() {
            return List.of(new PeerSnapshot(PEER.nodeAddr().toString(), PEER.npub(), "alice",
                    PEER.address().toString(), Connectivity.CONNECTED, 3, 1, 2, true, true, 4, false, true,
                    "192.0.2.1:2121", LinkDirection.OUTBOUND, "udp", 1, 2.0, null, 0, 0, null, null, null, false,
                    false, false, null));
        }

        @Override
        public List<UnconnectedPeer> showUnconnectedPeers() {
            return List.of(new UnconnectedPeer(DOWN.npub(), "bob", DOWN.nodeAddr().toString(),
                    "retrying", "udp", "192.0.2.7:2121", 11_200L, 3),
                    new UnconnectedPeer(SELF.npub(), "carol", SELF.nodeAddr().toString(),
                            "connecting", "tcp", "192.0.2.8:443", null, null));
        }

        @Override
        public List<LinkSnapshot> showLinks() {
            return List.of(new LinkSnapshot(3, 1, "192.0.2.1:2121", LinkDirection.OUTBOUND, LinkState.CONNECTED,
                    1, new LinkSnapshot.Stats(10, 11, 1000, 1100, 5)));
        }

        @Override
        public List<ConnectionSnapshot> showConnections() {
            return List.of(new ConnectionSnapshot(9, LinkDirection.OUTBOUND, HandshakeState.SENT_MSG1, 1, 250, 2,
                    PEER.npub()));
        }

        @Override
        public List<TransportSnapshot> showTransports() {
            return List.of(new TransportSnapshot(1, "udp", TransportState.UP, 1472, null, "0.0.0.0:2121", null,
                    null, null, TransportSnapshot.udpStats(10, 1000, 11, 1100, 0, 0, 0, 0)));
        }

        @Override
        public AclSnapshot showAcl() {
            return new AclSnapshot("/etc/fips/peers.allow", "/etc/fips/peers.deny", false, "default_open", "allow",
                    false, false, null, null, null, null);
        }

        /** A lone node's routing state from the production renderer, on a fixed clock. */
        private MeshSnapshot lone() {
            final MeshControl m = new MeshControl(SELF,
                    MeshSettings.defaults(), (peer, msg) -> false,
                    MeshControl.TablePublisher.NONE, new Random(7),
                    () -> 1_784_470_000_000L, (k, d, sig) -> false, t -> 1280, 0);
            return m.snapshot(a -> a.shortHex(), 0, 1_784_470_000_000L);
        }

        @Override
        public JsonNode showTree() {
            return lone().tree();
        }

        @Override
        public JsonNode showBloom() {
            return lone().bloom();
        }

        @Override
        public JsonNode showCache() {
            return lone().cache();
        }

        @Override
        public JsonNode showRouting() {
            return lone().routing();
        }

        @Override
        public JsonNode showIdentityCache() {
            return lone().identityCache();
        }

        @Override
        public ConnectResult connect(final String npub, final String address, final String transport) {
            final ConnectResult r = new ConnectResult(npub, address, transport);
            connects.add(r);
            return r;
        }

        @Override
        public JsonNode showMetrics() {
            final var o = ControlJson.MAPPER.createObjectNode();
            o.putObject("forwarding").put("forwarded_packets", 5).putNull("forwarded_bytes");
            o.putObject("tree").put("parent_switches", 2);
            return o;
        }

        @Override
        public Optional<StatsView> stats() {
            return Optional.of(new StatsView(history, () -> 10 * StatsHistory.SAMPLE_NANOS,
                    n -> null, n -> n.equals(PEER.npub()) ? "alice" : n));
        }

        /** The daemon's config names PEER "carol" (as {@code peers[].alias}). */
        @Override
        public String resolvePeer(final String name) throws ControlException {
            return name.equalsIgnoreCase("carol") ? PEER.npub() : ControlApi.super.resolvePeer(name);
        }

        @Override
        public JsonNode showNostr() {
            try {
                return ControlJson.MAPPER.readTree("""
                    {"enabled":true,"npub":"npub1x","app":"fips-overlay-v1","policy":"configured_only",
                     "advertise":true,"relays":[{"url":"wss://relay.example","state":"connected",
                     "advert_relay":true,"dm_relay":true,"connects":2,"connect_failures":0,"disconnects":1,
                     "events_delivered":7,"events_invalid":0,"events_expired":0,"malformed_messages":0}],
                     "our_advert":{"endpoints":[{"transport":"udp","addr":"198.18.0.2:2121"}],
                     "last_publish_ms":1700000000000,"event_id":"ab","expires_at_ms":1700003600000,
                     "accepted_by":["wss://relay.example"],"relay_list_published_ms":1700000000000},
                     "adverts":[{"npub":"npub1peer","endpoints":[{"transport":"udp","addr":"198.18.0.3:2121"}],
                     "created_at":1700000000,"valid_until_ms":1700003600000,"event_id":"cd"}],
                     "dials":[{"npub":"npub1peer","display_name":"bob","configured":true,
                     "endpoint":"udp 198.18.0.3:2121","outcome":"linked","outcome_at_ms":1700000001000,"dials":1,
                     "consecutive_failures":0,"cooldown_until_ms":null}],
                     "traversals":[{"npub":"npub1nat","in_flight":false,"initiated":2,"answered":0,"established":1,
                     "failed":1,"last_outcome":"established","last_reason":null,"last_remote":"198.18.0.3:40000",
                     "last_at_ms":1700000002000}],"counters":{"adverts_stored":1}}""");
            } catch (final IOException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public JsonNode showLan() throws ControlException {
            try {
                return ControlJson.MAPPER.readTree("""
                    {"enabled":true,"running":true,"problem":null,"service_type":"_fips._udp.local.",
                     "instance_name":"fips-npub1abcdefghijk","scope":"fips-overlay-v1","port":2121,"interfaces":2,
                     "announcements_seen":7,"announcements_refused":1,"queue_dropped":0,"dials_started":1,
                     "peers":[{"npub":"npub1peer","address":"10.1.0.2:2121","scope":"fips-overlay-v1",
                      "present":true,"first_seen_ms_ago":9000,"last_seen_ms_ago":1200,"dials":1,
                      "last_dial":"linked"}]}""");
            } catch (final IOException e) {
                throw new ControlException(e.toString());
            }
        }

        @Override
        public JsonNode showListeningSockets() throws ControlException {
            try {
                return ControlJson.MAPPER.readTree("""
                    {"fips0_addr":"fd12::1","firewall_active":false,"sockets":[
                     {"proto":"tcp","local_addr":"::","port":22,"pid":812,"process":"sshd","filter":"no_firewall",
                      "wildcard_bind":true},
                     {"proto":"udp","local_addr":"fd12::1","port":5354,"pid":null,"process":null,
                      "filter":"no_firewall","wildcard_bind":false}]}""");
            } catch (final IOException e) {
                throw new ControlException(e.toString());
            }
        }

        @Override
        public DisconnectResult disconnect(final String npub) throws ControlException {
            if (!npub.equals(PEER.npub())) {
                throw ControlException.peerNotFound(npub);
            }
            return new DisconnectResult(npub);
        }
    }

    /** Fills the history and starts the control socket server. */
    @BeforeEach
    void start() throws Exception {
        final double[] srtt = {41.0, 41.3, Double.NaN, 40.9, 41.2};
        for (int t = 0; t < srtt.length; t++) {
            history.record(t * StatsHistory.SAMPLE_NANOS, new NodeSample(3, 1, 1, 0, 0, 0, 0, 0, Double.NaN,
                    Double.NaN), List.of(new PeerSample(PEER.nodeAddr().toString(), PEER.npub(), srtt[t],
                    Double.NaN, 0, 0, 0, 0, NodeSample.UNMEASURED)));
        }
        server = ControlSocketServer.start(dir.resolve("control.sock"), new Api());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    /** @return fipsctl run against the stand-in daemon, with the test's hosts file */
    Result run(final String... args) {
        final List<String> all = new ArrayList<>(List.of("--socket", server.path().toString(),
                "--hosts-file", dir.resolve("hosts").toString()));
        all.addAll(List.of(args));
        return runRaw(all.toArray(String[]::new));
    }

    @BeforeEach
    void onATerminal() {
        // Tables are what a person at a terminal gets; the pipe case is tested separately.
        FipsCtl.stdoutIsTerminal = () -> true;
        // Neither COLUMNS nor the real terminal decides a test's plot width.
        StatsTables.plotColumns = () -> StatsTables.DEFAULT_COLUMNS;
    }

    @AfterEach
    void realTerminalCheck() {
        FipsCtl.stdoutIsTerminal = () -> System.console() != null && System.console().isTerminal();
        StatsTables.plotColumns = REAL_PLOT_COLUMNS;
    }

    /** The same command line through picocli only, as before the quick path existed. */
    static Result runPicocli(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final var cl = CtlCommandLine.create();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        final int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    /** @return the command line through the quick path only ({@link QuickCtl#NOT_HANDLED} when it declines) */
    static Result runQuick(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = QuickCtl.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(code, out.toString(), err.toString());
    }

    /** @return the command line through {@link FipsCtl#run}, as the launcher runs it */
    static Result runRaw(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = FipsCtl.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(code, out.toString(), err.toString());
    }
}
