package net.fips.dataplane.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** NodeAddr's short text form, which packs the first four bytes out of a signed long. */
class NodeAddrTest {

    @Test
    void shortHexIsTheFirstFourBytesEvenWhenTheTopBitIsSet() {
        assertEquals("01234567...", NodeAddr.ofHex("0123456789abcdeffedcba9876543210").shortHex());
        assertEquals("ff00000a...", NodeAddr.ofHex("ff00000a000000000000000000000000").shortHex());
        assertEquals("00000000...", NodeAddr.ZERO.shortHex());
    }
}
