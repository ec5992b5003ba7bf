package net.fips.dataplane.udp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/** Address text: literals parse without a look-up, names are recognised as needing one, bad text fails clearly. */
class UdpAddressesTest {

    @Test
    void literalsParseAndNeedNoLookup() throws Exception {
        assertEquals(new InetSocketAddress("127.0.0.1", 2121), UdpAddresses.parse("127.0.0.1:2121"));
        assertEquals(new InetSocketAddress("::1", 8443), UdpAddresses.parse("[::1]:8443"));
        for (final String t : new String[] {"127.0.0.1:2121", "10.0.0.255:0", "[::1]:8443", "[fe80::1%lo]:2121"}) {
            assertFalse(UdpAddresses.needsLookup(t), t);
        }
    }

    @Test
    void namesNeedALookup() {
        for (final String t : new String[] {"peer.example:2121", "localhost:2121", "1.2.3.4.5:2121", "1.2.3:2121",
                "1234.1.1.1:2121", "a1.2.3.4:2121"}) {
            assertTrue(UdpAddresses.needsLookup(t), t);
        }
    }

    @Test
    void malformedTextFailsWithoutALookup() {
        for (final String t : new String[] {"", " ", "host", "host:", ":2121", "host:x", "host:70000", "::1:2121",
                "[127.0.0.1]:2121", "[::1]2121", "[::1", "[a:b]:2121", "[1:2:3:4:5:6:7:8:9]:1"}) {
            assertFalse(UdpAddresses.needsLookup(t), t);
            final UdpTransportException e = assertThrows(UdpTransportException.class, () -> UdpAddresses.parse(t), t);
            assertTrue(e.getMessage().startsWith("UDP address"), e.getMessage());
        }
        assertFalse(UdpAddresses.needsLookup(null));
    }

    @Test
    void randomTextNeverThrowsAnythingElse() {
        final SplittableRandom r = new SplittableRandom(0xF1F5L);
        final String alphabet = "0123456789.:[]%abz-";
        for (int i = 0; i < 20_000; i++) {
            final StringBuilder b = new StringBuilder();
            final int n = r.nextInt(24);
            for (int j = 0; j < n; j++) {
                b.append(alphabet.charAt(r.nextInt(alphabet.length())));
            }
            final String t = b.toString();
            if (UdpAddresses.needsLookup(t)) {
                continue;   // a name: parsing it would ask a name server, which tests never do
            }
            try {
                UdpAddresses.parse(t);
            } catch (final UdpTransportException e) {
                assertTrue(e.getMessage().startsWith("UDP address"), t + ": " + e.getMessage());
            }
        }
    }
}
