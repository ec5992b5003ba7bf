package net.fips.control.link;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HexFormat;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.transport.TransportAddr;

/** How show_peers/show_links print transport addresses. */
class SnapshotsFormatTest {
    @Test
    void macsPrintAsMacsEvenWhenTheirBytesAreAscii() {
        assertEquals("02:00:5e:00:00:0a",
                Snapshots.format(TransportAddr.ofMac(HexFormat.of().parseHex("02005e00000a"))));
        assertEquals("aa:bb:cc:dd:ee:ff",
                Snapshots.format(TransportAddr.ofMac(HexFormat.of().parseHex("aabbccddeeff"))));
        assertEquals("10.0.0.1:2121", Snapshots.format(TransportAddr.ofText("10.0.0.1:2121")));
        assertEquals("h.x:80", Snapshots.format(TransportAddr.ofText("h.x:80")), "printable 6-byte text stays text");
        assertEquals("-", Snapshots.format(null));
    }
}
