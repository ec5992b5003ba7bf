package net.fips.control.lan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** What a node announces over mDNS and which announcements it accepts (discovery-gateway.md §3.1-§3.2). */
class LanAdvertTest {

    private static final String NPUB = "npub1sg6plzptd64u62a878hep2kev88swjh3tw00gjsfl8f237lmu63q0uf63m";

    @Test
    void theDefaultScopeIsTheNostrAppSoDefaultReferenceNodesAcceptUs() {
        assertEquals("fips-overlay-v1", LanAdvert.scope(null, null));
        assertEquals("fips-overlay-v1", LanAdvert.scope("", "fips-overlay-v1"));
        assertEquals("lab", LanAdvert.scope(null, "fips-overlay-v1:lab"));
        assertEquals("", LanAdvert.scope(null, "fips-overlay-v1:"));
        assertEquals("my-app", LanAdvert.scope(null, "my-app"));
        assertEquals("home", LanAdvert.scope("home", "fips-overlay-v1:lab"));
    }

    @Test
    void instanceNameAndTxt() {
        assertEquals("fips-npub1sg6plzptd64", LanAdvert.instanceName(NPUB));
        assertEquals(Map.of("npub", NPUB, "scope", "fips-overlay-v1", "v", "1"),
                LanAdvert.txt(NPUB, "fips-overlay-v1"));
        assertEquals(List.of("npub", "v"), List.copyOf(LanAdvert.txt(NPUB, "").keySet()), "no scope entry when none");
        assertTrue(LanAdvert.validServiceType("_fips._udp.local."));
        assertTrue(LanAdvert.validServiceType("_lab._tcp.local."));
        assertFalse(LanAdvert.validServiceType("_fips._udp.local"));
    }

    @Test
    void acceptsOthersInOurScopeOnly() {
        final String other = "npub1other";
        assertNull(LanAdvert.refusal(other, "fips-overlay-v1", NPUB, "fips-overlay-v1"));
        assertNotNull(LanAdvert.refusal(other, null, NPUB, "fips-overlay-v1"), "no scope differs from ours");
        assertNotNull(LanAdvert.refusal(other, "lab", NPUB, "fips-overlay-v1"));
        assertNull(LanAdvert.refusal(other, "lab", NPUB, ""), "a scope-less node accepts every scope");
        assertNull(LanAdvert.refusal(other, null, NPUB, ""));
        assertNotNull(LanAdvert.refusal(NPUB, "fips-overlay-v1", NPUB, "fips-overlay-v1"), "our own");
        assertNotNull(LanAdvert.refusal(null, "fips-overlay-v1", NPUB, "fips-overlay-v1"));
        assertNotNull(LanAdvert.refusal("", null, NPUB, ""));
    }

    @Test
    void linkLocalIpv6WithoutAScopeCannotBeDialled() throws Exception {
        assertTrue(LanAdvert.dialable(InetAddress.ofLiteral("192.168.1.20")));
        assertTrue(LanAdvert.dialable(InetAddress.ofLiteral("fd00::1")));
        assertFalse(LanAdvert.dialable(InetAddress.ofLiteral("fe80::1")));
        assertTrue(LanAdvert.dialable(Inet6Address.getByAddress(null,
                InetAddress.ofLiteral("fe80::1").getAddress(), 2)));
    }
}
