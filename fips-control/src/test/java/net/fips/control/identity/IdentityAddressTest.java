package net.fips.control.identity;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import net.fips.control.crypto.Secp256k1;
import net.fips.control.identity.IdentityFormatException.Problem;
import net.fips.dataplane.wire.NodeAddr;

/** NodeAddr and FipsAddress derivation, ordering and text forms. */
class IdentityAddressTest {
    private static final HexFormat HEX = HexFormat.of();

    @Test
    void nodeAddrIsTheFirst16BytesOfSha256OfTheXOnlyKey() {
        final byte[] xOnly = HEX.parseHex("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798");
        final NodeAddr a = NodeAddrs.fromPublicKey(xOnly);
        assertEquals("132f39a98c31baaddba6525f5d43f295", a.toString());
        final byte[] full = Secp256k1.sha256(xOnly);
        final byte[] bytes = a.toBytes();
        for (int i = 0; i < 16; i++) {
            assertEquals(full[i], bytes[i]);
        }
        assertEquals("132f39a9...", a.shortHex());
        // Hashing the compressed form instead would give something else.
        assertNotEquals(a, NodeAddr.of(Arrays.copyOf(Secp256k1.sha256(
                HEX.parseHex("02" + HEX.formatHex(xOnly))), 16)));
    }

    @Test
    void valueSemanticsAndTextRoundTrip() throws IdentityFormatException {
        final NodeAddr a = NodeAddrs.parse("0123456789abcdeffedcba9876543210");
        assertEquals("0123456789abcdeffedcba9876543210", a.toString());
        assertEquals(a, NodeAddrs.parse("0123456789ABCDEFFEDCBA9876543210"));
        assertEquals(a.hashCode(), NodeAddr.of(a.toBytes()).hashCode());
        final byte[] buf = new byte[20];
        a.writeTo(buf, 3);
        assertEquals(a, NodeAddr.of(buf, 3));
        final byte[] copy = a.toBytes();
        copy[0] = 9;
        assertEquals("0123456789abcdeffedcba9876543210", a.toString(), "toBytes is a copy");
        assertEquals(Problem.WRONG_LENGTH, assertThrows(IdentityFormatException.class,
                () -> NodeAddrs.parse("0123")).problem());
        assertEquals(Problem.BAD_HEX, assertThrows(IdentityFormatException.class,
                () -> NodeAddrs.parse("0123456789abcdeffedcba987654321g")).problem());
        assertThrows(IllegalArgumentException.class, () -> NodeAddr.of(new byte[15]));
    }

    @Test
    void orderingIsUnsignedLexicographic() throws IdentityFormatException {
        final NodeAddr low = NodeAddrs.parse("7fffffffffffffffffffffffffffffff");
        final NodeAddr high = NodeAddrs.parse("80000000000000000000000000000000");
        final NodeAddr highest = NodeAddrs.parse("ff000000000000000000000000000000");
        final NodeAddr lastByte = NodeAddrs.parse("7ffffffffffffffffffffffffffffffe");
        assertTrue(low.compareTo(high) < 0, "0x80 sorts after 0x7f (signed bytes would invert this)");
        assertTrue(high.compareTo(highest) < 0);
        assertTrue(lastByte.compareTo(low) < 0);
        final List<NodeAddr> list = new ArrayList<>(List.of(highest, low, high, lastByte));
        Collections.sort(list);
        assertEquals(List.of(lastByte, low, high, highest), list);
        assertEquals(0, low.compareTo(NodeAddrs.parse(low.toString())));
    }

    @Test
    void fipsAddressIsFdThenTheFirst15NodeAddrBytes() throws Exception {
        final NodeAddr n = NodeAddrs.parse("132f39a98c31baaddba6525f5d43f295");
        final FipsAddress f = FipsAddress.fromNodeAddr(n);
        assertEquals("fd132f39a98c31baaddba6525f5d43f2", HEX.formatHex(f.toBytes()));
        assertEquals("fd13:2f39:a98c:31ba:addb:a652:5f5d:43f2", f.toString());
        assertTrue(f.matches(n));
        assertTrue(f.matches(NodeAddrs.parse("132f39a98c31baaddba6525f5d43f200")), "last byte is not visible");
        assertFalse(f.matches(NodeAddrs.parse("232f39a98c31baaddba6525f5d43f295")));
        final Inet6Address inet = f.toInet6Address();
        assertArrayEquals(f.toBytes(), inet.getAddress());
        assertEquals(0, inet.getScopeId());
        assertEquals(f, FipsAddress.of(inet));
        assertEquals(inet, InetAddress.getByName(f.toString()), "the text parses back to the same address");
    }

    @Test
    void fipsAddressRejectsOtherRangesAndLengths() throws Exception {
        final byte[] b = new byte[16];
        b[0] = (byte) 0xfc;
        final IdentityFormatException e = assertThrows(IdentityFormatException.class, () -> FipsAddress.of(b));
        assertEquals(Problem.INVALID_KEY, e.problem());
        assertTrue(e.getMessage().contains("0xfc"), e.getMessage());
        assertEquals(Problem.WRONG_LENGTH, assertThrows(IdentityFormatException.class,
                () -> FipsAddress.of(new byte[15])).problem());
        assertThrows(IdentityFormatException.class,
                () -> FipsAddress.of((Inet6Address) InetAddress.getByName("2001:db8::1")));
    }

    @Test
    void textFormIsRfc5952() {
        assertEquals("fd00::1", FipsAddress.format(HEX.parseHex("fd000000000000000000000000000001")));
        assertEquals("fd00:0:0:1::", FipsAddress.format(HEX.parseHex("fd000000000000010000000000000000")));
        assertEquals("fd00::1:0:0:1:1", FipsAddress.format(HEX.parseHex("fd000000000000010000000000010001")),
                "first of two equal runs");
        assertEquals("fd00:0:1::1:1",
                FipsAddress.format(HEX.parseHex("fd000000000100000000000000010001")), "longest run wins");
        assertEquals("fd00:0:1:2:3:4:5:6", FipsAddress.format(HEX.parseHex("fd000000000100020003000400050006")),
                "a single zero group is not shortened");
        assertEquals("fd12:3:4:5:6:7:8:0", FipsAddress.format(HEX.parseHex("fd120003000400050006000700080000")));
        assertEquals("::", FipsAddress.format(new byte[16]));
        assertEquals("fdab:cdef::", FipsAddress.format(HEX.parseHex("fdabcdef000000000000000000000000")));
    }

    @Test
    void textFormAlwaysParsesBackToTheSameBytes() throws Exception {
        final Random rnd = new Random(5952);
        for (int i = 0; i < 2000; i++) {
            final byte[] b = new byte[16];
            b[0] = (byte) 0xfd;
            for (int g = 1; g < 16; g++) {
                // Plenty of zero bytes so that zero runs of every length occur.
                b[g] = rnd.nextInt(3) == 0 ? (byte) rnd.nextInt(256) : 0;
            }
            final String text = FipsAddress.format(b);
            assertArrayEquals(b, InetAddress.getByName(text).getAddress(), text);
            assertFalse(text.contains(":::"), text);
            assertTrue(text.indexOf("::") == text.lastIndexOf("::"), text);
        }
    }
}
