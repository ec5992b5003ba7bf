package net.fips.control.lan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.fips.control.ctl.ControlJson;
import net.fips.control.identity.NodeIdentity;
import net.fips.testing.Await;
import net.fips.testing.NamespaceProbes;

/**
 * Two real nodes on an IPv6-only link find each other over mDNS and link (discovery-gateway.md §3, ADR 0059; root
 * only, skipped otherwise): two network namespaces joined by a veth pair that carries IPv6 link-local addresses and
 * no IPv4 address at all (only loopback has one), one node in each ({@link LanNodeProbe}: LAN discovery on, UDP bound
 * to {@code [::]:2121}, no peers configured). Each must announce its link-local address as an AAAA record on
 * ff02::fb, resolve the other's with this link's scope and dial it over its dual-stack UDP socket. Fails when mDNS is
 * IPv4 only (nothing to announce or hear on the link) or when the resolved link-local address loses its scope (it is
 * then skipped). The namespaces, and the veth with them, are deleted even when it fails.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class LanNodeNamespaceTest {

    @TempDir
    Path dir;

    @Test
    void twoNodesOnAnIpv6OnlyLinkFindEachOtherByMdnsAndLink() throws Exception {
        assumeTrue(NamespaceProbes.isRoot(), "needs root for network namespaces");
        final long id = ProcessHandle.current().pid() % 1_000_000;
        final String nsA = "fipsl6a" + id;
        final String nsB = "fipsl6b" + id;
        final String ifA = "l6a" + id;
        final String ifB = "l6b" + id;
        final List<Process> children = new ArrayList<>();
        final List<String> made = new ArrayList<>();
        try {
            for (final String ns : List.of(nsA, nsB)) {
                must("ip", "netns", "add", ns);
                made.add(ns);
                // No duplicate address detection: the link-local address is usable the moment the link is up.
                must("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0",
                        "net.ipv6.conf.default.accept_dad=0");
                must("ip", "-n", ns, "link", "set", "lo", "up");
            }
            must("ip", "link", "add", ifA, "netns", nsA, "type", "veth", "peer", "name", ifB, "netns", nsB);
            must("ip", "-n", nsA, "link", "set", ifA, "up");
            must("ip", "-n", nsB, "link", "set", ifB, "up");
            final String llA = linkLocal(nsA, ifA);
            final String llB = linkLocal(nsB, ifB);
            for (final String[] nsIf : new String[][] {{nsA, ifA}, {nsB, ifB}}) {
                final NamespaceProbes.Run v4 = NamespaceProbes.run(List.of("ip", "-n", nsIf[0], "-4", "addr",
                        "show", "dev", nsIf[1]));
                assertTrue(v4.rc() == 0 && !v4.out().contains("inet "), "the link has no IPv4: " + v4.out());
            }

            final NodeIdentity a = NodeIdentity.generate();
            final NodeIdentity b = NodeIdentity.generate();
            final Child ca = start(nsA, children, a.nsec(), b.npub());
            final Child cb = start(nsB, children, b.nsec(), a.npub());
            final String linkedA = ca.expect("linked ", 90);
            final String linkedB = cb.expect("linked ", 90);
            // The link runs over IPv6 link-local addresses: mDNS gave the scope, the dual-stack socket dialled it.
            assertTrue(linkedA.startsWith("linked [fe80:"), linkedA + "\n" + ca.log());
            assertTrue(linkedB.startsWith("linked [fe80:"), linkedB + "\n" + cb.log());

            final JsonNode lanA = ControlJson.MAPPER.readTree(ca.expect("lan ", 60).substring(4));
            final JsonNode lanB = ControlJson.MAPPER.readTree(cb.expect("lan ", 60).substring(4));
            assertTrue(lanA.get("running").asBoolean() && lanA.get("interfaces").asInt() >= 2,
                    "on the link's IPv6 address and loopback's IPv4: " + lanA);
            assertEquals(expected(llB, ifA), peerAddresses(lanA, b.npub()), "A found B on its link: " + lanA);
            assertEquals(expected(llA, ifB), peerAddresses(lanB, a.npub()), "B found A on its link: " + lanB);
            ca.say("stop");
            cb.say("stop");
            for (final Process p : children) {
                p.waitFor(20, TimeUnit.SECONDS);
            }
        } finally {
            children.forEach(Process::destroyForcibly);
            for (final Process p : children) {
                p.waitFor(10, TimeUnit.SECONDS);
            }
            for (final String ns : made) {
                NamespaceProbes.run(List.of("ip", "netns", "del", ns));
            }
        }
    }

    /** @return the peer's announced address(es) as {@code show_lan} lists them */
    private static List<String> peerAddresses(final JsonNode lan, final String npub) {
        for (final JsonNode p : lan.get("peers")) {
            if (npub.equals(p.get("npub").asText())) {
                final List<String> out = new ArrayList<>();
                p.get("addresses").forEach(x -> out.add(x.asText()));
                return out;
            }
        }
        return List.of();
    }

    /** @return the other end's link-local address with our interface as scope, as {@code show_lan} writes it */
    private static List<String> expected(final String linkLocal, final String ourInterface) {
        return List.of("[" + InetAddress.ofLiteral(linkLocal).getHostAddress() + "%" + ourInterface + "]:2121");
    }

    private static String linkLocal(final String ns, final String ifName) throws Exception {
        final String[] found = new String[1];
        Await.until(Duration.ofSeconds(10), () -> {
            final String out;
            try {
                out = NamespaceProbes.run(List.of("ip", "-n", ns, "-6", "addr", "show", "dev", ifName, "scope",
                        "link")).out();
            } catch (final Exception e) {
                throw new IllegalStateException(e);
            }
            final int i = out.indexOf("inet6 ");
            if (i < 0) {
                return false;
            }
            found[0] = out.substring(i + 6, out.indexOf('/', i));
            return true;
        }, () -> "no IPv6 link-local address on " + ifName + " in " + ns);
        return found[0];
    }

    private static void must(final String... cmd) throws Exception {
        final NamespaceProbes.Run r = NamespaceProbes.run(List.of(cmd));
        assertEquals(0, r.rc(), String.join(" ", cmd) + ": " + r.out());
    }

    /** A node's child JVM: its stdout lines queued, its stderr in a file. */
    private static final class Child {
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
                if (l.startsWith("failed")) {
                    fail(l + "\n" + log());
                }
                if (l.startsWith(prefix)) {
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

    private Child start(final String ns, final List<Process> children, final String nsec, final String peer)
            throws IOException {
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
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", String.join(File.pathSeparator, cp),
                LanNodeProbe.class.getName(), nsec, peer, LanAdvert.DEFAULT_SERVICE_TYPE,
                dir.resolve(ns).toString(), "75"));
        final Path log = dir.resolve(ns + ".log");
        final Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
        children.add(p);
        return new Child(p, log);
    }
}
