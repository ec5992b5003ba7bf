package net.fips.dataplane.tun;

import static net.fips.testing.NamespaceProbes.LINE_WAIT_S;
import static net.fips.testing.NamespaceProbes.expect;
import static net.fips.testing.NamespaceProbes.isRoot;
import static net.fips.testing.NamespaceProbes.lines;
import static net.fips.testing.NamespaceProbes.run;
import static net.fips.testing.NamespaceProbes.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.fips.testing.NamespaceProbes;
import net.fips.testing.NamespaceProbes.Run;
import net.fips.ffm.linux.Syscalls;

/**
 * The TUN device against the real kernel. Configuration errors and a missing clone device are checked in this JVM
 * (nothing is created). Device creation runs in a child JVM ({@link TunProbe}) inside a fresh network namespace per
 * test ({@code ip netns exec}), checked from outside with {@code ip}; these tests skip unless root with
 * {@code /dev/net/tun} and iproute2.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TunDeviceTest {
    private static final String ADDR = "fd5e:1f00:aa01:2233:4455:6677:8899:aabb";

    private final List<Process> children = new ArrayList<>();
    private String netns;

    private static Inet6Address addr(final String text) throws IOException {
        return (Inet6Address) InetAddress.getByName(text);
    }

    // ---------------------------------------------------------------- in-process: typed errors, nothing created

    @Test
    void missingCloneDeviceNamesThePath() throws IOException {
        final TunConfig cfg = TunConfig.of(addr(ADDR)).withName("fipsx" + new Random().nextInt(1000))
                .withDevicePath("/nonexistent/net/tun");
        final TunException e = assertThrows(TunException.class, () -> TunDevice.open(cfg));
        assertEquals(TunException.Reason.DEVICE_MISSING, e.reason());
        assertEquals(2, e.errno(), "ENOENT");
        assertTrue(e.getMessage().contains("/nonexistent/net/tun"), e.getMessage());
        assertTrue(e.operation().contains("/nonexistent/net/tun"), e.operation());
    }

    @Test
    void pathThroughAFileIsAMissingDevice() throws IOException {
        final Path file = Files.createTempFile("fips-tun", ".not-a-dir");
        try {
            final TunConfig cfg = TunConfig.of(addr(ADDR)).withDevicePath(file + "/tun");
            final TunException e = assertThrows(TunException.class, () -> TunDevice.open(cfg));
            assertEquals(TunException.Reason.DEVICE_MISSING, e.reason());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void badConfigurationIsRefusedBeforeAnySyscall() throws IOException {
        final TunConfig ok = TunConfig.of(addr(ADDR)).withDevicePath("/nonexistent/net/tun");
        for (final TunConfig bad : List.of(ok.withName(""), ok.withName("sixteen-chars-xx"), ok.withName("a/b"),
                ok.withName("a b"), ok.withMtu(1279), ok.withMtu(65536), ok.withDevicePath(""),
                TunConfig.of(addr("fc00::1")).withDevicePath("/nonexistent/net/tun"))) {
            final TunException e = assertThrows(TunException.class, () -> TunDevice.open(bad), bad.toString());
            assertEquals(TunException.Reason.INVALID_CONFIG, e.reason(), e.getMessage());
        }
        // The longest legal name passes validation and fails only at the (missing) device.
        final TunException e = assertThrows(TunException.class,
                () -> TunDevice.open(ok.withName("fifteen-chars-x").withMtu(65535)));
        assertEquals(TunException.Reason.DEVICE_MISSING, e.reason());
    }

    @Test
    void defaultsAreTheReferences() throws IOException {
        final TunConfig c = TunConfig.of(addr(ADDR));
        assertEquals("fips0", c.name());
        assertEquals(1280, c.mtu());
        assertEquals("/dev/net/tun", c.devicePath());
        assertTrue(c.replaceExisting());
        assertTrue(c.policyRule());
    }

    @Test
    void deviceGoneErrors() {
        assertTrue(TunDevice.isDeviceGone(-77));   // EBADFD, what a read gives after the device is deleted
        assertTrue(TunDevice.isDeviceGone(-14));   // EFAULT, what the reference expects
        assertFalse(TunDevice.isDeviceGone(-11));  // EAGAIN
        assertFalse(TunDevice.isDeviceGone(1280));
    }

    // ---------------------------------------------------------------- in a namespace, as root

    @Test
    void createsConfiguresAndMovesPacketsInANamespace() throws Exception {
        final String ns = newNamespace();
        final String name = "fips0";
        final Process p = startProbe(ns, List.of(), "exchange", ADDR, name, "1400");
        final BlockingQueue<String> out = lines(p);

        final String open = expect(out, "OPEN ");
        assertTrue(open.contains("name=fips0") && open.contains("mtu=1400") && open.contains("rule=true"), open);
        final String second = expect(out, "SECOND-NOREPLACE ");
        assertTrue(second.contains("reason=NAME_IN_USE") && second.contains("in use"), second);
        final String wake = expect(out, "WAKE ");
        assertTrue(wake.startsWith("WAKE rc=0 "), "wakeup() ends receive(-1) with 0: " + wake);
        final String small = expect(out, "SMALL-SLOT ");
        assertEquals("SMALL-SLOT rc=-90 truncated=1", small, "a 648-byte packet into a 256-byte slot is EMSGSIZE");
        expect(out, "AWAIT-GO");

        // What the kernel now holds, as iproute2 sees it.
        final String link = ip(ns, "link", "show", "dev", name);
        assertTrue(link.contains("mtu 1400"), link);
        assertTrue(Pattern.compile("[<,]UP[,>]").matcher(link).find(), link);
        assertTrue(link.contains("POINTOPOINT") && link.contains("NOARP"), link);
        final String addrs = ip(ns, "-6", "addr", "show", "dev", name);
        assertTrue(addrs.contains("inet6 " + ADDR + "/128 scope global"), addrs);
        final String routes = ip(ns, "-6", "route", "show", "dev", name);
        assertTrue(routes.contains("fd00::/8 proto static"), routes);
        final String rules = ip(ns, "-6", "rule", "show");
        assertTrue(rules.contains("5265:\tfrom all to fd00::/8 lookup main"), rules);

        send(p, "GO");
        final String read = expect(out, "READ");
        assertTrue(read.startsWith("READ version=6 nh=17 "), read);
        final String peer = InetAddress.getByName(TunProbe.PEER).getHostAddress();
        assertTrue(read.contains(" src=" + ADDR + " dst=" + peer + " dport=" + TunProbe.PEER_PORT
                + " match=true"), read);
        final Matcher lens = Pattern.compile(" len=(\\d+) plen=(\\d+)").matcher(read);
        assertTrue(lens.find(), read);
        assertEquals(Integer.parseInt(lens.group(1)), 40 + Integer.parseInt(lens.group(2)), read);
        final Matcher counted = Pattern.compile("skipped=(\\d+) counted=(\\d+)").matcher(read);
        assertTrue(counted.find(), read);
        assertEquals(Integer.parseInt(counted.group(1)) + 1, Integer.parseInt(counted.group(2)),
                "every packet read is counted: " + read);

        final String write = expect(out, "WRITE ");
        assertTrue(write.contains(" from=" + peer + " port=4242 match=true counted=1"), write);
        final Matcher wl = Pattern.compile("rc=(\\d+) len=(\\d+)").matcher(write);
        assertTrue(wl.find(), write);
        assertEquals(wl.group(2), wl.group(1), "the whole packet is written: " + write);

        final String replaced = expect(out, "REPLACED ");
        assertTrue(replaced.contains("gone=true"), replaced);
        final Matcher idx = Pattern.compile("index=(\\d+)").matcher(open);
        assertTrue(idx.find());
        assertFalse(replaced.contains("index=" + idx.group(1) + " "), "a new device: " + replaced);
        expect(out, "OLD-CLOSED");
        // Closing the replaced descriptor leaves the new device alone.
        assertTrue(ip(ns, "link", "show", "dev", name).contains("mtu 1400"));
        send(p, "NEXT");
        expect(out, "CLOSED");
        // close() removed the device, and its address and route with it, while the process still runs.
        final Run gone = run(List.of("ip", "-n", ns, "link", "show", "dev", name));
        assertNotEquals(0, gone.rc(), "device still present after close: " + gone.out());
        assertFalse(run(List.of("ip", "-n", ns, "-6", "route", "show")).out().contains("fd00::/8"));
        send(p, "EXIT");
        assertTrue(p.waitFor(LINE_WAIT_S, TimeUnit.SECONDS), "probe exits");
        assertEquals(0, p.exitValue());
    }

    @Test
    void refusesWhenIpv6IsDisabled() throws Exception {
        final String ns = newNamespace();
        final Run set = run(List.of("ip", "netns", "exec", ns, "sh", "-c",
                "echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6"));
        assumeTrue(set.rc() == 0, "cannot disable IPv6 in the namespace: " + set.out());
        final Process p = startProbe(ns, List.of(), "open", ADDR, "fips0", "1280");
        final String line = expect(lines(p), "ERROR ");
        assertTrue(line.contains("reason=IPV6_DISABLED") && line.contains("disable_ipv6"), line);
        assertTrue(p.waitFor(LINE_WAIT_S, TimeUnit.SECONDS));
        assertNotEquals(0, run(List.of("ip", "-n", ns, "link", "show", "dev", "fips0")).rc(), "nothing was created");
    }

    @Test
    void withoutCapNetAdminSaysSo() throws Exception {
        final String ns = newNamespace();
        assumeTrue(run(List.of("setpriv", "--version")).rc() == 0, "setpriv (util-linux) not installed");
        // Still uid 0 (so the class path stays readable) but with an empty capability bounding set.
        final Process p = startProbe(ns, List.of("setpriv", "--bounding-set=-all", "--inh-caps=-all", "--"),
                "open", ADDR, "fips0", "1280");
        final String line = expect(lines(p), "ERROR ");
        assertTrue(line.contains("reason=PERMISSION") && line.contains("CAP_NET_ADMIN"), line);
        assertTrue(line.contains("errno=1 "), "EPERM from TUNSETIFF: " + line);
        assertTrue(p.waitFor(LINE_WAIT_S, TimeUnit.SECONDS));
        assertNotEquals(0, run(List.of("ip", "-n", ns, "link", "show", "dev", "fips0")).rc(), "nothing was created");
    }

    // ---------------------------------------------------------------- fixtures

    private String newNamespace() throws Exception {
        assumeTrue(isRoot(), "needs root (CAP_NET_ADMIN and ip netns)");
        assumeTrue(Files.exists(Path.of("/dev/net/tun")), "no /dev/net/tun");
        final Run v = run(List.of("ip", "-V"));
        assumeTrue(v.rc() == 0, "iproute2 (ip) not installed");
        final String ns = "fips-test-" + Long.toHexString(new Random().nextLong() & 0xffffffffffL);
        final Run add = run(List.of("ip", "netns", "add", ns));
        assumeTrue(add.rc() == 0, "ip netns add failed: " + add.out());
        netns = ns;
        run(List.of("ip", "-n", ns, "link", "set", "lo", "up"));
        return ns;
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (final Process p : children) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (netns != null) {
            run(List.of("ip", "netns", "del", netns));
        }
    }

    private Process startProbe(final String ns, final List<String> wrapper, final String... args) throws IOException {
        final Process p = NamespaceProbes.startProbe(ns, wrapper, TunProbe.class,
                List.of(TunDevice.class, Syscalls.class), args);
        children.add(p);
        return p;
    }

    private static String ip(final String ns, final String... args) throws Exception {
        final List<String> cmd = new ArrayList<>(List.of("ip", "-n", ns));
        cmd.addAll(List.of(args));
        final Run r = run(cmd);
        assertEquals(0, r.rc(), String.join(" ", cmd) + ": " + r.out());
        return r.out();
    }

}
