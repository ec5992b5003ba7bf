package net.fips.ffm.linux;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CapabilitiesTest {

    @Test
    void probeAnswersWithReasons() {
        assertTrue(Capabilities.nativeAccess(), Capabilities.nativeAccessProblem());
        final UdpOffloadProbe.Result r = Capabilities.udpOffload();
        assertNotNull(r.gsoReason());
        assertNotNull(r.groReason());
        System.out.println("UDP offload probe: " + r);
        // This kernel (transports.md §8.9) supports both; a "no" must say why.
        assertTrue(r.gso() || !r.gsoReason().isEmpty());
        assertTrue(r.gso(), r.gsoReason());
        assertTrue(r.gro(), r.groReason());
    }
}
