package net.fips.dataplane.ipv6;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The §5.10 budget and the reference's MSS ceilings (tun.rs per-flow tests). */
class EncapsulationBudgetTest {
    @Test
    void constantsAreTheReferences() {
        assertEquals(106, EncapsulationBudget.FIPS_OVERHEAD);
        assertEquals(77, EncapsulationBudget.FIPS_IPV6_OVERHEAD);
        assertEquals(1143, EncapsulationBudget.CONSERVATIVE_MAX_MSS);
        assertEquals(1232, Icmpv6Errors.MAX_QUOTED);
        assertEquals(29, ShimBody.BODY_SHRINK);
        // wire size of an IPv6 packet of n bytes = n + 77: 106 + 4 + 7 + (n - 40)
        final int n = 1000;
        assertEquals(n + EncapsulationBudget.FIPS_IPV6_OVERHEAD, EncapsulationBudget.FIPS_OVERHEAD
                + ShimBody.BODY_HEADER + (n - 40));
    }

    @Test
    void effectiveMtuAndMss() {
        assertEquals(1203, EncapsulationBudget.effectiveIpv6Mtu(1280));
        assertEquals(1323, EncapsulationBudget.effectiveIpv6Mtu(1400));
        assertEquals(0, EncapsulationBudget.effectiveIpv6Mtu(50));
        assertEquals(0, EncapsulationBudget.effectiveIpv6Mtu(-5));
        assertEquals(65535 - 77, EncapsulationBudget.effectiveIpv6Mtu(1 << 20));
        assertEquals(1143, EncapsulationBudget.maxMss(1280));
        assertEquals(0, EncapsulationBudget.maxMss(130));
        assertEquals(1, EncapsulationBudget.maxMss(138));
    }

    @Test
    void perFlowCeilingAsTheReferenceTests() {
        assertEquals(1143, EncapsulationBudget.perFlowMaxMss(1360, -1), "empty lookup: conservative ceiling");
        assertEquals(1100, EncapsulationBudget.perFlowMaxMss(1100, -1), "global already lower");
        assertEquals(1143, EncapsulationBudget.perFlowMaxMss(1360, 1280), "learned path MTU 1280");
        assertEquals(1143, EncapsulationBudget.perFlowMaxMss(1143, 1452), "global smaller than the path");
        assertEquals(1315, EncapsulationBudget.perFlowMaxMss(1360, 1452), "learned value above the conservative");
    }
}
