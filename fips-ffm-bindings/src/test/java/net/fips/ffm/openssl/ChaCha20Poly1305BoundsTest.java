package net.fips.ffm.openssl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's own checks on its address path (all segments native), where the linker checks nothing: every bad
 * region is refused with the documented exception before libcrypto sees an address, so the buffer, its neighbours
 * and the engine's state come through unchanged. Also: heap segments still take the slice path, and the address
 * path allocates nothing.
 */
class ChaCha20Poly1305BoundsTest {
    private static final HexFormat HEX = HexFormat.of();
    /** RFC 8439 §2.8.2. */
    private static final byte[] KEY = HEX.parseHex("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f");
    private static final byte[] NONCE = HEX.parseHex("070000004041424344454647");
    private static final byte[] AAD = HEX.parseHex("50515253c0c1c2c3c4c5c6c7");
    private static final byte[] PLAINTEXT = ("Ladies and Gentlemen of the class of '99: If I could offer you only one "
            + "tip for the future, sunscreen would be it.").getBytes(StandardCharsets.US_ASCII);
    private static final String TAG = "1ae10b594f09e26a7e902ecbd0600691";
    private static final int LEN = PLAINTEXT.length;
    /** Guard bytes on each side of every region, inside one parent segment. */
    private static final int GUARD = 24;

    private Arena arena;
    private ChaCha20Poly1305 engine;
    private MemorySegment parent;
    private MemorySegment key;
    private MemorySegment nonce;
    private MemorySegment aad;
    /** Exactly plaintext + tag, a slice of {@link #parent} with guards around it. */
    private MemorySegment buf;
    private byte[] parentBefore;

    @BeforeAll
    static void needsLibcrypto() {
        assumeTrue(Libcrypto.isAvailable(), () -> "libcrypto unavailable: " + Libcrypto.unavailableReason());
        assumeTrue(Evp.ADDRESSES, "no address path on a 32-bit platform");
    }

    @BeforeEach
    void setUp() {
        arena = Arena.ofConfined();
        engine = new ChaCha20Poly1305();
        final Random rnd = new Random(8439);
        final byte[] guard = new byte[GUARD + KEY.length + GUARD + NONCE.length + GUARD + AAD.length + GUARD + LEN
                + ChaCha20Poly1305.TAG_BYTES + GUARD];
        rnd.nextBytes(guard);
        parent = arena.allocate(guard.length);
        MemorySegment.copy(guard, 0, parent, ValueLayout.JAVA_BYTE, 0, guard.length);
        long at = GUARD;
        key = place(KEY, at);
        at += KEY.length + GUARD;
        nonce = place(NONCE, at);
        at += NONCE.length + GUARD;
        aad = place(AAD, at);
        at += AAD.length + GUARD;
        place(PLAINTEXT, at);
        buf = parent.asSlice(at, LEN + ChaCha20Poly1305.TAG_BYTES);
        parentBefore = parent.toArray(ValueLayout.JAVA_BYTE);
    }

    @AfterEach
    void tearDown() {
        engine.close();
        arena.close();
    }

    private MemorySegment place(final byte[] bytes, final long at) {
        MemorySegment.copy(bytes, 0, parent, ValueLayout.JAVA_BYTE, at, bytes.length);
        return parent.asSlice(at, bytes.length);
    }

    @Test
    void sealRejectsEveryOutOfRangeRegionAndTouchesNothing() {
        final MemorySegment shortKey = key.asSlice(0, KEY.length - 1);
        final MemorySegment shortNonce = nonce.asSlice(0, NONCE.length - 1);
        final MemorySegment tight = buf.asSlice(0, LEN + ChaCha20Poly1305.TAG_BYTES - 1);
        final Runnable[] bad = {
            () -> engine.seal(key, nonce, aad, 0, 12, tight, 0, LEN),          // no room for the last tag byte
            () -> engine.seal(key, nonce, aad, 0, 12, buf, 1, LEN),            // shifted one byte past the end
            () -> engine.seal(key, nonce, aad, 0, 12, buf, -1, LEN),           // negative offset
            () -> engine.seal(key, nonce, aad, 0, 12, buf, Long.MAX_VALUE, 1), // offset + length overflows
            () -> engine.seal(key, nonce, aad, 0, 12, buf, buf.byteSize(), 0), // tag alone past the end
            () -> engine.seal(shortKey, nonce, aad, 0, 12, buf, 0, LEN),
            () -> engine.seal(key, shortNonce, aad, 0, 12, buf, 0, LEN),
            () -> engine.seal(key, nonce, aad, 1, 12, buf, 0, LEN),            // AAD one byte past its end
            () -> engine.seal(key, nonce, aad, -1, 12, buf, 0, LEN),
            () -> engine.seal(key, nonce, aad, 0, 13, buf, 0, LEN),
            () -> engine.seal(key, nonce, MemorySegment.NULL, 0, 12, buf, 0, LEN),
        };
        for (int i = 0; i < bad.length; i++) {
            assertThrows(IndexOutOfBoundsException.class, bad[i]::run, "case " + i);
            assertArrayEquals(parentBefore, parent.toArray(ValueLayout.JAVA_BYTE), "case " + i + " wrote memory");
        }
        // Nothing half-done is left in the context, and the same key and nonce still give the RFC answer.
        assertEquals(LEN + ChaCha20Poly1305.TAG_BYTES, engine.seal(key, nonce, aad, 0, 12, buf, 0, LEN));
        assertEquals(TAG, HEX.formatHex(buf.asSlice(LEN, 16).toArray(ValueLayout.JAVA_BYTE)));
        assertGuardsIntact();
    }

    @Test
    void openRejectsEveryOutOfRangeRegionWithoutWipingOrDecrypting() {
        engine.seal(key, nonce, aad, 0, 12, buf, 0, LEN);
        final byte[] sealed = parent.toArray(ValueLayout.JAVA_BYTE);
        final int all = LEN + ChaCha20Poly1305.TAG_BYTES;
        final Runnable[] bad = {
            () -> engine.open(key, nonce, aad, 0, 12, buf, 0, all + 1),
            () -> engine.open(key, nonce, aad, 0, 12, buf, 1, all),
            () -> engine.open(key, nonce, aad, 0, 12, buf, -1, all),
            () -> engine.open(key, nonce, aad, 0, 12, buf, Long.MAX_VALUE - 8, all),
            () -> engine.open(key.asSlice(1), nonce, aad, 0, 12, buf, 0, all),
            () -> engine.open(key, nonce.asSlice(1), aad, 0, 12, buf, 0, all),
            () -> engine.open(key, nonce, aad, 2, 12, buf, 0, all),
        };
        for (int i = 0; i < bad.length; i++) {
            assertThrows(IndexOutOfBoundsException.class, bad[i]::run, "case " + i);
            // A wipe (failed tag) or a decryption would both change the buffer.
            assertArrayEquals(sealed, parent.toArray(ValueLayout.JAVA_BYTE), "case " + i + " wrote memory");
        }
        assertEquals(LEN, engine.open(key, nonce, aad, 0, 12, buf, 0, all));
        assertArrayEquals(PLAINTEXT, buf.asSlice(0, LEN).toArray(ValueLayout.JAVA_BYTE));
        assertGuardsIntact();
    }

    @Test
    void negativeLengthsAreIllegalArguments() {
        assertThrows(IllegalArgumentException.class, () -> engine.seal(key, nonce, aad, 0, 12, buf, 0, -1));
        assertThrows(IllegalArgumentException.class, () -> engine.seal(key, nonce, aad, 0, -1, buf, 0, LEN));
        assertThrows(IllegalArgumentException.class,
                () -> engine.open(key, nonce, aad, 0, -1, buf, 0, LEN + ChaCha20Poly1305.TAG_BYTES));
        assertArrayEquals(parentBefore, parent.toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void aReadOnlyBufferIsRefused() {
        assertThrows(UnsupportedOperationException.class,
                () -> engine.seal(key, nonce, aad, 0, 12, buf.asReadOnly(), 0, LEN));
        assertArrayEquals(parentBefore, parent.toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void segmentsOfAClosedArenaAreRefusedNotDereferenced() {
        final Arena gone = Arena.ofConfined();
        final MemorySegment goneBuf = gone.allocate(LEN + ChaCha20Poly1305.TAG_BYTES);
        final MemorySegment goneKey = gone.allocate(KEY.length);
        gone.close();
        assertThrows(IllegalStateException.class, () -> engine.seal(key, nonce, aad, 0, 12, goneBuf, 0, LEN));
        assertThrows(IllegalStateException.class, () -> engine.seal(goneKey, nonce, aad, 0, 12, buf, 0, LEN));
        assertArrayEquals(parentBefore, parent.toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void aSegmentConfinedToAnotherThreadIsRefused() throws Exception {
        final ExecutionException e = assertThrows(ExecutionException.class, () -> CompletableFuture.supplyAsync(
                () -> {
                    try (ChaCha20Poly1305 other = new ChaCha20Poly1305()) {
                        return other.seal(key, nonce, aad, 0, 12, buf, 0, LEN);
                    }
                }).get());
        assertTrue(e.getCause() instanceof WrongThreadException, e.getCause().toString());
        assertArrayEquals(parentBefore, parent.toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void heapSegmentsStillWorkThroughTheSlicePath() {
        // The segment-typed handles accept heap memory only when they are critical with heap access.
        assumeTrue(Evp.CRITICAL, "plain downcalls take native segments only");
        final byte[] heap = new byte[GUARD + LEN + ChaCha20Poly1305.TAG_BYTES + GUARD];
        System.arraycopy(PLAINTEXT, 0, heap, GUARD, LEN);
        final MemorySegment heapBuf = MemorySegment.ofArray(heap);
        assertEquals(LEN + ChaCha20Poly1305.TAG_BYTES,
                engine.seal(key, nonce, MemorySegment.ofArray(AAD), 0, 12, heapBuf, GUARD, LEN));
        engine.seal(key, nonce, aad, 0, 12, buf, 0, LEN);
        assertArrayEquals(buf.toArray(ValueLayout.JAVA_BYTE),
                heapBuf.asSlice(GUARD, LEN + ChaCha20Poly1305.TAG_BYTES).toArray(ValueLayout.JAVA_BYTE));
        assertArrayEquals(new byte[GUARD], Arrays.copyOfRange(heap, 0, GUARD));
        assertArrayEquals(new byte[GUARD], Arrays.copyOfRange(heap, heap.length - GUARD, heap.length));
        assertThrows(IndexOutOfBoundsException.class,
                () -> engine.seal(key, nonce, aad, 0, 12, heapBuf, GUARD + 1, LEN + GUARD));
        assertEquals(LEN, engine.open(MemorySegment.ofArray(KEY), nonce, aad, 0, 12, heapBuf, GUARD,
                LEN + ChaCha20Poly1305.TAG_BYTES));
        assertArrayEquals(PLAINTEXT, Arrays.copyOfRange(heap, GUARD, GUARD + LEN));
    }

    @Test
    void theAddressPathAllocatesNothingOnceCompiled() throws Throwable {
        final MethodHandle allocated = threadAllocatedBytes();
        assumeTrue(allocated != null, "no per-thread allocation counter in this JVM");
        final int rounds = 1_000;
        final int all = LEN + ChaCha20Poly1305.TAG_BYTES;
        // Windows of 1000 seal+open pairs until one allocates (almost) nothing: the first is interpreted and
        // allocates, and on a loaded machine the JIT may take a few more. The old slice path never got there in
        // this plain loop (200-400 B per pair for 40 windows); the address path gets there in the second window.
        long best = Long.MAX_VALUE;
        for (int window = 0; window < 20 && best >= 1024; window++) {
            final long before = (long) allocated.invokeExact();
            for (int i = 0; i < rounds; i++) {
                engine.seal(key, nonce, aad, 0, 12, buf, 0, LEN);
                engine.open(key, nonce, aad, 0, 12, buf, 0, all);
            }
            best = Math.min(best, (long) allocated.invokeExact() - before);
        }
        final long fewest = best;
        assertTrue(fewest < 1024, () -> "the best window allocated " + fewest + " bytes in " + rounds + " pairs");
        assertArrayEquals(PLAINTEXT, buf.asSlice(0, LEN).toArray(ValueLayout.JAVA_BYTE));
    }

    /**
     * {@code com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes()}, bound to the platform bean, or
     * {@code null}. Looked up reflectively because module net.fips.ffm does not (and should not) read the
     * management modules; reflection needs no readability edge.
     */
    private static MethodHandle threadAllocatedBytes() {
        try {
            final Object bean = Class.forName("java.lang.management.ManagementFactory")
                    .getMethod("getThreadMXBean").invoke(null);
            final Class<?> ext = Class.forName("com.sun.management.ThreadMXBean");
            if (!ext.isInstance(bean) || !(boolean) ext.getMethod("isThreadAllocatedMemoryEnabled").invoke(bean)) {
                return null;
            }
            return MethodHandles.publicLookup().unreflect(ext.getMethod("getCurrentThreadAllocatedBytes"))
                    .bindTo(bean).asType(MethodType.methodType(long.class));
        } catch (final ReflectiveOperationException | LinkageError | RuntimeException e) {
            return null;
        }
    }

    private void assertGuardsIntact() {
        final byte[] now = parent.toArray(ValueLayout.JAVA_BYTE);
        final long from = buf.address() - parent.address();
        for (int i = 0; i < now.length; i++) {
            if (i < from || i >= from + buf.byteSize()) {
                assertEquals(parentBefore[i], now[i], "byte " + i + " outside the buffer changed");
            }
        }
    }
}
