package net.fips.control.nat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

import org.junit.jupiter.api.Test;

import net.fips.control.nat.PunchPlan.Entry;
import net.fips.control.nat.PunchPlan.Kind;

/** Target planning of discovery-gateway.md §2.4. */
class PunchPlanTest {

    @Test
    void theReferenceExample() throws PunchFailure {
        final List<Entry> plan = PunchPlan.plan(List.of("192.168.1.10:62000"), "203.0.113.10:62000",
                List.of("192.168.1.20:63000"), "198.51.100.20:63000");
        assertEquals(List.of(
                new Entry(Kind.REFLEXIVE, "203.0.113.10:62000", "198.51.100.20:63000"),
                new Entry(Kind.LAN, "192.168.1.10:62000", "192.168.1.20:63000"),
                new Entry(Kind.MIXED, "192.168.1.10:62000", "198.51.100.20:63000"),
                new Entry(Kind.MIXED, "203.0.113.10:62000", "192.168.1.20:63000")), plan);
        assertEquals(List.of(addr("198.51.100.20", 63000), addr("192.168.1.20", 63000)), PunchPlan.remotes(plan));
    }

    @Test
    void lanPairsNeedTheSameFirstThreeIpv4ComponentsAndIpv6NeverMatches() {
        assertEquals(List.of(), PunchPlan.plan(List.of("192.168.1.10:1"), null, List.of("192.168.2.10:2"), null));
        assertEquals(List.of(), PunchPlan.plan(List.of("[fd00::1]:1"), null, List.of("[fd00::2]:2"), null));
    }

    @Test
    void noTargetsAndBadTargetsFailWithTheReferenceReasons() {
        final PunchFailure none = assertThrows(PunchFailure.class,
                () -> PunchPlan.remotes(PunchPlan.plan(List.of(), null, List.of(), "198.51.100.20:1")));
        assertEquals("no-punch-targets", none.reason());
        final PunchFailure bad = assertThrows(PunchFailure.class,
                () -> PunchPlan.remotes(PunchPlan.plan(List.of(), "203.0.113.10:1", List.of(), "host.example:1")));
        assertEquals("invalid-remote-ip", bad.reason());
    }

    @Test
    void addressesAreLiteralsOnly() {
        assertEquals(addr("::1", 5), PunchPlan.parse("[::1]:5"));
        for (final String bad : new String[] {"::1:5", "[1.2.3.4]:5", "1.2.3.4", "1.2.3.4:", "1.2.3.4:99999",
            "localhost:5", "1.2.3:5", "1.2.3.4:-1"}) {
            assertNull(PunchPlan.parse(bad), bad);
        }
    }

    private static InetSocketAddress addr(final String ip, final int port) {
        return new InetSocketAddress(InetAddress.ofLiteral(ip), port);
    }
}
