package net.fips.control.nat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Host candidates (discovery-gateway.md §2.3) from a scripted interface list and route table: which interface
 * addresses count, the two route probes, unspecified addresses dropped, each address once, the socket's port.
 */
class LocalCandidatesTest {

    private static InetAddress ip(final String text) {
        return InetAddress.ofLiteral(text);
    }

    private static LocalCandidates.InterfaceAddress up(final String name, final String address) {
        return new LocalCandidates.InterfaceAddress(name, true, false, ip(address));
    }

    private static List<String> texts(final List<InetSocketAddress> list) {
        final List<String> out = new ArrayList<>();
        for (final InetSocketAddress a : list) {
            out.add(LocalCandidates.text(a.getAddress()) + " " + a.getPort());
        }
        return out;
    }

    @Test
    void privateInterfaceAddressesThenTheRouteSourcesEachOnceWithTheSocketsPort() throws Exception {
        // fd00::5 with a scope id, as NetworkInterface reports interface addresses.
        final InetAddress scopedUla = Inet6Address.getByAddress(null, ip("fd00::5").getAddress(), 2);
        final List<LocalCandidates.InterfaceAddress> ifaces = List.of(
                new LocalCandidates.InterfaceAddress("lo", true, true, ip("127.0.0.1")),
                new LocalCandidates.InterfaceAddress("lo", true, true, ip("::1")),
                up("eth0", "192.168.1.10"),
                up("eth0", "fe80::1"),
                up("eth0", "198.18.0.9"),
                new LocalCandidates.InterfaceAddress("eth0", true, false, scopedUla),
                new LocalCandidates.InterfaceAddress("wlan0", false, false, ip("10.9.9.9")),
                // A loopback-flagged interface with a private address does not count either.
                new LocalCandidates.InterfaceAddress("dummy", true, true, ip("10.7.7.7")),
                up("docker0", "172.17.0.1"),
                up("eth1", "172.32.0.1"),
                up("eth1", "172.15.255.1"),
                up("fips0", "fdab:cd::1"),
                up("eth0", "192.168.1.10"));
        final List<InetSocketAddress> probed = new ArrayList<>();
        final LocalCandidates c = new LocalCandidates(() -> ifaces, to -> {
            probed.add(to);
            // The kernel's choice: IPv4 a private address already listed, IPv6 a public one.
            return to.getAddress().getAddress().length == 4 ? ip("192.168.1.10") : ip("2001:db8::77");
        });
        assertEquals(List.of("192.168.1.10 41000", "fd00::5 41000", "172.17.0.1 41000", "fdab:cd::1 41000",
                "2001:db8::77 41000"), texts(c.collect(41000)));
        assertEquals(List.of(new InetSocketAddress(ip("8.8.8.8"), 80),
                new InetSocketAddress(ip("2001:4860:4860::8888"), 80)), probed);
        for (final InetSocketAddress a : c.collect(41000)) {
            assertTrue(!(a.getAddress() instanceof Inet6Address v6) || v6.getScopeId() == 0, "no scope id: " + a);
        }
    }

    @Test
    void unspecifiedAndMissingRouteSourcesAreDroppedAndABrokenListGivesNoInterfaceCandidates() {
        final LocalCandidates offline = new LocalCandidates(() -> List.of(up("eth0", "10.0.0.2")),
                to -> to.getAddress().getAddress().length == 4 ? ip("0.0.0.0") : null);
        assertEquals(List.of("10.0.0.2 5"), texts(offline.collect(5)));
        final LocalCandidates broken = new LocalCandidates(() -> {
            throw new IOException("no netlink");
        }, to -> to.getAddress().getAddress().length == 4 ? ip("198.18.0.4") : ip("::"));
        assertEquals(List.of("198.18.0.4 7"), texts(broken.collect(7)));
        assertEquals(List.of(), new LocalCandidates(List::of, to -> null).collect(7));
    }

    @Test
    void theFilterIsRfc1918AndUniqueLocal() {
        for (final String in : List.of("10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.255", "192.168.0.1",
                "fc00::1", "fd12:3456::1", "fdff:ffff::1")) {
            assertTrue(LocalCandidates.isPrivateCandidate(ip(in)), in);
        }
        for (final String out : List.of("8.8.8.8", "172.15.0.1", "172.32.0.1", "192.169.0.1", "100.64.0.1",
                "169.254.0.1", "127.0.0.1", "0.0.0.0", "fe80::1", "fec0::1", "::1", "::", "2001:db8::1", "fbff::1",
                "fe00::1")) {
            assertFalse(LocalCandidates.isPrivateCandidate(ip(out)), out);
        }
    }

    @Test
    void ipv6IsPrintedInRfc5952Form() {
        assertEquals("fd00::5", LocalCandidates.text(ip("fd00:0:0:0:0:0:0:5")));
        assertEquals("2001:db8::1:0:0:1", LocalCandidates.text(ip("2001:db8:0:0:1:0:0:1")));
        assertEquals("10.1.0.2", LocalCandidates.text(ip("10.1.0.2")));
    }

    @Test
    void theSystemSourceReadsThisHostWithoutFailing() throws Exception {
        // Whatever this host has: every candidate is private or a route source, never unspecified or loopback-only.
        final List<InetSocketAddress> all = LocalCandidates.system().collect(9);
        for (final InetSocketAddress a : all) {
            assertFalse(a.getAddress().isAnyLocalAddress(), a::toString);
            assertEquals(9, a.getPort());
        }
        boolean anyPrivateUp = false;
        for (final NetworkInterface ni : NetworkInterface.networkInterfaces().toList()) {
            if (ni.isUp() && !ni.isLoopback()) {
                anyPrivateUp |= ni.inetAddresses().anyMatch(LocalCandidates::isPrivateCandidate);
            }
        }
        assertEquals(anyPrivateUp, all.stream().anyMatch(a -> LocalCandidates.isPrivateCandidate(a.getAddress())));
    }
}
