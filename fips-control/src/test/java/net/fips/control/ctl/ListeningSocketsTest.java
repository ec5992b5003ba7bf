package net.fips.control.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.ArrayList;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import com.fasterxml.jackson.databind.JsonNode;

import net.fips.control.identity.FipsAddress;

/** {@code show_listening_sockets}: /proc parsing, the rendered shape, the bounded nft probe, and this host. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ListeningSocketsTest {

    /** fd12:3456:789a:bcde:f011:2233:4455:6677 */
    private static final byte[] FIPS0 = {(byte) 0xfd, 0x12, 0x34, 0x56, 0x78, (byte) 0x9a, (byte) 0xbc, (byte) 0xde,
        (byte) 0xf0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77};
    private static final String FIPS0_LE = "563412FDDEBC9A78332211F077665544";
    private static final String ZERO = "00000000000000000000000000000000";
    private static final String HEADER = "  sl  local_address                         remote_address"
            + "                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";

    private static String row(final int sl, final String local, final String remote, final String st,
                              final long inode) {
        return ("%4d: %s %s %s 00000000:00000000 00:00000000 00000000  1000        0 %d 1 0000000000000000 100 0 0"
                + " 10 0\n").formatted(sl, local, remote, st, inode);
    }

    /** Lines as a little-endian kernel prints them (x86-64). */
    private static final String TCP6 = HEADER
            + row(0, ZERO + ":0016", ZERO + ":0000", "0A", 1001)                           // [::]:22 listen
            + row(1, "00000000000000000000000001000000:0277", ZERO + ":0000", "0A", 1002)  // [::1]:631 listen
            + row(2, FIPS0_LE + ":1F90", ZERO + ":0000", "0A", 1003)                       // fips0:8080 listen
            + row(3, FIPS0_LE + ":1F90", "563412FD000000000000000001000000:C350", "01", 1004) // established
            + row(4, "0000000000000000FFFF000000000000:0050", ZERO + ":0000", "0A", 1005)  // ::ffff:0.0.0.0:80
            + "   5: garbage line\n";
    private static final String UDP6 = HEADER
            + row(0, ZERO + ":14EA", ZERO + ":0000", "07", 2001)                           // [::]:5354
            + row(1, ZERO + ":D431", FIPS0_LE + ":0849", "01", 2002);                      // connected: not a listener

    @Test
    void parsesKernelLinesAndKeepsOnlyWhatFips0Reaches() {
        final List<ListeningSockets.Socket> tcp = ListeningSockets.parseProcNet6(TCP6, ListeningSockets.Proto.TCP,
                FIPS0, ByteOrder.LITTLE_ENDIAN);
        assertEquals(2, tcp.size(), tcp.toString());
        assertEquals(22, tcp.get(0).port());
        assertTrue(tcp.get(0).wildcardBind());
        assertEquals(1001, tcp.get(0).inode());
        assertEquals(8080, tcp.get(1).port());
        assertEquals("fd12:3456:789a:bcde:f011:2233:4455:6677", FipsAddress.format(tcp.get(1).localAddr()));
        assertTrue(!tcp.get(1).wildcardBind());

        final List<ListeningSockets.Socket> udp = ListeningSockets.parseProcNet6(UDP6, ListeningSockets.Proto.UDP,
                FIPS0, ByteOrder.LITTLE_ENDIAN);
        assertEquals(1, udp.size(), udp.toString());
        assertEquals(5354, udp.get(0).port());

        // The same words on a big-endian host name another address: the fips0 row is not ours there.
        assertEquals(1, ListeningSockets.parseProcNet6(TCP6, ListeningSockets.Proto.TCP, FIPS0,
                ByteOrder.BIG_ENDIAN).size());
    }

    @Test
    void rendersTheReferenceShapeSortedByProtoPortPid() throws Exception {
        final List<ListeningSockets.Socket> rows = new ArrayList<>(ListeningSockets.parseProcNet6(UDP6,
                ListeningSockets.Proto.UDP, FIPS0, ByteOrder.LITTLE_ENDIAN));
        rows.addAll(ListeningSockets.parseProcNet6(TCP6, ListeningSockets.Proto.TCP, FIPS0, ByteOrder.LITTLE_ENDIAN));
        final JsonNode data = ListeningSockets.render(FIPS0, rows,
                Map.of(1001L, new ListeningSockets.Owner(812, "sshd")), ListeningSockets.Firewall.NONE);
        final JsonNode expected = ControlJson.MAPPER.readTree("""
                {"fips0_addr":"fd12:3456:789a:bcde:f011:2233:4455:6677","firewall_active":false,"sockets":[
                 {"proto":"tcp","local_addr":"::","port":22,"pid":812,"process":"sshd","filter":"no_firewall",
                  "wildcard_bind":true},
                 {"proto":"tcp","local_addr":"fd12:3456:789a:bcde:f011:2233:4455:6677","port":8080,"pid":null,
                  "process":null,"filter":"no_firewall","wildcard_bind":false},
                 {"proto":"udp","local_addr":"::","port":5354,"pid":null,"process":null,"filter":"no_firewall",
                  "wildcard_bind":true}]}""");
        assertEquals(expected, data, () -> ControlJson.pretty(data));
        assertEquals(Set.of("fips0_addr", "firewall_active", "sockets"), keys(data));
        for (final JsonNode s : data.get("sockets")) {
            assertEquals(Set.of("proto", "local_addr", "port", "pid", "process", "wildcard_bind", "filter"), keys(s));
        }
        final JsonNode unknown = ListeningSockets.render(FIPS0, rows, Map.of(), ListeningSockets.Firewall.UNKNOWN);
        assertTrue(unknown.get("firewall_active").isNull());
        assertEquals("unknown", unknown.get("sockets").get(0).get("filter").asText());
    }

    @Test
    void nftProbeIsBoundedAndReadsTheOutcome() {
        assertEquals(ListeningSockets.Firewall.NONE, ListeningSockets.probeNft(List.of("/nonexistent/nft")));
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/bin/sh")), "no /bin/sh");
        final ListeningSockets.Firewall listed = ListeningSockets.probeNft(List.of("/bin/sh", "-c",
                "printf '%s' '" + BASELINE_PLUS_DROPINS.replace("\n", " ") + "'"));
        assertEquals(Boolean.TRUE, listed.active());
        assertEquals("accept", listed.filter("tcp", 22));
        assertEquals("drop", listed.filter("tcp", 8080));
        final ListeningSockets.Firewall garbled = ListeningSockets.probeNft(List.of("/bin/sh", "-c", "echo '{'"));
        assertEquals(Boolean.TRUE, garbled.active());
        assertEquals("unknown", garbled.filter("tcp", 22));
        assertEquals(ListeningSockets.Firewall.NONE, ListeningSockets.probeNft(List.of("/bin/sh", "-c",
                "echo 'Error: No such file or directory' >&2; exit 1")));
        assertEquals(ListeningSockets.Firewall.UNKNOWN, ListeningSockets.probeNft(List.of("/bin/sh", "-c",
                "echo 'Error: Operation not permitted' >&2; exit 1")));
        final long t0 = System.nanoTime();
        assertEquals(ListeningSockets.Firewall.UNKNOWN, ListeningSockets.probeNft(List.of("/bin/sh", "-c",
                "exec sleep 30")));
        final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms < ListeningSockets.NFT_TIMEOUT_MS + 2_000, ms + " ms");
    }

    /**
     * The shipped baseline (operator.md §4.4) as {@code nft -j} lists it, with drop-ins: ssh open to all, 80 and
     * 443 as a set, a udp range, 5000 open to one source prefix only, and an explicit drop of 23.
     */
    private static final String BASELINE_PLUS_DROPINS = """
            {"nftables":[{"metainfo":{"version":"1.0.6","json_schema_version":1}},
             {"table":{"family":"inet","name":"fips","handle":7}},
             {"chain":{"family":"inet","table":"fips","name":"inbound","handle":1,"type":"filter","hook":"input",
              "prio":0,"policy":"accept"}},
             {"rule":{"family":"inet","table":"fips","chain":"inbound","handle":2,"expr":[
              {"match":{"op":"!=","left":{"meta":{"key":"iifname"}},"right":"fips0"}},{"return":null}]}},
             {"rule":{"family":"inet","table":"fips","chain":"inbound","handle":3,"expr":[
              {"match":{"op":"in","left":{"ct":{"key":"state"}},"right":["established","related"]}},
              {"accept":null}]}},
             {"rule":{"family":"inet","table":"fips","chain":"inbound","handle":4,"expr":[
              {"match":{"op":"==","left":{"meta":{"key":"nfproto"}},"right":"ipv6"}},
              {"match":{"op":"==","left":{"payload":{"protocol":"icmpv6","field":"type"}},"right":"echo-request"}},
              {"accept":null}]}},
             {"rule":{"family":"inet","table":"fips","chain":"inbound","handle":5,"expr":[
              {"match":{"op":"==","left":{"payload":{"protocol":"tcp","field":"dport"}},"right":22}},
              {"accept":null}]}},
             {"rule":{"family":"inet","table":"fips","chain":"inbound","handle":6,"expr":[
              {"match":{"op":"==","left":{"payload":{"protocol":"tcp","field":"dport"}},"right":{"set":[80,443]}}},
              {"counter":{"packets":0,"bytes":0}},{"accept":null}]}},
             {"rule":{"family":"inet","table":"fips","chain":"inbound","handle":7,"expr":[
              {"match":{"op":"==","left":{"meta":{"key":"l4proto"}},"right":"udp"}},
              {"match":{"op":"==","left":{"payload":{"protocol":"udp","field":"dport"}},"right":{"range":[6000,6010]}}},
              {"accept":null}]}},
             {"rule":{"family":"inet","table":"fips","chain":"inbound","handle":8,"expr":[
              {"match":{"op":"==","left":{"payload":{"protocol":"ip6","field":"saddr"}},
               "right":{"prefix":{"addr":"fd01::","len":64}}}},
              {"match":{"op":"==","left":{"payload":{"protocol":"tcp","field":"dport"}},"right":5000}},
              {"accept":null}]}},
             {"rule":{"family":"inet","table":"fips","chain":"inbound","handle":9,"expr":[
              {"match":{"op":"==","left":{"payload":{"protocol":"tcp","field":"dport"}},"right":23}},
              {"drop":null}]}},
             {"rule":{"family":"inet","table":"fips","chain":"inbound","handle":10,"expr":[
              {"counter":{"packets":3,"bytes":180}},{"drop":null}]}}]}
            """;

    @Test
    void classifiesPortsAgainstTheInboundChain() throws Exception {
        final NftInbound chain = NftInbound.parse(ControlJson.MAPPER.readTree(BASELINE_PLUS_DROPINS));
        assertEquals("accept", chain.classify("tcp", 22));
        assertEquals("drop", chain.classify("udp", 22), "the ssh rule is tcp only");
        assertEquals("accept", chain.classify("tcp", 443));
        assertEquals("accept", chain.classify("udp", 6005));
        assertEquals("drop", chain.classify("udp", 6011));
        assertEquals("unknown", chain.classify("tcp", 5000), "source-restricted: not open to everyone");
        assertEquals("drop", chain.classify("tcp", 23));
        assertEquals("drop", chain.classify("tcp", 8080), "falls through to counter drop");
        // Without a catch-all rule, falling off the chain is its policy.
        final NftInbound open = NftInbound.parse(ControlJson.MAPPER.readTree("""
                {"nftables":[{"chain":{"name":"inbound","policy":"accept"}},{"rule":{"chain":"inbound","expr":[
                 {"match":{"op":"==","left":{"payload":{"protocol":"tcp","field":"dport"}},"right":23}},
                 {"drop":null}]}}]}"""));
        assertEquals("accept", open.classify("tcp", 22));
        assertEquals("drop", open.classify("tcp", 23));
        final NftInbound named = NftInbound.parse(ControlJson.MAPPER.readTree("""
                {"nftables":[{"rule":{"chain":"inbound","expr":[
                 {"match":{"op":"==","left":{"payload":{"protocol":"tcp","field":"dport"}},"right":"@open"}},
                 {"accept":null}]}},{"rule":{"chain":"inbound","expr":[{"drop":null}]}}]}"""));
        assertEquals("unknown", named.classify("tcp", 22), "a named set cannot be read here");

        final JsonNode data = ListeningSockets.render(FIPS0, ListeningSockets.parseProcNet6(TCP6,
                ListeningSockets.Proto.TCP, FIPS0, ByteOrder.LITTLE_ENDIAN), Map.of(),
                new ListeningSockets.Firewall(true, chain));
        assertTrue(data.get("firewall_active").asBoolean());
        assertEquals("accept", data.get("sockets").get(0).get("filter").asText());
        assertEquals("drop", data.get("sockets").get(1).get("filter").asText());
    }

    @Test
    void findsThisProcessesWildcardListenerOnThisHost() throws Exception {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/net/tcp6")), "no /proc/net/tcp6");
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getByName("::"), 0));
            final JsonNode data = ListeningSockets.query(FIPS0);
            JsonNode mine = null;
            for (final JsonNode r : data.get("sockets")) {
                if (r.get("proto").asText().equals("tcp") && r.get("port").asInt() == s.getLocalPort()) {
                    mine = r;
                }
            }
            assertTrue(mine != null, () -> ControlJson.pretty(data));
            assertEquals(ProcessHandle.current().pid(), mine.get("pid").asLong(), mine::toString);
            assertEquals("::", mine.get("local_addr").asText());
            assertTrue(mine.get("wildcard_bind").asBoolean());
        }
    }

    private static Set<String> keys(final JsonNode n) {
        final Set<String> out = new TreeSet<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
