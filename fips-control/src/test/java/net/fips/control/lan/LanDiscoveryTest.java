package net.fips.control.lan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;

import org.junit.jupiter.api.Test;

/** {@link LanDiscovery} without sockets: the scope a resolved IPv6 link-local address is given. */
class LanDiscoveryTest {

    @Test
    void aScopeLessLinkLocalAddressGetsTheScopeOfTheInterfaceItWasHeardOn() throws Exception {
        final NetworkInterface nif = Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
                .filter(n -> !isLoopback(n)).findFirst().orElse(null);
        assumeTrue(nif != null, "needs an interface besides loopback");
        final InetAddress ll = InetAddress.ofLiteral("fe80::2");
        final InetAddress scoped = LanDiscovery.withScope(ll, nif);
        assertEquals(nif.getIndex(), ((Inet6Address) scoped).getScopeId());
        assertEquals(ll, scoped, "the same address");
        assertTrue(LanAdvert.dialable(scoped));
        assertFalse(LanAdvert.dialable(ll), "without it, it is skipped (discovery-gateway.md §3.2)");
    }

    @Test
    void otherAddressesAndLoopbackAreLeftAsTheyAre() throws Exception {
        final NetworkInterface lo = Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
                .filter(LanDiscoveryTest::isLoopback).findFirst().orElseThrow();
        final InetAddress ll = InetAddress.ofLiteral("fe80::2");
        assertSame(ll, LanDiscovery.withScope(ll, lo), "loopback has no IPv6 multicast: no scope to give");
        assertFalse(LanAdvert.dialable(LanDiscovery.withScope(ll, lo)));
        assertSame(ll, LanDiscovery.withScope(ll, null));
        final InetAddress ula = InetAddress.ofLiteral("fd00:77::2");
        assertSame(ula, LanDiscovery.withScope(ula, lo));
        final InetAddress v4 = InetAddress.ofLiteral("10.0.0.2");
        assertSame(v4, LanDiscovery.withScope(v4, lo));
        final InetAddress already = Inet6Address.getByAddress(null, ll.getAddress(), 7);
        assertSame(already, LanDiscovery.withScope(already, lo), "a scope it has is kept");
    }

    private static boolean isLoopback(final NetworkInterface n) {
        try {
            return n.isLoopback();
        } catch (final SocketException e) {
            throw new IllegalStateException(e);
        }
    }
}
