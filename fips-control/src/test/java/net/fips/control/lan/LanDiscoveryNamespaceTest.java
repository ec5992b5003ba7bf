package net.fips.control.lan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import javax.jmdns.JmDNS;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import net.fips.testing.NamespaceProbes;

/**
 * mDNS between real JmDNS instances, in a network namespace of its own (root only; skipped otherwise): a veth
 * pair (one end addressed), three {@link LanDiscovery}s and a bare browser in one child JVM there
 * ({@link LanDiscoveryProbe}). A and B, in the default scope, find each other; C, in another scope, is found by
 * nobody and finds nobody; the browser sees A's service with the reference's TXT. Nothing leaves the namespace.
 */
class LanDiscoveryNamespaceTest {

    private static final String A = "npub1aaaaaaaaaaaqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq";
    private static final String B = "npub1bbbbbbbbbbbqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq";
    private static final String C = "npub1ccccccccccqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq";

    @Test
    void twoNodesInOneScopeFindEachOtherAndAnotherScopeIsIgnored() throws Exception {
        assumeTrue(NamespaceProbes.isRoot(), "needs root for a network namespace");
        final String ns = "fipsmdns" + ProcessHandle.current().pid();
        assumeTrue(NamespaceProbes.run(List.of("ip", "netns", "add", ns)).rc() == 0, "ip netns add failed");
        try {
            for (final String[] cmd : new String[][] {{"link", "set", "lo", "up"},
                {"link", "add", "mdns0", "type", "veth", "peer", "name", "mdns1"},
                {"addr", "add", "10.77.0.1/24", "dev", "mdns0"}, {"link", "set", "mdns1", "up"},
                {"link", "set", "mdns0", "up"}}) {
                final List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", ns, "ip"));
                full.addAll(List.of(cmd));
                assertEquals(0, NamespaceProbes.run(full).rc(), String.join(" ", full));
            }
            final List<String> out = probe(ns);
            final String all = String.join("\n", out);
            assertTrue(out.contains("done"), "A and B found each other and the browser saw A:\n" + all);
            assertTrue(out.contains("found a " + B + " 10.77.0.1:2122"), all);
            assertTrue(out.contains("found b " + A + " 10.77.0.1:2121"), all);
            assertFalse(all.contains("found c "), "C's scope is another: it accepts nobody\n" + all);
            assertFalse(out.stream().anyMatch(l -> l.startsWith("found a " + C) || l.startsWith("found b " + C)),
                    "nobody in the default scope accepts C\n" + all);
            assertTrue(out.contains("txt fips-npub1aaaaaaaaaaa 2121 {npub=" + A + ", scope=fips-overlay-v1, v=1}"),
                    "the reference's TXT\n" + all);
        } finally {
            NamespaceProbes.run(List.of("ip", "netns", "del", ns));
        }
    }

    private static List<String> probe(final String ns) throws Exception {
        final Set<String> cp = new LinkedHashSet<>();
        for (final Class<?> c : List.of(LanDiscovery.class, JmDNS.class, LoggerFactory.class)) {
            cp.add(codeSource(c));
        }
        final Path testClasses = Path.of(System.getProperty("user.dir"), "target", "test-classes");
        cp.add(testClasses.toString());
        final List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns,
                ProcessHandle.current().info().command().orElse("java"), "-Xmx64m", "-XX:TieredStopAtLevel=1",
                "-cp", String.join(File.pathSeparator, cp), LanDiscoveryProbe.class.getName(), "10.77.0.1", A, B, C));
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            return List.of(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n"));
        } finally {
            p.destroyForcibly();
        }
    }

    private static String codeSource(final Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
