package net.fips.dataplane.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

/** Bloom filter bit placement (routing-session.md §2.1 vectors) and FilterAnnounce refusal rules. */
class BloomFilterTest {

    @Test
    void bitIndicesMatchTheSpecVectors() {
        assertArrayEquals(new int[] {1470, 3195, 4920, 6645, 178},
                BloomFilter.bitIndices(NodeAddr.ofHex("000102030405060708090a0b0c0d0e0f"), 8192, 5));
        assertArrayEquals(new int[] {6988, 2477, 6158, 1647, 5328},
                BloomFilter.bitIndices(NodeAddr.ofHex("01000000000000000000000000000000"), 8192, 5));
    }

    @Test
    void bitsAreLsbFirstWithinEachByte() {
        final BloomFilter f = BloomFilter.create();
        f.insert(NodeAddr.ofHex("000102030405060708090a0b0c0d0e0f"));
        final byte[] b = f.toBytes();
        // 1470 = 183*8+6, 3195 = 399*8+3, 4920 = 615*8+0, 6645 = 830*8+5, 178 = 22*8+2
        assertEquals(0x40, b[183] & 0xFF);
        assertEquals(0x08, b[399] & 0xFF);
        assertEquals(0x01, b[615] & 0xFF);
        assertEquals(0x20, b[830] & 0xFF);
        assertEquals(0x04, b[22] & 0xFF);
        assertEquals(5, f.countOnes());
    }

    @Test
    void mergeAndEstimate() {
        final BloomFilter a = BloomFilter.create();
        final BloomFilter b = BloomFilter.create();
        final NodeAddr x = NodeAddr.ofHex("11111111111111111111111111111111");
        final NodeAddr y = NodeAddr.ofHex("22222222222222222222222222222222");
        a.insert(x);
        b.insert(y);
        assertFalse(a.contains(y));
        a.merge(b);
        assertTrue(a.contains(x) && a.contains(y));
        assertEquals(2.0, a.estimatedCount(0.2), 0.05);
        final BloomFilter full = BloomFilter.fromBytes(filled(1024, (byte) 0xFF), 5);
        assertTrue(Double.isNaN(full.estimatedCount(1.0)));
    }

    @Test
    void filterAnnounceRefusesWhatTheReferenceRefuses() {
        final byte[] ok = FilterAnnounce.v1(9, BloomFilter.create()).encode();
        assertEquals(1035, ok.length);
        assertTrue(FilterAnnounce.decode(ok, 0, ok.length).isOk());

        final byte[] hash0 = ok.clone();
        hash0[9] = 0;
        assertEquals(WireError.INVALID_FIELD, FilterAnnounce.decode(hash0, 0, hash0.length).errorOrNull());
        for (final int sc : new int[] {0, 2, 3, 4, 200}) {
            final byte[] m = ok.clone();
            m[10] = (byte) sc;
            assertEquals(WireError.INVALID_FIELD, FilterAnnounce.decode(m, 0, m.length).errorOrNull(), "class " + sc);
        }
        assertEquals(WireError.TRUNCATED, FilterAnnounce.decode(ok, 0, ok.length - 1).errorOrNull());
        final byte[] longer = Arrays.copyOf(ok, ok.length + 1);
        assertEquals(WireError.TRAILING, FilterAnnounce.decode(longer, 0, longer.length).errorOrNull());
    }

    private static byte[] filled(final int n, final byte v) {
        final byte[] b = new byte[n];
        Arrays.fill(b, v);
        return b;
    }
}
