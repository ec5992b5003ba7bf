package net.fips.dataplane.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Random;

import org.junit.jupiter.api.Test;

class TransportAddrTest {

    @Test
    void textIsShownAsIs() {
        assertEquals("127.0.0.1:2121", TransportAddr.ofText("127.0.0.1:2121").toString());
        assertEquals("hci0/AA:BB:CC:DD:EE:FF", TransportAddr.ofText("hci0/AA:BB:CC:DD:EE:FF").toString());
        // Six bytes of valid UTF-8 are text, not a MAC (the reference tries UTF-8 first).
        assertEquals("abcdef", TransportAddr.of("abcdef".getBytes()).toString());
    }

    @Test
    void macAndHexDisplay() {
        final byte[] mac = {(byte) 0xAA, (byte) 0xBB, (byte) 0xCC, 0x01, 0x02, (byte) 0xFF};
        assertEquals("aa:bb:cc:01:02:ff", TransportAddr.ofMac(mac).toString());
        assertEquals("ff00fe", TransportAddr.of(new byte[]{(byte) 0xFF, 0x00, (byte) 0xFE}).toString());
        assertNull(TransportAddr.ofMac(mac).text());
        assertThrows(IllegalArgumentException.class, () -> TransportAddr.ofMac(new byte[5]));
    }

    @Test
    void inetForms() throws Exception {
        assertEquals("10.0.0.1:2121",
                TransportAddr.ofInet(new InetSocketAddress(InetAddress.getByName("10.0.0.1"), 2121)).toString());
        assertEquals("[0:0:0:0:0:0:0:1]:9",
                TransportAddr.ofInet(new InetSocketAddress(InetAddress.getByName("::1"), 9)).toString());
        assertEquals("example.org:443",
                TransportAddr.ofInet(InetSocketAddress.createUnresolved("example.org", 443)).toString());
    }

    @Test
    void valueEqualityAndImmutability() {
        final byte[] b = {1, 2, 3};
        final TransportAddr a = TransportAddr.of(b);
        b[0] = 9;
        assertEquals(TransportAddr.of(new byte[]{1, 2, 3}), a);
        assertEquals(TransportAddr.of(new byte[]{1, 2, 3}).hashCode(), a.hashCode());
        a.bytes()[1] = 7;
        assertEquals(TransportAddr.of(new byte[]{1, 2, 3}), a);
        assertNotEquals(TransportAddr.ofText("a"), TransportAddr.ofText("b"));
    }

    /** Any bytes display without an exception, and equal bytes give equal addresses. */
    @Test
    void fuzzDisplayNeverThrows() {
        final Random r = new Random(0x7A_DD_12L);
        for (int i = 0; i < 20_000; i++) {
            final byte[] b = new byte[r.nextInt(40)];
            r.nextBytes(b);
            final TransportAddr a = TransportAddr.of(b);
            final String shown = a.toString();
            if (a.text() == null && b.length == 6) {
                assertEquals(17, shown.length());
            } else if (a.text() == null) {
                assertEquals(2 * b.length, shown.length());
            }
            assertEquals(a, TransportAddr.of(b.clone()));
        }
    }
}
