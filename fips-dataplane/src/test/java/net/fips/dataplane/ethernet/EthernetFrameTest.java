package net.fips.dataplane.ethernet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.wire.WireError;
import net.fips.dataplane.wire.WireResult;

/** The frame formats of transports.md §4.2, byte for byte, and the MAC and config helpers. */
class EthernetFrameTest {
    private static final HexFormat HEX = HexFormat.of();

    private static WireError error(final String hex) {
        final byte[] b = HEX.parseHex(hex);
        return new EthernetFrame().wrap(b, 0, b.length).errorOrNull();
    }

    @Test
    void dataFrameIsTypeLengthLePacket() {
        final byte[] packet = HEX.parseHex("01020304050607");
        assertEquals("000700" + "01020304050607", HEX.formatHex(EthernetFrame.dataFrame(packet)));
        final byte[] big = new byte[0x1234];
        assertEquals("003412", HEX.formatHex(EthernetFrame.dataFrame(big), 0, 3), "length is little endian");
    }

    @Test
    void paddingAfterTheLengthIsIgnored() {
        final byte[] padded = HEX.parseHex("000400deadbeef" + "00".repeat(40));
        final EthernetFrame f = new EthernetFrame();
        assertTrue(f.wrap(padded, 0, padded.length).isOk());
        assertEquals(EthernetFrame.TYPE_DATA, f.type());
        assertEquals(4, f.payloadLength());
        assertEquals(3, f.payloadOffset());
    }

    @Test
    void beaconIsTypeVersionKey() {
        final byte[] key = HEX.parseHex("aa".repeat(31) + "01");
        final byte[] beacon = EthernetFrame.beacon(key);
        assertEquals("0101" + "aa".repeat(31) + "01", HEX.formatHex(beacon));
        assertEquals(34, beacon.length);
        final byte[] padded = new byte[46];
        System.arraycopy(beacon, 0, padded, 0, 34);
        final EthernetFrame f = new EthernetFrame();
        assertTrue(f.wrap(padded, 0, padded.length).isOk(), "trailing padding is ignored");
        assertEquals(EthernetFrame.TYPE_BEACON, f.type());
        assertArrayEquals(key, f.beaconKey());
    }

    @Test
    void malformedFramesAreTypedErrors() {
        assertEquals(WireError.TRUNCATED, error(""));
        assertEquals(WireError.TRUNCATED, error("00"));
        assertEquals(WireError.TRUNCATED, error("0001"));
        assertEquals(WireError.BAD_LENGTH, error("000200aa"), "length beyond the bytes received");
        assertEquals(null, error("000000"), "an empty packet is a well formed frame");
        assertEquals(WireError.TRUNCATED, error("0101" + "aa".repeat(31)));
        assertEquals(WireError.BAD_VERSION, error("0102" + "aa".repeat(32)));
        assertEquals(WireError.BAD_TYPE, error("02"));
        assertEquals(WireError.BAD_TYPE, error("ff00000000"));
        final byte[] b = new byte[8];
        assertEquals(WireError.BAD_LENGTH, new EthernetFrame().wrap(MemorySegment.ofArray(b), 4, 5).errorOrNull(),
                "a window outside the segment");
        assertEquals(WireError.BAD_LENGTH, new EthernetFrame().wrap(MemorySegment.ofArray(b), -1, 2).errorOrNull());
    }

    @Test
    void errorsAreSharedAndViewsReused() {
        final EthernetFrame f = new EthernetFrame();
        final WireResult<EthernetFrame> ok1 = f.wrap(HEX.parseHex("000000"), 0, 3);
        final WireResult<EthernetFrame> ok2 = f.wrap(HEX.parseHex("000100ff"), 0, 4);
        assertSame(ok1, ok2, "a wrap allocates nothing");
        assertSame(f.wrap(new byte[0], 0, 0), new EthernetFrame().wrap(new byte[0], 0, 0));
    }

    @Test
    void encodersRefuseWhatCannotBeEncoded() {
        assertThrows(IllegalArgumentException.class, () -> EthernetFrame.beacon(new byte[31]));
        assertThrows(IllegalArgumentException.class, () -> EthernetFrame.dataFrame(new byte[0x10000]));
    }

    @Test
    void macAddressText() {
        assertEquals(0x0200_5e00_000aL, MacAddress.parse("02:00:5e:00:00:0a"));
        assertEquals(0x0200_5e00_000aL, MacAddress.parse("02-00-5E-00-00-0A"));
        assertEquals("02:00:5e:00:00:0a", MacAddress.format(0x0200_5e00_000aL));
        assertEquals("ff:ff:ff:ff:ff:ff", MacAddress.format(MacAddress.BROADCAST));
        assertArrayEquals(HEX.parseHex("02005e00000a"), MacAddress.toBytes(0x0200_5e00_000aL));
        assertEquals(0x0200_5e00_000aL, MacAddress.fromBytes(HEX.parseHex("02005e00000a")));
        for (final String bad : new String[] {"", "02:00:5e:00:00", "02:00:5e:00:00:0a:0b", "02:00:5e:00:00:g0",
                "2:00:5e:00:00:0a", "02:00:5e:00:00:0a:"}) {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> MacAddress.parse(bad), bad);
            assertTrue(e.getMessage().contains(bad), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> MacAddress.fromBytes(new byte[5]));
        assertTrue(MacAddress.isGroup(MacAddress.BROADCAST));
        assertTrue(MacAddress.isGroup(0x0100_5e00_0001L), "IPv4 multicast");
        assertFalse(MacAddress.isGroup(0x0200_5e00_000aL));
    }

    @Test
    void effectiveMtuIsInterfaceMtuMinusThree() {
        assertEquals(1497, EthernetTransport.effectiveMtu(0, 1500));
        assertEquals(1280, EthernetTransport.effectiveMtu(1280, 1500));
        assertEquals(1497, EthernetTransport.effectiveMtu(9000, 1500), "capped at the interface");
        assertEquals(8997, EthernetTransport.effectiveMtu(0, 9000));
        assertEquals(0xFFFF, EthernetTransport.effectiveMtu(0, 70000), "the length field's limit");
    }

    @Test
    void badSettingsAreRefusedBeforeAnySyscall() {
        final EthernetTransportConfig ok = EthernetTransportConfig.of("eth0");
        assertEquals(null, ok.problem());
        assertEquals(0x2121, ok.etherType());
        assertEquals(2 * 1024 * 1024, ok.recvBufSize());
        assertTrue(ok.discovery());
        for (final EthernetTransportConfig bad : new EthernetTransportConfig[] {
                EthernetTransportConfig.of(""), EthernetTransportConfig.of("sixteen-chars-xx"),
                EthernetTransportConfig.of("a/b"), EthernetTransportConfig.of("a b"), ok.withEtherType(0x05ff),
                ok.withEtherType(0x10000), ok.withMtu(113), ok.withMtu(0x10000), ok.withBuffers(0, 1),
                ok.withBeaconKey(new byte[31]), ok.withBatch(0)}) {
            final EthernetTransportException e = assertThrows(EthernetTransportException.class,
                    () -> EthernetTransport.open(bad), bad.toString());
            assertEquals(EthernetTransportException.Reason.INVALID_CONFIG, e.reason(), e.getMessage());
        }
    }
}
