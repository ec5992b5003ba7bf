package net.fips.dataplane.tor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The address forms of transports.md §6.2 and the typed errors for everything else. */
class TorAddressTest {
    static final String ONION = "vww6ybal4bd7szmgncyruucpgfkqahzddi37ktceo3ah7ngmcopnpyyd.onion";

    @Test
    void onionIsADomainNameWithThePortAfterTheLastColon() throws Exception {
        final TorAddress a = TorAddress.parse(ONION + ":443");
        assertEquals(TorAddress.Kind.ONION, a.kind());
        assertEquals(ONION, a.host());
        assertEquals(443, a.port());
        assertTrue(a.isDomain());
        assertNull(a.ip());
        assertEquals(ONION + ":443", a.text());
    }

    @Test
    void numericIpv4AndIpv6AreSentAsAddresses() throws Exception {
        final TorAddress v4 = TorAddress.parse("192.0.2.7:8443");
        assertEquals(TorAddress.Kind.IP, v4.kind());
        assertArrayEquals(new byte[] {(byte) 192, 0, 2, 7}, v4.ip().getAddress());
        assertEquals(8443, v4.port());
        final TorAddress v6 = TorAddress.parse("[2001:db8::1]:443");
        assertEquals(TorAddress.Kind.IP, v6.kind());
        assertEquals(16, v6.ip().getAddress().length);
        assertEquals("2001:db8::1", v6.host());
        assertEquals(443, v6.port());
    }

    @Test
    void otherHostsMustBeFullyQualifiedAndGoToTheProxyAsNames() throws Exception {
        final TorAddress h = TorAddress.parse("peer.example.com:8443");
        assertEquals(TorAddress.Kind.HOSTNAME, h.kind());
        assertEquals("peer.example.com", h.host());
        assertTrue(h.isDomain());
        // Not a dotted quad (leading zero, too many parts): a name with dots, resolved by the proxy, as in the
        // reference.
        assertEquals(TorAddress.Kind.HOSTNAME, TorAddress.parse("01.2.3.4:80").kind());
        assertEquals(TorAddress.Kind.HOSTNAME, TorAddress.parse("1.2.3.4.5:80").kind());
        assertEquals(TorAddress.Kind.HOSTNAME, TorAddress.parse("256.1.1.1:80").kind());
        final TorAddressException e = assertThrows(TorAddressException.class,
                () -> TorAddress.parse("localhost:9050"));
        assertEquals(TorAddressException.Problem.NOT_QUALIFIED, e.problem());
        assertTrue(e.getMessage().contains("localhost"), e.getMessage());
    }

    /** Nym's rules (transports.md §6.7): any host name, no dot needed; IPs and ports as for Tor. */
    @Test
    void nymAcceptsAnyHostNameAndTheSameIpAndPortForms() throws Exception {
        final TorAddress h = TorAddress.parseNym("localhost:9050");
        assertEquals(TorAddress.Kind.HOSTNAME, h.kind());
        assertEquals("localhost", h.host());
        assertEquals(9050, h.port());
        assertEquals(TorAddress.Kind.IP, TorAddress.parseNym("192.0.2.10:2121").kind());
        assertEquals(TorAddress.Kind.IP, TorAddress.parseNym("[2001:db8::1]:443").kind());
        assertEquals("peer.example.com", TorAddress.parseNym("peer.example.com:8443".getBytes(
                StandardCharsets.UTF_8)).host());
        for (final String bad : new String[] {"peer", "peer:", "peer:http", "peer:0", "peer:65536", ":80"}) {
            assertThrows(TorAddressException.class, () -> TorAddress.parseNym(bad), bad);
        }
        assertThrows(TorAddressException.class, () -> TorAddress.parseNym(new byte[] {(byte) 0xC3, 0x28}));
    }

    @Test
    void badFormsAreTypedErrorsNamingTheText() {
        assertProblem("peer.example.com", TorAddressException.Problem.MISSING_PORT);
        assertProblem("peer.example.com:", TorAddressException.Problem.BAD_PORT);
        assertProblem("peer.example.com:0", TorAddressException.Problem.BAD_PORT);
        assertProblem("peer.example.com:65536", TorAddressException.Problem.BAD_PORT);
        assertProblem("peer.example.com:+80", TorAddressException.Problem.BAD_PORT);
        assertProblem("peer.example.com:http", TorAddressException.Problem.BAD_PORT);
        assertProblem(ONION + ":x", TorAddressException.Problem.BAD_PORT);
        assertProblem("1.2.3.4:99999", TorAddressException.Problem.BAD_PORT);
        assertProblem("[2001:db8::1]:", TorAddressException.Problem.BAD_PORT);
        assertProblem(":443", TorAddressException.Problem.EMPTY_HOST);
        assertProblem("[not:v6]:443", TorAddressException.Problem.BAD_IPV6);
        assertProblem("a.b".repeat(100) + ":443", TorAddressException.Problem.HOST_TOO_LONG);
        final TorAddressException e = assertThrows(TorAddressException.class,
                () -> TorAddress.parse(new byte[] {(byte) 0xC3, 0x28, ':', '1'}));
        assertEquals(TorAddressException.Problem.NOT_UTF8, e.problem());
    }

    @Test
    void bytesAreUtf8Text() throws Exception {
        assertEquals(TorAddress.parse("peer.example.com:1"),
                TorAddress.parse("peer.example.com:1".getBytes(StandardCharsets.UTF_8)));
    }

    private static void assertProblem(final String text, final TorAddressException.Problem p) {
        final TorAddressException e = assertThrows(TorAddressException.class, () -> TorAddress.parse(text));
        assertEquals(p, e.problem(), e.getMessage());
        assertTrue(e.getMessage().contains(p == TorAddressException.Problem.HOST_TOO_LONG ? "255" : text),
                e.getMessage());
    }
}
