package net.fips.control.nat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

/** The STUN subset of discovery-gateway.md §2.2, against the spec's byte vectors. */
class StunTest {

    private static final HexFormat HEX = HexFormat.of();
    private static final byte[] TXID = HEX.parseHex("0102030405060708090a0b0c");

    @Test
    void bindingRequestIsTheSpecVector() {
        assertArrayEquals(HEX.parseHex("000100002112a4420102030405060708090a0b0c"), Stun.bindingRequest(TXID));
        assertThrows(IllegalArgumentException.class, () -> Stun.bindingRequest(new byte[11]));
    }

    @Test
    void xorMappedAddressOfTheSpecVector() {
        final byte[] answer =
                HEX.parseHex("0101000c2112a4420102030405060708090a0b0c" + "00200008" + "0001d322ea12d548");
        assertEquals(new InetSocketAddress(InetAddress.ofLiteral("203.0.113.10"), 62000),
                Stun.mappedAddress(answer, answer.length, TXID));
    }

    @Test
    void anAnswerToAnotherRequestOrOfAnotherTypeOrCookieIsNotOurs() {
        final byte[] answer =
                HEX.parseHex("0101000c2112a4420102030405060708090a0b0c" + "00200008" + "0001d322ea12d548");
        assertNull(Stun.mappedAddress(answer, answer.length, HEX.parseHex("0102030405060708090a0b0d")));
        final byte[] error = answer.clone();
        error[0] = 0x01;
        error[1] = 0x11;
        assertNull(Stun.mappedAddress(error, error.length, TXID), "an error response: keep waiting");
        final byte[] cookie = answer.clone();
        cookie[4] = 0x22;
        assertNull(Stun.mappedAddress(cookie, cookie.length, TXID));
        assertNull(Stun.mappedAddress(answer, 19, TXID), "shorter than a header");
    }

    @Test
    void skipsOtherAttributesAndTakesTheFirstThatParses() {
        // SOFTWARE (0x8022, 5 bytes padded to 8), a MAPPED-ADDRESS with an unknown family (skipped), then a plain
        // MAPPED-ADDRESS 198.51.100.7:3478, then an XOR-MAPPED-ADDRESS that comes too late to count.
        final String body = "80220005" + "6162636465000000"
                + "00010008" + "0003" + "0d96" + "c6336407"
                + "00010008" + "0001" + "0d96" + "c6336407"
                + "00200008" + "0001d322ea12d548";
        final int len = body.length() / 2;
        final byte[] answer = HEX.parseHex(String.format("0101%04x2112a4420102030405060708090a0b0c", len) + body);
        assertEquals(new InetSocketAddress(InetAddress.ofLiteral("198.51.100.7"), 3478),
                Stun.mappedAddress(answer, answer.length, TXID));
    }

    @Test
    void xorMappedIpv6IsXoredWithCookieAndTransactionId() {
        final byte[] ip = InetAddress.ofLiteral("2001:db8::1").getAddress();
        final byte[] mask = HEX.parseHex("2112a442" + "0102030405060708090a0b0c");
        final StringBuilder xored = new StringBuilder();
        for (int i = 0; i < 16; i++) {
            xored.append(String.format("%02x", (ip[i] ^ mask[i]) & 0xff));
        }
        final int port = 443 ^ 0x2112;
        final byte[] answer = HEX.parseHex("010100182112a4420102030405060708090a0b0c" + "00200014" + "0002"
                + String.format("%04x", port) + xored);
        assertEquals(new InetSocketAddress(InetAddress.ofLiteral("2001:db8::1"), 443),
                Stun.mappedAddress(answer, answer.length, TXID));
    }

    @Test
    void anAttributeRunningPastTheDatagramStopsTheWalk() {
        final byte[] answer =
                HEX.parseHex("0101000c2112a4420102030405060708090a0b0c" + "00200010" + "0001d322ea12d548");
        assertNull(Stun.mappedAddress(answer, answer.length, TXID));
        final byte[] shortV4 = HEX.parseHex("010100082112a4420102030405060708090a0b0c" + "00200004" + "0001d322");
        assertNull(Stun.mappedAddress(shortV4, shortV4.length, TXID), "an IPv4 value needs 8 bytes");
    }

    @Test
    void serverStringsAsTheReferenceReadsThem() {
        assertEquals(new StunServer("stun.example.org", 3478), StunServer.parse("stun:stun.example.org:3478"));
        assertEquals(new StunServer("198.18.0.1", 3478), StunServer.parse("198.18.0.1:3478"));
        assertEquals(new StunServer("2001:db8::1", 3478), StunServer.parse("stun:[2001:db8::1]:3478"));
        for (final String bad : new String[] {"stuns:a.example:5349", "turn:a.example:3478", "stun:a.example",
            "a.example:port", "a.example:70000", ":3478", "a.example:+3"}) {
            assertThrows(IllegalArgumentException.class, () -> StunServer.parse(bad), bad);
        }
    }
}
