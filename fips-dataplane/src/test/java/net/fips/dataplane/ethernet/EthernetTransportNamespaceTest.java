package net.fips.dataplane.ethernet;

import static net.fips.testing.NamespaceProbes.LINE_WAIT_S;
import static net.fips.testing.NamespaceProbes.expect;
import static net.fips.testing.NamespaceProbes.isRoot;
import static net.fips.testing.NamespaceProbes.lines;
import static net.fips.testing.NamespaceProbes.run;
import static net.fips.testing.NamespaceProbes.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.TreeSet;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.testing.NamespaceProbes;
import net.fips.testing.NamespaceProbes.Run;
import net.fips.ffm.linux.Syscalls;

/**
 * The Ethernet transport against the real kernel (transports.md §8.4): {@link EthernetProbe} child JVMs in fresh,
 * uniquely named network namespaces ({@code ip netns exec}), joined by a veth pair or by veth ports of a bridge in
 * a fourth namespace, driven line by line. Nothing is created in the caller's namespace and every namespace is
 * deleted after each test (which removes its links). Skips unless root with iproute2.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EthernetTransportNamespaceTest {
    private static final String KEY_A = "aa".repeat(32);
    private static final String KEY_B = "bb".repeat(32);
    private static final String KEY_C = "cc".repeat(32);
    private static final String MAC_A = "02:00:5e:00:00:0a";
    private static final String MAC_B = "02:00:5e:00:00:0b";
    private static final String MAC_C = "02:00:5e:00:00:0c";

    private final List<Process> children = new ArrayList<>();
    private final List<String> namespaces = new ArrayList<>();
    private final String tag = Long.toHexString(new Random().nextLong() & 0xffffffffL);

    /** One probe process. */
    private final class Probe {
        final Process process;
        final BlockingQueue<String> out;

        Probe(final String ns, final List<String> wrapper, final String... args) throws IOException {
            process = startProbe(ns, wrapper, args);
            out = lines(process);
        }

        String cmd(final String line, final String resultPrefix) throws Exception {
            send(process, line);
            return expect(out, resultPrefix);
        }

        /** Runs a command and returns every line up to and including its result. */
        List<String> cmdAll(final String line, final String resultPrefix) throws Exception {
            send(process, line);
            final List<String> got = new ArrayList<>();
            while (true) {
                final String l = out.poll(LINE_WAIT_S, TimeUnit.SECONDS);
                assertNotNull(l, "no '" + resultPrefix + "' after " + line + "; so far " + got);
                assertFalse(l.equals("<EOF>"), "probe ended during " + line + ": " + got);
                got.add(l);
                if (l.startsWith(resultPrefix)) {
                    return got;
                }
            }
        }

        Map<String, Long> counters() throws Exception {
            final String l = cmd("COUNTERS", "COUNTERS ");
            final Map<String, Long> m = new TreeMap<>();
            final Matcher x = Pattern.compile("(\\w+)=(\\d+)").matcher(l);
            while (x.find()) {
                m.put(x.group(1), Long.parseLong(x.group(2)));
            }
            return m;
        }

        void exit() throws Exception {
            cmd("EXIT", "BYE");
            assertTrue(process.waitFor(LINE_WAIT_S, TimeUnit.SECONDS), "probe exits");
        }
    }

    // ---------------------------------------------------------------- two namespaces, one veth pair

    @Test
    void twoNamespacesOverVeth() throws Exception {
        final String a = newNamespace("a");
        final String b = newNamespace("b");
        ip("-n", a, "link", "add", "fe0", "address", MAC_A, "type", "veth", "peer", "name", "fe0", "netns", b,
                "address", MAC_B);
        ip("-n", a, "link", "set", "fe0", "up");
        ip("-n", b, "link", "set", "fe0", "up");

        final Probe pa = new Probe(a, List.of(), "fe0", KEY_A);
        final Probe pb = new Probe(b, List.of(), "fe0", "-");
        final String openA = expect(pa.out, "OPEN ");
        assertTrue(openA.contains("mac=" + MAC_A) && openA.contains(" mtu=1497 ") && openA.contains("ifmtu=1500"),
                "MTU is interface MTU - 3: " + openA);
        expect(pb.out, "OPEN ");

        // A beacon arrives and is kept with A's MAC and key; the sender does not hear itself.
        assertEquals("BEACON rc=0", pa.cmd("BEACON", "BEACON "));
        pb.cmd("RECV 0 300", "RECVD ");
        final List<String> drained = pb.cmdAll("DRAIN", "DRAINED ");
        assertEquals(List.of("DISCOVERED mac=" + MAC_A + " key=" + KEY_A, "DRAINED 1"), drained);
        assertEquals("DRAINED 0", pb.cmd("DRAIN", "DRAINED "), "drained means gone");
        pa.cmd("RECV 0 200", "RECVD ");
        assertEquals(0, pa.counters().get("beacons_recv"), "no loop-back of our own beacon");
        assertEquals(1, pa.counters().get("beacons_sent"));
        assertEquals(1, pb.counters().get("beacons_recv"));

        // A 7-byte packet arrives as 7 bytes with A as the source.
        assertEquals("SENT 1", pa.cmd("SEND " + MAC_B + " 01020304050607", "SENT "));
        List<String> r = pb.cmdAll("RECV 1 5000", "RECVD ");
        assertEquals(List.of("FRAME src=" + MAC_A + " len=7 hex=01020304050607", "RECVD 1"), r);

        // Padding: [00][len=4][4 bytes] + 40 zero bytes (what a real NIC sends) delivers exactly 4 bytes.
        assertEquals("RAW rc=47", pa.cmd("RAW " + MAC_B + " 000400deadbeef" + "00".repeat(40), "RAW "));
        r = pb.cmdAll("RECV 1 5000", "RECVD ");
        assertEquals(List.of("FRAME src=" + MAC_A + " len=4 hex=deadbeef", "RECVD 1"), r);

        // Malformed frames are counted drops, never delivered.
        pa.cmd("RAW " + MAC_B + " 00ff0001", "RAW ");                       // length beyond the frame
        pa.cmd("RAW " + MAC_B + " 0001", "RAW ");                           // header cut off
        pa.cmd("RAW " + MAC_B + " 07aabbcc", "RAW ");                       // unknown type
        pa.cmd("RAW " + MAC_B + " 0102" + KEY_C, "RAW ");                   // beacon version 2
        pa.cmd("RAW " + MAC_B + " 0101" + "cc".repeat(20), "RAW ");         // beacon cut short
        assertEquals("RECVD 0", pb.cmd("RECV 0 300", "RECVD "));
        Map<String, Long> cb = pb.counters();
        assertEquals(2, cb.get("frames_too_short"), cb.toString());
        assertEquals(1, cb.get("frames_unknown_type"), cb.toString());
        assertEquals(2, cb.get("beacons_malformed"), cb.toString());
        assertEquals(3, cb.get("beacons_recv"), cb.toString());
        assertEquals("DRAINED 0", pb.cmd("DRAIN", "DRAINED "), "malformed beacons are not discoveries");

        // MTU: 1497 goes, 1498 is refused before the kernel and counted.
        assertEquals("SENT 0", pa.cmd("SEND " + MAC_B + " " + "ab".repeat(1498), "SENT "));
        assertEquals(1, pa.counters().get("mtu_exceeded"));
        assertEquals("SENT 1", pa.cmd("SEND " + MAC_B + " " + "ab".repeat(1497), "SENT "));
        r = pb.cmdAll("RECV 1 5000", "RECVD ");
        assertTrue(r.get(0).startsWith("FRAME src=" + MAC_A + " len=1497 "), r.toString());

        // One sendmmsg of 100 frames: all arrive, in order.
        assertEquals("SENT 100", pa.cmd("SEND " + MAC_B + " " + "00".repeat(100) + " 100", "SENT "));
        r = pb.cmdAll("RECV 100 10000", "RECVD ");
        assertEquals("RECVD 100", r.get(r.size() - 1), r.toString());
        for (int i = 0; i < 100; i++) {
            assertTrue(r.get(i).startsWith("FRAME src=" + MAC_A + " len=100 hex=" + String.format("%08x", i)),
                    "frame " + i + ": " + r.get(i));
        }

        // A frame for another MAC (seen by a promiscuous interface) is dropped and counted.
        ip("-n", b, "link", "set", "fe0", "promisc", "on");
        final long otherBefore = pb.counters().get("frames_other_host");
        pa.cmd("SEND 02:00:5e:00:00:99 0102030405", "SENT ");
        assertEquals("RECVD 0", pb.cmd("RECV 1 500", "RECVD "));
        assertTrue(pb.counters().get("frames_other_host") > otherBefore, "counted as other host");

        final Map<String, Long> ca = pa.counters();
        assertEquals(103, ca.get("frames_sent"), ca.toString());
        assertEquals(7 + 1497 + 100 * 100 + 5, ca.get("bytes_sent"), ca.toString());
        cb = pb.counters();
        assertEquals(103, cb.get("frames_recv"), cb.toString());
        assertEquals(7 + 4 + 1497 + 100 * 100, cb.get("bytes_recv"), cb.toString());
        pa.exit();
        pb.exit();
    }

    // ---------------------------------------------------------------- three namespaces on one bridge

    @Test
    void threeNamespacesOnOneBridge() throws Exception {
        final String br = newNamespace("br");
        ip("-n", br, "link", "add", "br0", "type", "bridge");
        ip("-n", br, "link", "set", "br0", "up");
        final String[][] nodes = {{newNamespace("a"), MAC_A, KEY_A}, {newNamespace("b"), MAC_B, KEY_B},
                {newNamespace("c"), MAC_C, KEY_C}};
        final List<Probe> probes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            final String ns = nodes[i][0];
            ip("-n", ns, "link", "add", "fe0", "address", nodes[i][1], "type", "veth", "peer", "name", "p" + i,
                    "netns", br);
            ip("-n", br, "link", "set", "p" + i, "master", "br0");
            ip("-n", br, "link", "set", "p" + i, "up");
            ip("-n", ns, "link", "set", "fe0", "up");
        }
        for (int i = 0; i < 3; i++) {
            final Probe p = new Probe(nodes[i][0], List.of(), "fe0", nodes[i][2]);
            expect(p.out, "OPEN ");
            probes.add(p);
        }
        // Everyone announces; each hears exactly the other two, with their keys. A bridge port may take a moment
        // to forward (it starts in the "learning" phase without STP it is forwarding at once), so poll.
        for (int i = 0; i < 3; i++) {
            final Set<String> want = new TreeSet<>();
            for (int j = 0; j < 3; j++) {
                if (j != i) {
                    want.add("DISCOVERED mac=" + nodes[j][1] + " key=" + nodes[j][2]);
                }
            }
            final Set<String> seen = new TreeSet<>();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!seen.equals(want) && System.nanoTime() < deadline) {
                for (int j = 0; j < 3; j++) {
                    if (j != i) {
                        probes.get(j).cmd("BEACON", "BEACON ");
                    }
                }
                probes.get(i).cmd("RECV 0 200", "RECVD ");
                for (final String l : probes.get(i).cmdAll("DRAIN", "DRAINED ")) {
                    if (l.startsWith("DISCOVERED ")) {
                        seen.add(l);
                    }
                }
                assertTrue(want.containsAll(seen), "node " + i + " heard only the others: " + seen);
            }
            assertEquals(want, seen, "node " + i);
        }
        // Unicast A -> C reaches C; B, if the bridge floods it, drops it as another host's frame.
        probes.get(0).cmd("SEND " + MAC_C + " c0ffee", "SENT ");
        assertEquals(List.of("FRAME src=" + MAC_A + " len=3 hex=c0ffee", "RECVD 1"),
                probes.get(2).cmdAll("RECV 1 5000", "RECVD "));
        assertEquals("RECVD 0", probes.get(1).cmd("RECV 1 500", "RECVD "));
        assertEquals(0, probes.get(1).counters().get("frames_recv"));
        // Broadcast data reaches both others.
        probes.get(1).cmd("SEND ff:ff:ff:ff:ff:ff beef", "SENT ");
        assertEquals("RECVD 1", probes.get(0).cmd("RECV 1 5000", "RECVD "));
        assertEquals("RECVD 1", probes.get(2).cmd("RECV 1 5000", "RECVD "));
        for (final Probe p : probes) {
            p.exit();
        }
    }

    // ---------------------------------------------------------------- the interface is destroyed and recreated

    @Test
    void recreatedInterfaceIsReopened() throws Exception {
        final String a = newNamespace("a");
        final String b = newNamespace("b");
        final String[] pair = {"-n", a, "link", "add", "fe0", "address", MAC_A, "type", "veth", "peer", "name",
                "fe0", "netns", b, "address", MAC_B};
        ip(pair);
        ip("-n", a, "link", "set", "fe0", "up");
        ip("-n", b, "link", "set", "fe0", "up");
        final Probe pa = new Probe(a, List.of(), "fe0", KEY_A);
        final Probe pb = new Probe(b, List.of(), "fe0", "-");
        final String before = expect(pa.out, "OPEN ");
        expect(pb.out, "OPEN ");
        assertEquals("BEACON rc=0", pa.cmd("BEACON", "BEACON "));

        ip("-n", a, "link", "del", "fe0");   // takes the peer with it
        // Three ENXIO beacon failures ask for a reopen (the reference's rule); the interface is still missing.
        for (int i = 0; i < 3; i++) {
            assertEquals("BEACON rc=6", pa.cmd("BEACON", "BEACON "), "ENXIO after the interface went away");
        }
        ip(pair);
        ip("-n", a, "link", "set", "fe0", "up");
        ip("-n", b, "link", "set", "fe0", "up");
        // Both sides heal: A from its beacon failures, B from the ENETDOWN its receive saw.
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        boolean heard = false;
        while (!heard && System.nanoTime() < deadline) {
            pa.cmd("RECV 0 100", "RECVD ");
            pa.cmd("BEACON", "BEACON ");
            pb.cmd("RECV 0 300", "RECVD ");
            heard = pb.cmdAll("DRAIN", "DRAINED ").contains("DISCOVERED mac=" + MAC_A + " key=" + KEY_A);
        }
        assertTrue(heard, "beacon heard after the veth pair was recreated; A " + pa.counters() + " B "
                + pb.counters());
        final String after = pa.cmd("INFO", "INFO ");
        assertFalse(ifindex(after).equals(ifindex(before)), "a new interface: " + before + " / " + after);
        assertTrue(pa.counters().get("reopens") >= 1);
        assertTrue(pb.counters().get("reopens") >= 1);
        pa.cmd("SEND " + MAC_B + " 0a0b0c", "SENT ");
        assertEquals("RECVD 1", pb.cmd("RECV 1 5000", "RECVD "));
        pa.exit();
        pb.exit();
    }

    @Test
    void anInterfaceThatAppearsLaterIsOpened() throws Exception {
        final String a = newNamespace("a");
        final String b = newNamespace("b");
        final Probe pa = new Probe(a, List.of(), "fe0", KEY_A, "await");
        final String waiting = expect(pa.out, "WAITING ");
        assertTrue(waiting.contains(" mtu=1497 "), "a 1500-byte Ethernet MTU assumed: " + waiting);
        assertEquals("BEACON rc=9", pa.cmd("BEACON", "BEACON "), "EBADF: no socket yet");
        assertEquals("RECVD 0", pa.cmd("RECV 0 300", "RECVD "));
        assertEquals(0L, pa.counters().get("reopens"));

        // The interface appears, with a smaller MTU than assumed.
        ip("-n", a, "link", "add", "fe0", "address", MAC_A, "mtu", "1400", "type", "veth", "peer", "name", "fe0",
                "netns", b, "address", MAC_B, "mtu", "1400");
        ip("-n", a, "link", "set", "fe0", "up");
        ip("-n", b, "link", "set", "fe0", "up");
        final Probe pb = new Probe(b, List.of(), "fe0", "-");
        expect(pb.out, "OPEN ");
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        String info = pa.cmd("INFO", "INFO ");
        while (!info.contains(" reopens=1") && System.nanoTime() < deadline) {
            pa.cmd("RECV 0 300", "RECVD ");     // the receiving thread's retries, about once a second
            info = pa.cmd("INFO", "INFO ");
        }
        assertTrue(info.contains(" reopens=1"), "opened once the interface was there: " + info);
        assertTrue(info.contains(" mtu=1397 ") && info.contains(" ifmtu=1400 ") && info.contains(MAC_A), info);
        assertEquals(0L, pa.counters().get("recv_errors"), "waiting is a state, not a stream of errors");
        assertEquals("BEACON rc=0", pa.cmd("BEACON", "BEACON "));
        pa.cmd("SEND " + MAC_B + " 0a0b0c", "SENT ");
        assertEquals("RECVD 1", pb.cmd("RECV 1 5000", "RECVD "));
        pa.exit();
        pb.exit();
    }

    private static String ifindex(final String info) {
        final Matcher m = Pattern.compile("ifindex=(\\d+)").matcher(info);
        assertTrue(m.find(), info);
        return m.group(1);
    }

    // ---------------------------------------------------------------- typed errors

    @Test
    void withoutCapNetRawSaysSo() throws Exception {
        final String a = newNamespace("a");
        assumeTrue(run(List.of("setpriv", "--version")).rc() == 0, "setpriv (util-linux) not installed");
        ip("-n", a, "link", "add", "fe0", "type", "veth", "peer", "name", "fe1");
        final Probe p = new Probe(a, List.of("setpriv", "--bounding-set=-all", "--inh-caps=-all", "--"), "fe0", "-");
        final String line = expect(p.out, "ERROR ");
        assertTrue(line.contains("reason=PERMISSION") && line.contains("CAP_NET_RAW") && line.contains("fe0"), line);
        assertTrue(line.contains("errno=1 "), "EPERM from socket(AF_PACKET): " + line);
    }

    @Test
    void missingAndNonEthernetInterfacesAreTyped() throws Exception {
        final String a = newNamespace("a");
        Probe p = new Probe(a, List.of(), "nosuch0", "-");
        String line = expect(p.out, "ERROR ");
        assertTrue(line.contains("reason=NO_SUCH_INTERFACE") && line.contains("nosuch0"), line);
        p = new Probe(a, List.of(), "lo", "-");
        line = expect(p.out, "ERROR ");
        assertTrue(line.contains("reason=NOT_ETHERNET") && line.contains("lo"), line);
    }

    // ---------------------------------------------------------------- fixtures

    private String newNamespace(final String role) throws Exception {
        assumeTrue(isRoot(), "needs root (CAP_NET_ADMIN, CAP_NET_RAW and ip netns)");
        assumeTrue(run(List.of("ip", "-V")).rc() == 0, "iproute2 (ip) not installed");
        final String ns = "fips-eth-" + tag + "-" + role;
        final Run add = run(List.of("ip", "netns", "add", ns));
        assumeTrue(add.rc() == 0, "ip netns add failed: " + add.out());
        namespaces.add(ns);
        return ns;
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (final Process p : children) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        for (final String ns : namespaces) {
            run(List.of("ip", "netns", "del", ns));
        }
    }

    private Process startProbe(final String ns, final List<String> wrapper, final String... args) throws IOException {
        final Process p = NamespaceProbes.startProbe(ns, wrapper, EthernetProbe.class,
                List.of(EthernetTransport.class, Syscalls.class), args);
        children.add(p);
        return p;
    }

    private static void ip(final String... args) throws Exception {
        final List<String> cmd = new ArrayList<>(List.of("ip"));
        cmd.addAll(List.of(args));
        final Run r = run(cmd);
        assertEquals(0, r.rc(), String.join(" ", cmd) + ": " + r.out());
    }

}
