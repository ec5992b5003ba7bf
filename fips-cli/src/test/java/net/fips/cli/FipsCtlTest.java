package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.IntSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
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
import net.fips.control.identity.NodeIdentity;
import net.fips.control.metrics.NodeSample;
import net.fips.control.metrics.PeerSample;
import net.fips.control.metrics.StatsHistory;
import net.fips.control.ctl.UnconnectedPeer;
import net.fips.control.mesh.MeshControl;
import net.fips.control.mesh.MeshSettings;
import net.fips.control.mesh.MeshSnapshot;

/** fipsctl end to end, in process, against a control socket server in a temp dir. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FipsCtlTest {

    private static final NodeIdentity SELF = NodeIdentity.generate();
    private static final NodeIdentity PEER = NodeIdentity.generate();
    private static final NodeIdentity DOWN = NodeIdentity.generate();

    @TempDir
    Path dir;

    private ControlSocketServer server;
    /** The history the fake daemon serves: the spec's example peer series (operator.md §2.4). */
    private final StatsHistory history = new StatsHistory();
    private final List<ConnectResult> connects = new CopyOnWriteArrayList<>();

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

    private Result run(final String... args) {
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

    private static final IntSupplier REAL_PLOT_COLUMNS = StatsTables.plotColumns;

    /** The same command line through picocli only, as before the quick path existed. */
    private static Result runPicocli(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final var cl = CtlCommandLine.create();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        final int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    private static Result runQuick(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = QuickCtl.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void quickPathPrintsWhatPicocliPrintsForEveryQuery() {
        final String sock = server.path().toString();
        for (final boolean terminal : new boolean[] {true, false}) {
            FipsCtl.stdoutIsTerminal = () -> terminal;
            for (final Query q : Query.values()) {
                for (final String[] args : List.of(
                        new String[] {"-s", sock, q.group, q.name},
                        new String[] {"--socket=" + sock, "--json", q.group, q.name},
                        new String[] {"--socket", sock, "--hosts-file", "/nonexistent", q.group, "--table", q.name},
                        new String[] {"-s", sock, q.group, q.name, "--json"})) {
                    final Result quick = runQuick(args);
                    final Result picocli = runPicocli(args);
                    final String what = String.join(" ", args) + " (terminal " + terminal + ")";
                    assertTrue(quick.code() != QuickCtl.NOT_HANDLED, "quick path declined " + what);
                    assertEquals(picocli, quick, what);
                    // The stand-in daemon answers most queries; the others are its refusal, the same both ways.
                    assertTrue(quick.code() == 0 ? !quick.out().isBlank() : quick.err().startsWith("error: "),
                            what + ": " + quick);
                }
            }
        }
    }

    @Test
    void quickPathLeavesEverythingElseToPicocli() {
        final String sock = server.path().toString();
        for (final String[] args : List.of(
                new String[] {}, new String[] {"show"}, new String[] {"show", "nonsense"},
                new String[] {"-s", sock, "show", "status", "--help"}, new String[] {"-h"}, new String[] {"-V"},
                new String[] {"--json", "--table", "show", "status"}, new String[] {"show", "status", "extra"},
                new String[] {"show", "status", "--json", "--json"}, new String[] {"-s"},
                new String[] {"-s", sock, "-s", sock, "show", "status"}, new String[] {"-s", "--json", "show", "peers"},
                new String[] {"-s" + sock, "show", "status"}, new String[] {"--", "show", "status"},
                new String[] {"@args", "show"}, new String[] {"show", "-s", sock, "status"},
                new String[] {"stats", "history", "srtt"}, new String[] {"connect", "npub1x", "1.2.3.4:1"},
                new String[] {"top"}, new String[] {"acl", "show", "--bogus"})) {
            assertEquals(new Result(QuickCtl.NOT_HANDLED, "", ""), runQuick(args), String.join(" ", args));
        }
    }

    @Test
    void quickPathReportsAMissingDaemonAsPicocliDoes() {
        final String[] args = {"-s", dir.resolve("absent.sock").toString(), "show", "peers"};
        final Result quick = runQuick(args);
        assertEquals(runPicocli(args), quick);
        assertEquals(FipsCtl.EXIT_NO_DAEMON, quick.code());
        assertTrue(quick.err().startsWith("error: cannot connect to "), quick.err());
    }

    @Test
    void pipesGetTheReferencesPrettyJsonAndTableForcesATable() throws Exception {
        FipsCtl.stdoutIsTerminal = () -> false;
        final Result piped = run("show", "status");
        assertEquals(0, piped.code(), piped.err());
        assertEquals(run("show", "status", "--json").out(), piped.out());
        assertEquals("running", ControlJson.MAPPER.readTree(piped.out()).get("state").asText());
        final Result forced = run("show", "status", "--table");
        assertTrue(forced.out().matches("(?s).*state:\\s+running.*"), forced.out());
        final Result both = run("show", "status", "--table", "--json");
        assertEquals(FipsCtl.EXIT_USAGE, both.code(), both.out() + both.err());
        final JsonNode tree = ControlJson.MAPPER.readTree(run("show", "tree").out());
        assertTrue(tree.get("is_root").asBoolean());
    }

    @Test
    void everyLeafCommandHasHelp() {
        for (final String[] leaf : new String[][] {{"show", "status"}, {"show", "peers"}, {"show", "links"},
            {"show", "connections"}, {"show", "transports"}, {"show", "tree"}, {"show", "bloom"}, {"show", "cache"},
            {"show", "routing"}, {"show", "identity-cache"}, {"acl", "show"}, {"stats", "list"}, {"stats", "metrics"},
            {"stats", "peers"}, {"stats", "history"}, {"connect"}, {"disconnect"}, {"keygen"}, {"completion"}}) {
            final String[] args = Arrays.copyOf(leaf, leaf.length + 1);
            args[leaf.length] = "--help";
            final Result r = runRaw(args);
            assertEquals(0, r.code(), String.join(" ", args) + ": " + r.err());
            assertTrue(r.out().startsWith("Usage: fipsctl " + String.join(" ", leaf)), r.out());
        }
    }

    @Test
    void routingTables() throws Exception {
        final Result tree = run("show", "tree");
        assertEquals(0, tree.code(), tree.err());
        assertTrue(tree.out().matches("(?s).*is_root:\\s+true.*"), tree.out());
        assertTrue(tree.out().contains("(no peer has a tree position)"), tree.out());
        assertTrue(run("show", "bloom").out().contains("own_node_addr:"));
        assertTrue(run("show", "cache").out().contains("(no cached coordinates)"));
        final Result routing = run("show", "routing");
        assertTrue(routing.out().contains("(no lookups pending)") && routing.out().contains("discovery: req_"),
                routing.out());
        final Result ids = run("show", "identity-cache");
        assertTrue(ids.out().contains("(no known identities)") && ids.out().contains("max_entries:"), ids.out());
    }

    private static Result runRaw(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = FipsCtl.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void showStatusTableAndJson() throws Exception {
        final Result table = run("show", "status");
        assertEquals(0, table.code(), table.err());
        assertTrue(table.out().contains("state:"), table.out());
        assertTrue(table.out().matches("(?s).*state:\\s+running.*"), table.out());
        assertTrue(table.out().contains(SELF.npub()));
        assertTrue(table.out().contains("udp=1"));

        final Result before = run("--json", "show", "status");
        final Result after = run("show", "status", "--json");
        assertEquals(0, before.code());
        assertEquals(before.out(), after.out());
        final JsonNode data = ControlJson.MAPPER.readTree(before.out());
        assertEquals("running", data.get("state").asText());
        assertTrue(data.get("estimated_mesh_size").isNull());
        // Pretty JSON in the reference client's layout.
        assertTrue(before.out().startsWith("{\n  \"version\": \"0.1.0-test\",\n"), before.out());
        assertTrue(before.out().contains("\"bytes_in\": []"), before.out());
    }

    @Test
    void listTables() throws Exception {
        final Result peers = run("show", "peers");
        assertEquals(0, peers.code(), peers.err());
        final String[] lines = peers.out().split("\n");
        assertTrue(lines[0].startsWith("NAME") && lines[0].contains("NPUB") && lines[0].contains("SRTT_MS"));
        assertTrue(lines[1].startsWith("alice") && lines[1].contains(PEER.npub()) && lines[1].contains("child"),
                lines[1]);
        // Configured peers that are down are listed too, with their state (issue 19).
        assertTrue(lines[2].matches("bob\\s+" + DOWN.npub() + "\\s+retry in 12s\\s+udp\\s+192\\.0\\.2\\.7:2121\\s+-.*"),
                lines[2]);
        assertTrue(lines[3].matches("carol\\s+\\S+\\s+connecting\\s+tcp\\s+192\\.0\\.2\\.8:443\\s+-.*"), lines[3]);

        assertTrue(run("show", "links").out().contains("192.0.2.1:2121"));
        final Result conns = run("show", "connections");
        assertTrue(conns.out().contains("sent_msg1") && conns.out().contains("250"), conns.out());
        final Result tr = run("show", "transports");
        assertTrue(tr.out().contains("kernel_drops=0") && tr.out().contains("0.0.0.0:2121"), tr.out());
        final Result acl = run("acl", "show");
        assertTrue(acl.out().matches("(?s).*effective_mode:\\s+default_open.*"), acl.out());

        final JsonNode json = ControlJson.MAPPER.readTree(run("show", "peers", "--json").out());
        assertEquals("alice", json.get("peers").get(0).get("display_name").asText());
        assertEquals(1, json.get("peers").size(), "the reference's list keeps established peers only");
        final JsonNode bob = json.get("not_connected").get(0);
        assertEquals("retrying", bob.get("state").asText());
        assertEquals(11_200, bob.get("retry_in_ms").asLong());
        assertEquals(3, bob.get("failed_attempts").asInt());
        assertFalse(json.get("not_connected").get(1).has("retry_in_ms"));
    }

    @Test
    void listeningSocketsTableAndJson() throws Exception {
        final Result t = run("show", "listening-sockets");
        assertEquals(0, t.code(), t.err());
        final String[] lines = t.out().split("\n");
        assertEquals("fips0 fd12::1, firewall (inet fips): not active", lines[0]);
        assertTrue(lines[1].startsWith("PROTO") && lines[1].contains("FILTER") && lines[1].contains("PROCESS"),
                lines[1]);
        assertTrue(lines[2].matches("tcp\\s+::\\s+22\\s+wildcard\\s+no_firewall\\s+812\\s+sshd"), lines[2]);
        assertTrue(lines[3].matches("udp\\s+fd12::1\\s+5354\\s+fips0\\s+no_firewall\\s+-\\s+-"), lines[3]);
        final JsonNode json = ControlJson.MAPPER.readTree(run("show", "listening-sockets", "--json").out());
        assertEquals(2, json.get("sockets").size());
        assertTrue(json.get("sockets").get(1).get("pid").isNull());
    }

    @Test
    void nostrTableAndJson() throws Exception {
        final Result t = run("show", "nostr");
        assertEquals(0, t.code(), t.err());
        final String[] lines = t.out().split("\n");
        assertEquals("policy configured_only, app fips-overlay-v1, advertise true", lines[0]);
        assertEquals("our advert: udp 198.18.0.2:2121; last publish 1700000000000 ms, expires 1700003600000 ms",
                lines[1]);
        assertTrue(t.out().contains("wss://relay.example"), t.out());
        assertTrue(Arrays.stream(lines).anyMatch(l -> l.matches(
                "bob\\s+udp 198.18.0.3:2121\\s+linked\\s+0\\s+-")), t.out());
        assertTrue(Arrays.stream(lines).anyMatch(l -> l.matches(
                "npub1nat\\s+no\\s+2\\s+0\\s+1\\s+1\\s+established\\s+-\\s+198.18.0.3:40000")), t.out());
        final JsonNode json = ControlJson.MAPPER.readTree(run("show", "nostr", "--json").out());
        assertEquals("connected", json.get("relays").get(0).get("state").asText());
    }

    @Test
    void lanTableAndJson() throws Exception {
        final Result t = run("show", "lan");
        assertEquals(0, t.code(), t.err());
        final String[] lines = t.out().split("\n");
        assertEquals("LAN discovery: _fips._udp.local. as fips-npub1abcdefghijk, port 2121, scope fips-overlay-v1,"
                + " 2 interface address(es)", lines[0]);
        assertEquals("announcements seen 7, refused 1, dropped 0, dials started 1", lines[1]);
        assertTrue(lines[2].startsWith("NPUB") && lines[2].contains("LAST_SEEN_MS_AGO"), lines[2]);
        assertTrue(lines[3].matches("npub1peer\\s+10\\.1\\.0\\.2:2121\\s+fips-overlay-v1\\s+yes\\s+1200\\s+1"
                + "\\s+linked"), lines[3]);
        final JsonNode json = ControlJson.MAPPER.readTree(run("show", "lan", "--json").out());
        assertEquals("npub1peer", json.get("peers").get(0).get("npub").asText());
    }

    @Test
    void connectSendsTheReferenceParams() throws Exception {
        final String npub = PEER.npub();
        assertEquals(0, run("connect", npub, "192.0.2.7:2121").code());
        assertEquals(0, run("connect", npub, "192.0.2.7:8443", "tcp").code());
        assertEquals(0, run("connect", npub, "192.0.2.7:8443", "--transport", "tcp").code());
        assertEquals(List.of(new ConnectResult(npub, "192.0.2.7:2121", "udp"),
                new ConnectResult(npub, "192.0.2.7:8443", "tcp"),
                new ConnectResult(npub, "192.0.2.7:8443", "tcp")), connects);

        final Result json = run("connect", npub, "192.0.2.7:2121", "udp", "--json");
        assertEquals("192.0.2.7:2121", ControlJson.MAPPER.readTree(json.out()).get("address").asText());
    }

    @Test
    void connectRefusesMeshAddressesLocally() {
        for (final String addr : List.of("fd9d:abcd::1", "[fd00::1]:2121", "fd9d:abcd::1:2121")) {
            final Result r = run("connect", PEER.npub(), addr, "udp");
            assertEquals(1, r.code(), addr);
            assertTrue(r.err().contains("FIPS mesh address (fd00::/8)"), r.err());
        }
        assertTrue(connects.isEmpty());
        // Other transports are not checked, and non-mesh IPv6 is fine.
        assertEquals(0, run("connect", PEER.npub(), "fd9d::1:2121", "tor").code());
        assertEquals(0, run("connect", PEER.npub(), "[2001:db8::1]:2121").code());
        assertFalse(ConnectCommand.isMeshAddress("peer.example.com:2121"));
        assertFalse(ConnectCommand.isMeshAddress("fc00::1"));
    }

    @Test
    void peerNamesComeFromTheHostsFile() throws Exception {
        Files.writeString(dir.resolve("hosts"), "# test roster\nAlice " + PEER.npub() + "\nbroken line here\n");
        assertEquals(0, run("connect", "alice", "192.0.2.7:2121").code());
        assertEquals(PEER.npub(), connects.get(0).npub());
        final Result unknown = run("disconnect", "bob");
        assertEquals(1, unknown.code());
        assertTrue(unknown.err().startsWith("error: unknown host 'bob'"), unknown.err());
        final Result ok = run("disconnect", "ALICE");
        assertEquals(0, ok.code(), ok.err());
        assertEquals("disconnected: " + PEER.npub(), ok.out().strip());
    }

    @Test
    void peerNamesFallBackToTheDaemonsConfigAliases() throws Exception {
        // Not an npub and not in the (missing) hosts file: the daemon resolves "carol" from its config.
        assertEquals(0, run("connect", "carol", "192.0.2.7:2121").code());
        assertEquals(PEER.npub(), connects.get(0).npub());
        final Result ok = run("disconnect", "Carol");
        assertEquals(0, ok.code(), ok.err());
        assertEquals("disconnected: " + PEER.npub(), ok.out().strip());
        final Result h = run("stats", "history", "srtt_ms", "--peer", "carol", "--window", "5s", "--json");
        assertEquals(0, h.code(), h.err());
        assertEquals(5, ControlJson.MAPPER.readTree(h.out()).get("values").size());
        // The hosts file wins over a daemon alias of the same name.
        Files.writeString(dir.resolve("hosts"), "carol " + SELF.npub() + "\n");
        assertEquals(1, run("disconnect", "carol").code(), "SELF is not a peer: the hosts entry was used");
        final Result unknown = run("stats", "history", "srtt_ms", "--peer", "dave");
        assertEquals(1, unknown.code());
        assertTrue(unknown.err().startsWith("error: unknown host 'dave': not an npub, and not a peer alias"),
                unknown.err());
    }

    @Test
    void statsHistoryPlotIsTheReferencesThreeLines() throws Exception {
        Files.writeString(dir.resolve("hosts"), "alice " + PEER.npub() + "\n");
        final Result plot = run("stats", "history", "srtt_ms", "--peer", "alice", "--window", "5s", "--plot");
        assertEquals(0, plot.code(), plot.err());
        // operator.md §3.2's three lines for the §2.4 example series [41.0, 41.3, null, 40.9, 41.2].
        assertEquals("srtt_ms (ms) — 5 samples @ 1s = 5s window (1 gaps)\n"
                + "  min=40.900 max=41.300 last=41.200\n"
                + "  ▃█ ▁▆\n", plot.out());
        // --plot wins over a pipe, as in the reference.
        FipsCtl.stdoutIsTerminal = () -> false;
        assertEquals(plot.out(), run("stats", "history", "srtt_ms", "--peer", PEER.npub(), "--window", "5s",
                "--plot").out());
        final JsonNode json = ControlJson.MAPPER.readTree(run("stats", "history", "srtt_ms", "--peer", "alice",
                "--window", "5s").out());
        assertEquals(ControlJson.MAPPER.readTree("{\"metric\":\"srtt_ms\",\"unit\":\"ms\","
                + "\"granularity_seconds\":1,\"values\":[41.0,41.3,null,40.9,41.2]}"), json);
        final Result unknown = run("stats", "history", "srtt_ms", "--peer", "bob");
        assertEquals(1, unknown.code());
        final Result untracked = run("stats", "history", "srtt_ms", "--peer", SELF.npub());
        assertEquals(1, untracked.code());
        assertTrue(untracked.err().startsWith("error: peer not tracked in stats history: "), untracked.err());
    }

    @Test
    void statsTablesOnATerminal() {
        final Result list = run("stats", "list");
        assertEquals(0, list.code(), list.err());
        assertTrue(list.out().matches("(?s)METRIC\\s+SCOPE\\s+UNIT\n.*ecn_ce\\s+peer\\s+events/s\n.*"), list.out());
        assertTrue(list.out().contains("rings: 3600 x 1 s, 1440 x 1 min"), list.out());
        final Result metrics = run("stats", "metrics");
        assertTrue(metrics.out().contains("forwarding: forwarded_packets=5 forwarded_bytes=-"), metrics.out());
        assertTrue(metrics.out().contains("tree: parent_switches=2"), metrics.out());
        final Result peers = run("stats", "peers");
        assertTrue(peers.out().matches("(?s)NAME\\s+NPUB\\s+ACTIVE.*\nalice\\s+" + PEER.npub()
                + "\\s+yes\\s+10\\s+6\n?"), peers.out());
        final Result history = run("stats", "history", "mesh_size", "--window", "3s");
        assertTrue(history.out().startsWith("mesh_size (nodes) — 3 samples @ 1s = 3s window\n  min=3.000 max=3.000"
                + " last=3.000\n  ▄▄▄\n\nAGE  VALUE\n-2s  3.000\n-1s  3.000\n-0s  3.000\n"), history.out());
        // A metric of the other scope says so, before asking the daemon (which only knows "unknown metric").
        final Result noPeer = run("stats", "history", "srtt_ms");
        assertEquals(64, noPeer.code());
        assertTrue(noPeer.err().startsWith("srtt_ms is a per-peer metric: add --peer PEER"), noPeer.err());
        final Result nodeWithPeer = run("stats", "history", "mesh_size", "--peer", PEER.npub());
        assertEquals(64, nodeWithPeer.code());
        assertTrue(nodeWithPeer.err().startsWith("mesh_size is a node metric: leave out --peer"), nodeWithPeer.err());
        assertEquals(0, run("stats", "history", "bytes_in", "--window", "3s").code(), "in both scopes: node");
        final Result bad = run("stats", "history", "mesh_size", "--granularity", "5m");
        assertEquals(1, bad.code());
        assertEquals("error: unknown granularity: 5m (expected 1s or 1m)", bad.err().strip());
    }

    @Test
    void daemonErrorExitsOne() {
        final String other = SELF.npub();
        final Result r = run("disconnect", other);
        assertEquals(1, r.code());
        assertEquals("error: peer not found: " + other, r.err().strip());
        assertEquals("", r.out());
    }

    @Test
    void noDaemonExitsTwoAndNamesTheSocket() {
        final Path missing = dir.resolve("nope.sock");
        final Result r = runRaw("--socket", missing.toString(), "show", "status");
        assertEquals(2, r.code());
        assertTrue(r.err().contains(missing.toString()), r.err());
        assertTrue(r.err().contains("Is the FIPS daemon running?"), r.err());
    }

    @Test
    void keygenPrintsAMatchingPairOrWritesFiles() throws Exception {
        final Result r = runRaw("keygen", "--stdout");
        assertEquals(0, r.code());
        final String[] lines = r.out().strip().split("\n");
        assertEquals(2, lines.length);
        assertEquals(lines[1], NodeIdentity.fromNsec(lines[0]).npub());

        final Path keys = dir.resolve("keys");
        final Result w = runRaw("keygen", "-d", keys.toString());
        assertEquals(0, w.code(), w.err());
        final NodeIdentity id = NodeIdentity.fromNsec(Files.readString(keys.resolve("fips.key")).strip());
        assertEquals(id.npub() + "\n", Files.readString(keys.resolve("fips.pub")));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
                keys.resolve("fips.key"))));
        assertTrue(w.err().startsWith(id.npub()), w.err());

        final Result again = runRaw("keygen", "-d", keys.toString());
        assertEquals(1, again.code());
        assertTrue(again.err().contains("key file already exists"), again.err());
        assertEquals(0, runRaw("keygen", "-d", keys.toString(), "--force").code());
        assertFalse(Files.readString(keys.resolve("fips.key")).strip().equals(id.nsec()));
    }

    @Test
    void completionHelpAndUsage() {
        final Result c = runRaw("completion");
        assertEquals(0, c.code());
        assertTrue(c.out().contains("complete -F") && c.out().contains("fipsctl"), c.out());
        final Result h = runRaw("--help");
        assertEquals(0, h.code());
        assertTrue(h.out().contains("--json") && h.out().contains("Exit status"), h.out());
        assertEquals(FipsCtl.EXIT_USAGE, runRaw("show", "bogus").code());
        assertEquals(FipsCtl.EXIT_USAGE, runRaw().code());
    }
}
