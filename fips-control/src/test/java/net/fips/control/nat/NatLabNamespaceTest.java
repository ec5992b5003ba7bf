package net.fips.control.nat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import net.fips.control.identity.NodeIdentity;
import net.fips.control.nostr.TestRelay;
import net.fips.testing.NamespaceProbes;

/**
 * The NAT lab of discovery-gateway.md §7.3 in network namespaces (root and nft only; skipped otherwise): an
 * "internet" namespace with a bridge and the STUN server at 198.18.0.1, two routers (198.18.0.2 and .3) doing
 * nftables masquerade with unsolicited inbound dropped, one host behind each (10.1.0.2, 10.2.0.2), each host a child
 * JVM running a node ({@link NatLabPeer}). The lab relays the reflexive addresses (standing in for the signal
 * relays). Port-restricted cone ({@code masquerade}): STUN, punch, adoption and a Noise link whose remote is the other
 * router's WAN address. Symmetric ({@code masquerade fully-random}): both punches time out. Two hosts behind one
 * router (which does not hairpin) link over their LAN addresses with {@code share_local_candidates} and end in the
 * cooldown without. Every namespace and link is removed afterwards, also on failure; no traffic leaves the
 * namespaces.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class NatLabNamespaceTest {
    private static final String NFT = """
            table ip nat {
              chain postc {
                type nat hook postrouting priority 100;
                oifname "wan" %s
              }
            }
            table ip filtr {
              chain fwdc {
                type filter hook forward priority 0; policy drop;
                iifname "lan" accept
                ct state established,related accept
              }
              chain inp {
                type filter hook input priority 0; policy drop;
                ct state established,related accept
                iifname { "lo", "lan" } accept
              }
            }
            """;

    @TempDir
    Path dir;

    private final List<String> namespaces = new ArrayList<>();
    private final List<Process> children = new ArrayList<>();
    private final List<Path> etcNetns = new ArrayList<>();
    private final String sfx = Long.toString(ProcessHandle.current().pid() % 100_000);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"masquerade", "masquerade fully-random"})
    void punchThroughTwoNats(final String masquerade) throws Exception {
        assumeTrue(NamespaceProbes.isRoot(), "needs root for network namespaces");
        assumeTrue(NamespaceProbes.run(List.of("nft", "--version")).rc() == 0, "needs nft (Debian nftables)");
        try {
            build(masquerade);
            final NodeIdentity idA = NodeIdentity.generate();
            final NodeIdentity idB = NodeIdentity.generate();
            final Child stun = start("nw" + sfx, NatLabStun.class, "198.18.0.1", "3478");
            stun.expect("ready", 60);
            final Child a = start("ha" + sfx, NatLabPeer.class, idA.nsec(), idB.npub(), "198.18.0.1:3478",
                    dir.resolve("a").toString());
            final Child b = start("hb" + sfx, NatLabPeer.class, idB.nsec(), idA.npub(), "198.18.0.1:3478",
                    dir.resolve("b").toString());
            final String ra = a.expect("reflexive ", 60).substring("reflexive ".length());
            final String rb = b.expect("reflexive ", 60).substring("reflexive ".length());
            assertTrue(ra.startsWith("198.18.0.2:"), "A's router's WAN address, learned by STUN: " + ra);
            assertTrue(rb.startsWith("198.18.0.3:"), rb);
            final long startAt = System.currentTimeMillis() + 1_500;
            a.say(rb + " " + startAt + " lab-session");
            b.say(ra + " " + startAt + " lab-session");
            if (masquerade.contains("fully-random")) {
                assertEquals("failed PunchTimeout", a.expect("failed", 60), a.log());
                assertEquals("failed PunchTimeout", b.expect("failed", 60), b.log());
                return;
            }
            assertTrue(a.expect("punched ", 60).startsWith("punched 198.18.0.3:"), a.log());
            assertTrue(b.expect("punched ", 60).startsWith("punched 198.18.0.2:"), b.log());
            final String la = a.expect("linked ", 60);
            final String lb = b.expect("linked ", 60);
            assertTrue(la.startsWith("linked 198.18.0.3:"), la + "\n" + a.log());
            assertTrue(lb.startsWith("linked 198.18.0.2:"), lb + "\n" + b.log());
            assertTrue(la.endsWith("transport 1") && lb.endsWith("transport 1"), "the first adoption slot: " + la);
        } finally {
            close();
        }
    }

    /**
     * End to end (issue 20): the relay ({@code TestRelay} in a child JVM) and STUN both in the "internet"; two nodes
     * behind the NATs, each configured with only the other's npub and {@code addr: nat}. They find each other's
     * advert, exchange offer and answer through the relay, punch and link; the link carries packets both ways, and
     * (cone) each node runs TUN {@code fips0} and the {@code .fips} DNS responder on {@code [::1]:53} with the
     * namespace's resolv.conf pointing there, so {@code ping -6 <npub>.fips} from A's host namespace reaches B and
     * back, and the same from B to A. Fully random NAT: every attempt fails, both
     * nodes end in the failure cooldown after two failures and then send nothing more for 10 s.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"masquerade", "masquerade fully-random"})
    void npubOnlyNodesFindEachOtherPunchAndLink(final String masquerade) throws Exception {
        assumeTrue(NamespaceProbes.isRoot(), "needs root for network namespaces");
        assumeTrue(NamespaceProbes.run(List.of("nft", "--version")).rc() == 0, "needs nft (Debian nftables)");
        try {
            build(masquerade);
            final NodeIdentity idA = NodeIdentity.generate();
            final NodeIdentity idB = NodeIdentity.generate();
            final Child stun = start("nw" + sfx, NatLabStun.class, "198.18.0.1", "3478");
            stun.expect("ready", 60);
            final Child relay = start("nw" + sfx, TestRelay.class, "198.18.0.1", "7777");
            final String url = relay.expect("ready ", 60).substring("ready ".length());
            assertEquals("ws://198.18.0.1:7777", url);
            final boolean cone = !masquerade.contains("fully-random");
            final String tun = cone ? "tun" : "no-tun";
            if (cone) {
                resolvConf("ha" + sfx);
                resolvConf("hb" + sfx);
            }
            final Child a = start("ha" + sfx, NatLabNode.class, idA.nsec(), idB.npub(), url, "198.18.0.1:3478",
                    dir.resolve("a").toString(), "120", "10", tun);
            final Child b = start("hb" + sfx, NatLabNode.class, idB.nsec(), idA.npub(), url, "198.18.0.1:3478",
                    dir.resolve("b").toString(), "120", "10", tun);
            if (masquerade.contains("fully-random")) {
                final String ca = a.expect("cooldown ", 150);
                final String cb = b.expect("cooldown ", 150);
                assertTrue(ca.startsWith("cooldown 2 2 "), ca + "\n" + a.log());
                assertTrue(cb.startsWith("cooldown 2 2 "), cb + "\n" + b.log());
                final String aa = a.expect("after ", 30);
                final String ab = b.expect("after ", 30);
                // No retry in cooldown: no new attempt, no signal sent in 10 s.
                assertEquals("after 2 " + ca.split(" ")[3], aa, a.log());
                assertEquals("after 2 " + cb.split(" ")[3], ab, b.log());
                System.out.println("natlab fully-random: cooldown after 2 failed traversals each; quiet 10 s");
                return;
            }
            final String la = a.expect("linked ", 150);
            final String lb = b.expect("linked ", 150);
            assertTrue(la.startsWith("linked 198.18.0.3:"), la + "\n" + a.log());
            assertTrue(lb.startsWith("linked 198.18.0.2:"), lb + "\n" + b.log());
            assertTrue(a.expect("data ", 60).startsWith("data "), a.log());
            assertTrue(b.expect("data ", 60).startsWith("data "), b.log());
            final String pa = pingByName("ha" + sfx, idB.npub(), a, b);
            final String pb = pingByName("hb" + sfx, idA.npub(), b, a);
            System.out.println("natlab cone: time-to-link A " + la.substring(la.lastIndexOf(' ') + 1) + " ms, B "
                    + lb.substring(lb.lastIndexOf(' ') + 1) + " ms (from node start); ping -6 <npub>.fips A to B: "
                    + pa + "; B to A: " + pb);
        } finally {
            close();
        }
    }

    /**
     * Two nodes on one LAN behind one masquerade router (10.1.0.2 and 10.1.0.3 behind 198.18.0.2), each with only the
     * other's npub and {@code addr: nat}. Both learn the same public IP; a probe to it from inside is not hairpinned
     * back (the router has no mapping for it and drops it), so without host candidates every punch times out and
     * both end in the cooldown. With {@code share_local_candidates} the offer and answer carry 10.1.0.x, the punch
     * reaches the other host across the LAN, and the link's remote is its LAN address.
     */
    @ParameterizedTest(name = "share_local_candidates {0}")
    @ValueSource(booleans = {true, false})
    void twoNodesBehindOneNatMeetThroughHostCandidates(final boolean share) throws Exception {
        assumeTrue(NamespaceProbes.isRoot(), "needs root for network namespaces");
        assumeTrue(NamespaceProbes.run(List.of("nft", "--version")).rc() == 0, "needs nft (Debian nftables)");
        try {
            buildSharedLan();
            final NodeIdentity idA = NodeIdentity.generate();
            final NodeIdentity idB = NodeIdentity.generate();
            final Child stun = start("nw" + sfx, NatLabStun.class, "198.18.0.1", "3478");
            stun.expect("ready", 60);
            final Child relay = start("nw" + sfx, TestRelay.class, "198.18.0.1", "7777");
            final String url = relay.expect("ready ", 60).substring("ready ".length());
            final String flags = share ? "no-tun,share" : "no-tun";
            final Child a = start("ha" + sfx, NatLabNode.class, idA.nsec(), idB.npub(), url, "198.18.0.1:3478",
                    dir.resolve("a").toString(), "120", "5", flags);
            final Child b = start("hb" + sfx, NatLabNode.class, idB.nsec(), idA.npub(), url, "198.18.0.1:3478",
                    dir.resolve("b").toString(), "120", "5", flags);
            if (!share) {
                final String ca = a.expect("cooldown ", 150);
                final String cb = b.expect("cooldown ", 150);
                assertTrue(ca.startsWith("cooldown 2 2 "), ca + "\n" + a.log());
                assertTrue(cb.startsWith("cooldown 2 2 "), cb + "\n" + b.log());
                return;
            }
            final String la = a.expect("linked ", 150);
            final String lb = b.expect("linked ", 150);
            assertTrue(la.startsWith("linked 10.1.0.3:"), la + "\n" + a.log());
            assertTrue(lb.startsWith("linked 10.1.0.2:"), lb + "\n" + b.log());
            assertTrue(a.expect("data ", 60).startsWith("data "), a.log());
            assertTrue(b.expect("data ", 60).startsWith("data "), b.log());
            System.out.println("natlab shared LAN: time-to-link A " + la.substring(la.lastIndexOf(' ') + 1)
                    + " ms, B " + lb.substring(lb.lastIndexOf(' ') + 1) + " ms (from node start)");
        } finally {
            close();
        }
    }

    /** {@code /etc/netns/<ns>/resolv.conf} (bound by {@code ip netns exec}): the node's DNS responder on ::1. */
    private void resolvConf(final String ns) throws IOException {
        final Path d = Files.createDirectories(Path.of("/etc/netns", ns));
        etcNetns.add(d);
        Files.writeString(d.resolve("resolv.conf"), "nameserver ::1\n");
    }

    /**
     * Polls {@code ping -6 -n -c 3 -W 2 <npub>.fips} inside {@code ns} until one run gets a reply (60 s deadline).
     *
     * @return the answered run's summary (its statistics lines) and the tries it took
     */
    private String pingByName(final String ns, final String npub, final Child from, final Child to) throws Exception {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        NamespaceProbes.Run r;
        int tries = 0;
        do {
            tries++;
            r = NamespaceProbes.run(List.of("ip", "netns", "exec", ns, "ping", "-6", "-n", "-c", "3", "-W", "2",
                    npub + ".fips"));
            if (r.rc() == 0) {
                assertTrue(r.out().contains(" bytes from fd"), r.out());
                final String out = r.out().strip();
                final int stats = out.lastIndexOf('\n', out.indexOf("packets transmitted")) + 1;
                return out.substring(stats).replace('\n', ' ') + " (try " + tries + ")";
            }
            LockSupport.parkNanos(200_000_000L); // poll interval: a failed name lookup returns at once
        } while (System.nanoTime() < deadline);
        return fail("no ping reply from " + npub + ".fips in " + ns + ": rc " + r.rc() + "\n" + r.out() + "\n"
                + from.log() + "\n--- peer ---\n" + to.log());
    }

    private void close() throws Exception {
        for (final Process p : children) {
            p.getOutputStream().close();
        }
        for (final Process p : children) {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        for (final String ns : namespaces) {
            NamespaceProbes.run(List.of("ip", "netns", "del", ns));
        }
        for (final Path d : etcNetns) {
            Files.deleteIfExists(d.resolve("resolv.conf"));
            Files.deleteIfExists(d);
        }
    }

    /** The topology; every root-namespace link name carries the suffix and moves into a namespace at once. */
    private void build(final String masquerade) throws Exception {
        for (final String n : List.of("nw", "ra", "rb", "ha", "hb")) {
            must("ip", "netns", "add", n + sfx);
            namespaces.add(n + sfx);
            must("ip", "-n", n + sfx, "link", "set", "lo", "up");
        }
        final String nw = "nw" + sfx;
        must("ip", "-n", nw, "link", "add", "br0", "type", "bridge");
        must("ip", "-n", nw, "addr", "add", "198.18.0.1/24", "dev", "br0");
        must("ip", "-n", nw, "link", "set", "br0", "up");
        for (final String x : List.of("a", "b")) {
            final String r = "r" + x + sfx;
            final String h = "h" + x + sfx;
            final int n = x.equals("a") ? 1 : 2;
            veth("fw" + x + sfx, r, "wan", "fb" + x + sfx, nw, "br" + x);
            must("ip", "-n", nw, "link", "set", "br" + x, "master", "br0");
            must("ip", "-n", r, "addr", "add", "198.18.0." + (n + 1) + "/24", "dev", "wan");
            veth("fl" + x + sfx, r, "lan", "fh" + x + sfx, h, "eth0");
            must("ip", "-n", r, "addr", "add", "10." + n + ".0.1/24", "dev", "lan");
            must("ip", "-n", h, "addr", "add", "10." + n + ".0.2/24", "dev", "eth0");
            must("ip", "-n", h, "route", "add", "default", "via", "10." + n + ".0.1");
            must("ip", "netns", "exec", r, "sysctl", "-qw", "net.ipv4.ip_forward=1");
            final Path rules = dir.resolve("nft-" + x);
            Files.writeString(rules, NFT.formatted(masquerade));
            must("ip", "netns", "exec", r, "nft", "-f", rules.toString());
        }
    }

    /** One router ({@code ra}, WAN 198.18.0.2) with a LAN bridge and two hosts on it ({@code ha}, {@code hb}). */
    private void buildSharedLan() throws Exception {
        for (final String n : List.of("nw", "ra", "ha", "hb")) {
            must("ip", "netns", "add", n + sfx);
            namespaces.add(n + sfx);
            must("ip", "-n", n + sfx, "link", "set", "lo", "up");
        }
        final String nw = "nw" + sfx;
        final String r = "ra" + sfx;
        must("ip", "-n", nw, "link", "add", "br0", "type", "bridge");
        must("ip", "-n", nw, "addr", "add", "198.18.0.1/24", "dev", "br0");
        must("ip", "-n", nw, "link", "set", "br0", "up");
        veth("fwa" + sfx, r, "wan", "fba" + sfx, nw, "bra");
        must("ip", "-n", nw, "link", "set", "bra", "master", "br0");
        must("ip", "-n", r, "addr", "add", "198.18.0.2/24", "dev", "wan");
        must("ip", "-n", r, "link", "add", "lan", "type", "bridge");
        must("ip", "-n", r, "addr", "add", "10.1.0.1/24", "dev", "lan");
        must("ip", "-n", r, "link", "set", "lan", "up");
        for (final String x : List.of("a", "b")) {
            final String h = "h" + x + sfx;
            veth("fl" + x + sfx, r, "l" + x, "fh" + x + sfx, h, "eth0");
            must("ip", "-n", r, "link", "set", "l" + x, "master", "lan");
            must("ip", "-n", h, "addr", "add", (x.equals("a") ? "10.1.0.2" : "10.1.0.3") + "/24", "dev", "eth0");
            must("ip", "-n", h, "route", "add", "default", "via", "10.1.0.1");
        }
        must("ip", "netns", "exec", r, "sysctl", "-qw", "net.ipv4.ip_forward=1");
        final Path rules = dir.resolve("nft-shared");
        Files.writeString(rules, NFT.formatted("masquerade"));
        must("ip", "netns", "exec", r, "nft", "-f", rules.toString());
    }

    private void veth(final String a, final String nsA, final String nameA, final String b, final String nsB,
            final String nameB) throws Exception {
        must("ip", "link", "add", a, "type", "veth", "peer", "name", b);
        must("ip", "link", "set", a, "netns", nsA);
        must("ip", "link", "set", b, "netns", nsB);
        must("ip", "-n", nsA, "link", "set", a, "name", nameA);
        must("ip", "-n", nsB, "link", "set", b, "name", nameB);
        must("ip", "-n", nsA, "link", "set", nameA, "up");
        must("ip", "-n", nsB, "link", "set", nameB, "up");
    }

    /** A child JVM in a namespace: its stdout lines queued, its stderr in a file. */
    private final class Child {
        private final Process process;
        private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final Path log;

        Child(final Process process, final Path log) {
            this.process = process;
            this.log = log;
            Thread.ofPlatform().daemon().start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String l = r.readLine(); l != null; l = r.readLine()) {
                        lines.add(l);
                    }
                } catch (final IOException e) {
                    lines.add("io " + e.getMessage());
                }
            });
        }

        String expect(final String prefix, final int seconds) throws Exception {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (true) {
                final String l = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (l == null) {
                    fail("no '" + prefix + "' line within " + seconds + " s\n" + log());
                }
                if (l.startsWith(prefix) || l.startsWith("failed")) {
                    return l;
                }
            }
        }

        void say(final String line) throws IOException {
            final OutputStream out = process.getOutputStream();
            out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        String log() {
            try {
                final List<String> all = Files.readAllLines(log);
                return String.join("\n", all.subList(Math.max(0, all.size() - 40), all.size()));
            } catch (final IOException e) {
                return "(no log: " + e.getMessage() + ")";
            }
        }
    }

    private Child start(final String ns, final Class<?> main, final String... args) throws IOException {
        final Set<String> cp = new LinkedHashSet<>();
        for (final String prop : List.of("jdk.module.path", "java.class.path")) {
            final String v = System.getProperty(prop);
            if (v != null && !v.isEmpty()) {
                cp.addAll(List.of(v.split(File.pathSeparator)));
            }
        }
        cp.add(Path.of(System.getProperty("user.dir"), "target", "test-classes").toString());
        cp.add(Path.of(System.getProperty("user.dir"), "target", "classes").toString());
        final List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns,
                ProcessHandle.current().info().command().orElse("java"), "--enable-native-access=ALL-UNNAMED",
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", String.join(File.pathSeparator, cp), main.getName()));
        cmd.addAll(List.of(args));
        final Path log = dir.resolve(ns + "-" + main.getSimpleName() + ".log");
        final Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
        children.add(p);
        return new Child(p, log);
    }

    private static void must(final String... cmd) throws Exception {
        assertEquals(0, NamespaceProbes.run(List.of(cmd)).rc(), String.join(" ", cmd));
    }
}
