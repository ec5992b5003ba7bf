package net.fips.control.nat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.HexFormat;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Coverage-guided fuzzing (Jazzer) of the two decoders of NAT traversal, which read datagrams from anyone who finds
 * the attempt's socket: a STUN answer is an address or null, never an exception; a punch packet that parses encodes
 * back to the bytes it came from.
 *
 * <p>A plain test run replays the committed corpus under
 * {@code src/test/resources/net/fips/control/nat/NatJazzerTestInputs/<method>/} (the spec's vectors); with
 * {@code JAZZER_FUZZ=1} and one target selected Jazzer fuzzes it, see {@code benchmarks/fuzz.sh}.
 */
class NatJazzerTest {

    private static final byte[] TXID = HexFormat.of().parseHex("0102030405060708090a0b0c");

    @FuzzTest
    void stunAnswer(final byte[] in) {
        final InetSocketAddress a = Stun.mappedAddress(in, in.length, TXID);
        assertTrue(a == null || a.getPort() >= 0 && a.getPort() <= 0xffff && !a.isUnresolved());
    }

    @FuzzTest
    void punchPacket(final byte[] in) {
        final PunchPacket p = PunchPacket.parse(in, in.length);
        if (p != null) {
            assertArrayEquals(Arrays.copyOf(in, PunchPacket.BYTES), p.encode());
        }
    }
}
