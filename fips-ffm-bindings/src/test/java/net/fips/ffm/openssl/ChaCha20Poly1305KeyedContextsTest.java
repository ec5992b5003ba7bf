package net.fips.ffm.openssl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The engine keeps {@link ChaCha20Poly1305#KEYED_CONTEXTS} contexts, each re-initialised with the nonce alone while
 * the key is the one it holds. Whatever the order of keys, directions and paths, every output must be what a fresh
 * engine (one full key + nonce init) produces.
 */
class ChaCha20Poly1305KeyedContextsTest {
    private static final int LEN = 1400;
    private static final int AAD = 16;

    @BeforeAll
    static void needsLibcrypto() {
        assumeTrue(Libcrypto.isAvailable(), () -> "libcrypto unavailable: " + Libcrypto.unavailableReason());
    }

    /** Seals {@code plain} under key/nonce with a new engine: the reference output. */
    private static byte[] freshSeal(final byte[] key, final long counter, final byte[] aad, final byte[] plain) {
        try (Arena a = Arena.ofConfined(); ChaCha20Poly1305 e = new ChaCha20Poly1305()) {
            final MemorySegment buf = a.allocate(plain.length + ChaCha20Poly1305.TAG_BYTES);
            MemorySegment.copy(plain, 0, buf, ValueLayout.JAVA_BYTE, 0, plain.length);
            e.seal(native32(a, key), nonce(a, counter), native32(a, aad), 0, aad.length, buf, 0, plain.length);
            return buf.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    private static MemorySegment native32(final Arena a, final byte[] bytes) {
        final MemorySegment s = a.allocate(bytes.length);
        MemorySegment.copy(bytes, 0, s, ValueLayout.JAVA_BYTE, 0, bytes.length);
        return s;
    }

    private static MemorySegment nonce(final Arena a, final long counter) {
        final MemorySegment n = a.allocate(ChaCha20Poly1305.NONCE_BYTES);
        n.set(ValueLayout.JAVA_LONG_UNALIGNED, 4, counter);
        return n;
    }

    @Test
    void interleavedKeysBeyondTheContextCountSealAndOpenAsAFreshEngineDoes() {
        final Random rnd = new Random(20261201);
        final int keyCount = ChaCha20Poly1305.KEYED_CONTEXTS + 3;
        final byte[][] keys = new byte[keyCount][32];
        for (final byte[] k : keys) {
            rnd.nextBytes(k);
        }
        final byte[] aad = new byte[AAD];
        final byte[] plain = new byte[LEN];
        try (Arena a = Arena.ofConfined(); ChaCha20Poly1305 engine = new ChaCha20Poly1305()) {
            final MemorySegment[] keySegs = new MemorySegment[keyCount];
            for (int i = 0; i < keyCount; i++) {
                keySegs[i] = native32(a, keys[i]);
            }
            final MemorySegment aadSeg = a.allocate(AAD);
            final MemorySegment buf = a.allocate(LEN + ChaCha20Poly1305.TAG_BYTES);
            for (int round = 0; round < 400; round++) {
                // mostly two alternating keys (a worker's session and link key), sometimes any of them
                final int k = rnd.nextInt(4) == 0 ? rnd.nextInt(keyCount) : round & 1;
                final long counter = round;
                rnd.nextBytes(aad);
                rnd.nextBytes(plain);
                MemorySegment.copy(aad, 0, aadSeg, ValueLayout.JAVA_BYTE, 0, AAD);
                MemorySegment.copy(plain, 0, buf, ValueLayout.JAVA_BYTE, 0, LEN);
                assertEquals(LEN + 16, engine.seal(keySegs[k], nonce(a, counter), aadSeg, 0, AAD, buf, 0, LEN));
                final byte[] sealed = buf.toArray(ValueLayout.JAVA_BYTE);
                assertArrayEquals(freshSeal(keys[k], counter, aad, plain), sealed, "round " + round + " key " + k);
                // the same engine opens it back, under the same key (a context switching direction) ...
                assertEquals(LEN, engine.open(keySegs[k], nonce(a, counter), aadSeg, 0, AAD, buf, 0, LEN + 16));
                assertArrayEquals(plain, buf.asSlice(0, LEN).toArray(ValueLayout.JAVA_BYTE));
                // ... and refuses it under another key
                final int other = (k + 1 + rnd.nextInt(keyCount - 1)) % keyCount;
                MemorySegment.copy(sealed, 0, buf, ValueLayout.JAVA_BYTE, 0, sealed.length);
                assertEquals(ChaCha20Poly1305.AUTH_FAILED,
                        engine.open(keySegs[other], nonce(a, counter), aadSeg, 0, AAD, buf, 0, LEN + 16));
            }
        }
    }

    @Test
    void aNewKeyWrittenOverAnOldOneAtTheSameAddressIsUsed() {
        final byte[] keyA = new byte[32];
        final byte[] keyB = new byte[32];
        keyB[31] = 1;
        final byte[] aad = new byte[AAD];
        final byte[] plain = new byte[LEN];
        try (Arena a = Arena.ofConfined(); ChaCha20Poly1305 engine = new ChaCha20Poly1305()) {
            final MemorySegment key = native32(a, keyA);
            final MemorySegment aadSeg = a.allocate(AAD);
            final MemorySegment buf = a.allocate(LEN + 16);
            engine.seal(key, nonce(a, 7), aadSeg, 0, AAD, buf, 0, LEN);
            assertArrayEquals(freshSeal(keyA, 7, aad, plain), buf.toArray(ValueLayout.JAVA_BYTE));
            // a rekeyed session reusing the memory: only the last byte differs
            MemorySegment.copy(keyB, 0, key, ValueLayout.JAVA_BYTE, 0, 32);
            buf.fill((byte) 0);
            engine.seal(key, nonce(a, 7), aadSeg, 0, AAD, buf, 0, LEN);
            assertArrayEquals(freshSeal(keyB, 7, aad, plain), buf.toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void theHeapPathDoesNotLeaveAStaleKeyBehind() {
        final byte[] keyA = new byte[32];
        final byte[] keyB = new byte[32];
        keyA[0] = 1;
        keyB[0] = 2;
        final byte[] aad = new byte[AAD];
        final byte[] plain = new byte[LEN];
        try (Arena a = Arena.ofConfined(); ChaCha20Poly1305 engine = new ChaCha20Poly1305()) {
            final MemorySegment aadSeg = a.allocate(AAD);
            final MemorySegment buf = a.allocate(LEN + 16);
            engine.seal(native32(a, keyA), nonce(a, 1), aadSeg, 0, AAD, buf, 0, LEN);
            // heap key: the slice path re-keys context 0 behind the cache's back
            final MemorySegment heapBuf = MemorySegment.ofArray(new byte[LEN + 16]);
            engine.seal(MemorySegment.ofArray(keyB), MemorySegment.ofArray(new byte[12]), aadSeg, 0, AAD, heapBuf, 0,
                    LEN);
            assertArrayEquals(freshSeal(keyB, 0, aad, plain), heapBuf.toArray(ValueLayout.JAVA_BYTE));
            buf.fill((byte) 0);
            engine.seal(native32(a, keyA), nonce(a, 1), aadSeg, 0, AAD, buf, 0, LEN);
            assertArrayEquals(freshSeal(keyA, 1, aad, plain), buf.toArray(ValueLayout.JAVA_BYTE));
        }
    }
}
