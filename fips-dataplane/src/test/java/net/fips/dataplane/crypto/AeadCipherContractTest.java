package net.fips.dataplane.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import net.fips.testing.Hex;

/**
 * What every {@link AeadCipher} backend must do: the RFC 8439 known answers, round trips, rejection of any
 * tampering, and in-place operation at arbitrary offsets without touching neighbouring bytes.
 */
abstract class AeadCipherContractTest {
    /** RFC 8439 §2.8.2: key 80..9f, nonce = constant 07000000 ‖ IV 4041424344454647. */
    static final byte[] S282_KEY = Hex.bytes("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f");
    static final byte[] S282_NONCE = Hex.bytes("070000004041424344454647");
    static final byte[] S282_AAD = Hex.bytes("50515253c0c1c2c3c4c5c6c7");
    static final byte[] S282_PLAINTEXT = ("Ladies and Gentlemen of the class of '99: If I could offer you only one tip "
            + "for the future, sunscreen would be it.").getBytes(StandardCharsets.US_ASCII);
    static final byte[] S282_CIPHERTEXT = Hex.bytes("d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
            + "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
            + "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
            + "3ff4def08e4b7a9de576d26586cec64b6116");
    static final byte[] S282_TAG = Hex.bytes("1ae10b594f09e26a7e902ecbd0600691");

    /** RFC 8439 Appendix A.5: the decryption example. */
    static final byte[] A5_KEY = Hex.bytes("1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0");
    static final byte[] A5_NONCE = Hex.bytes("000000000102030405060708");
    static final byte[] A5_AAD = Hex.bytes("f33388860000000000004e91");
    static final byte[] A5_CIPHERTEXT = Hex.bytes("64a0861575861af460f062c79be643bd5e805cfd345cf389f108670ac76c8cb2"
            + "4c6cfc18755d43eea09ee94e382d26b0bdb7b73c321b0100d4f03b7f355894cf"
            + "332f830e710b97ce98c8a84abd0b948114ad176e008d33bd60f982b1ff37c855"
            + "9797a06ef4f0ef61c186324e2b3506383606907b6a7c02b0f9f6157b53c867e4"
            + "b9166c767b804d46a59b5216cde7a4e99040c5a40433225ee282a1b0a06c523e"
            + "af4534d7f83fa1155b0047718cbc546a0d072b04b3564eea1b422273f548271a"
            + "0bb2316053fa76991955ebd63159434ecebb4e466dae5a1073a6727627097a10"
            + "49e617d91d361094fa68f0ff77987130305beaba2eda04df997b714d6c6f2c29"
            + "a6ad5cb4022b02709b");
    static final byte[] A5_TAG = Hex.bytes("eead9d67890cbb22392336fea1851f38");
    static final String A5_PLAINTEXT = "Internet-Drafts are draft documents valid for a maximum of six months and may "
            + "be updated, replaced, or obsoleted by other documents at any time. It is inappropriate to use "
            + "Internet-Drafts as reference material or to cite them other than as /\u201cwork in progress./\u201d";

    static final int AAD_LEN = 16;

    Arena arena;
    AeadCipher cipher;

    /** @return a fresh engine of the backend under test */
    abstract AeadCipher newCipher();

    /** @return the name the backend must report */
    abstract String expectedBackend();

    @BeforeEach
    void open() {
        arena = Arena.ofConfined();
        cipher = newCipher();
    }

    @AfterEach
    void close() {
        cipher.close();
        arena.close();
    }

    @Test
    void reportsItsBackendName() {
        assertEquals(expectedBackend(), cipher.backend());
    }

    @Test
    void rfc8439Section282Seal() {
        final MemorySegment buf = arena.allocate(S282_PLAINTEXT.length + AeadCipher.TAG_BYTES);
        buf.copyFrom(MemorySegment.ofArray(S282_PLAINTEXT));
        final int n = cipher.seal(seg(S282_KEY), seg(S282_NONCE), seg(S282_AAD), 0, S282_AAD.length, buf, 0,
                S282_PLAINTEXT.length);
        assertEquals(S282_PLAINTEXT.length + AeadCipher.TAG_BYTES, n);
        assertArrayEquals(concat(S282_CIPHERTEXT, S282_TAG), buf.toArray(ValueLayout.JAVA_BYTE));

        assertEquals(S282_PLAINTEXT.length,
                cipher.open(seg(S282_KEY), seg(S282_NONCE), seg(S282_AAD), 0, S282_AAD.length, buf, 0, n));
        assertArrayEquals(S282_PLAINTEXT, buf.asSlice(0, S282_PLAINTEXT.length).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void rfc8439AppendixA5Open() {
        final MemorySegment buf = seg(concat(A5_CIPHERTEXT, A5_TAG));
        final int n = cipher.open(seg(A5_KEY), seg(A5_NONCE), seg(A5_AAD), 0, A5_AAD.length, buf, 0,
                (int) buf.byteSize());
        assertEquals(A5_CIPHERTEXT.length, n);
        assertEquals(A5_PLAINTEXT, new String(buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE),
                StandardCharsets.UTF_8));
    }

    @Test
    void rfc8439AppendixA5RejectsWrongTag() {
        final byte[] badTag = A5_TAG.clone();
        badTag[15] ^= 0x01;
        final MemorySegment buf = seg(concat(A5_CIPHERTEXT, badTag));
        assertEquals(AeadCipher.AUTH_FAILED, cipher.open(seg(A5_KEY), seg(A5_NONCE), seg(A5_AAD), 0, A5_AAD.length,
                buf, 0, (int) buf.byteSize()));
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 64, 1400, 8192})
    void sealThenOpenRoundTrips(final int len) {
        final Packet p = Packet.sealed(arena, cipher, len, len);
        if (len > 0) {
            assertFalse(Arrays.equals(p.plaintext, p.buf.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE)),
                    "ciphertext equals plaintext");
        }
        assertEquals(len, cipher.open(p.key, p.nonce, p.aad, 0, AAD_LEN, p.buf, 0, len + AeadCipher.TAG_BYTES));
        assertArrayEquals(p.plaintext, p.buf.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE));
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {1, 64, 1400, 8192})
    void tamperedCiphertextFails(final int len) {
        final Packet p = Packet.sealed(arena, cipher, len, len + 1);
        flip(p.buf, len / 2);
        assertEquals(AeadCipher.AUTH_FAILED, cipher.open(p.key, p.nonce, p.aad, 0, AAD_LEN, p.buf, 0,
                len + AeadCipher.TAG_BYTES));
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 64, 1400, 8192})
    void tamperedTagFails(final int len) {
        final Packet p = Packet.sealed(arena, cipher, len, len + 2);
        flip(p.buf, len + AeadCipher.TAG_BYTES - 1);
        assertEquals(AeadCipher.AUTH_FAILED, cipher.open(p.key, p.nonce, p.aad, 0, AAD_LEN, p.buf, 0,
                len + AeadCipher.TAG_BYTES));
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 64, 1400, 8192})
    void tamperedAadFails(final int len) {
        final Packet p = Packet.sealed(arena, cipher, len, len + 3);
        flip(p.aad, AAD_LEN - 1);
        assertEquals(AeadCipher.AUTH_FAILED, cipher.open(p.key, p.nonce, p.aad, 0, AAD_LEN, p.buf, 0,
                len + AeadCipher.TAG_BYTES));
    }

    @Test
    void wrongNonceOrKeyFails() {
        final Packet p = Packet.sealed(arena, cipher, 100, 4);
        final MemorySegment copy = arena.allocate(p.buf.byteSize());
        copy.copyFrom(p.buf);
        flip(p.nonce, 4);
        assertEquals(AeadCipher.AUTH_FAILED, cipher.open(p.key, p.nonce, p.aad, 0, AAD_LEN, p.buf, 0, 116));
        flip(p.nonce, 4);
        flip(p.key, 31);
        assertEquals(AeadCipher.AUTH_FAILED, cipher.open(p.key, p.nonce, p.aad, 0, AAD_LEN, copy, 0, 116));
    }

    @Test
    void openShorterThanATagFails() {
        final MemorySegment buf = arena.allocate(32);
        assertEquals(AeadCipher.AUTH_FAILED, cipher.open(seg(A5_KEY), seg(A5_NONCE), seg(A5_AAD), 0, 12, buf, 0,
                AeadCipher.TAG_BYTES - 1));
    }

    @Test
    void worksAtNonZeroOffsetsAndLeavesNeighboursAlone() {
        final int len = 1400;
        final long off = 37;
        final long aadOff = 5;
        final Random rnd = new Random(42);
        final byte[] plaintext = bytes(rnd, len);
        final byte[] surround = bytes(rnd, 2000);
        final MemorySegment buf = seg(surround);
        MemorySegment.copy(plaintext, 0, buf, ValueLayout.JAVA_BYTE, off, len);
        final byte[] before = buf.toArray(ValueLayout.JAVA_BYTE);
        final MemorySegment aadHolder = seg(bytes(rnd, 64));
        final MemorySegment keyHolder = seg(bytes(rnd, 40));
        final MemorySegment nonceHolder = seg(bytes(rnd, 20));
        // Key and nonce are read from offset 0 of their segments: slice them out of larger ones.
        final MemorySegment key = keyHolder.asSlice(3, AeadCipher.KEY_BYTES);
        final MemorySegment nonce = nonceHolder.asSlice(7, AeadCipher.NONCE_BYTES);

        assertEquals(len + AeadCipher.TAG_BYTES, cipher.seal(key, nonce, aadHolder, aadOff, AAD_LEN, buf, off, len));
        final byte[] after = buf.toArray(ValueLayout.JAVA_BYTE);
        assertArrayEquals(Arrays.copyOfRange(before, 0, (int) off), Arrays.copyOfRange(after, 0, (int) off));
        final int end = (int) off + len + AeadCipher.TAG_BYTES;
        assertArrayEquals(Arrays.copyOfRange(before, end, before.length), Arrays.copyOfRange(after, end, after.length));

        // The same packet sealed at offset 0 of its own buffer gives the same bytes.
        final MemorySegment alone = arena.allocate(len + AeadCipher.TAG_BYTES);
        MemorySegment.copy(plaintext, 0, alone, ValueLayout.JAVA_BYTE, 0, len);
        final AeadCipher other = newCipher();
        try {
            other.seal(key, nonce, aadHolder.asSlice(aadOff, AAD_LEN), 0, AAD_LEN, alone, 0, len);
        } finally {
            other.close();
        }
        assertArrayEquals(alone.toArray(ValueLayout.JAVA_BYTE), Arrays.copyOfRange(after, (int) off, end));

        assertEquals(len, cipher.open(key, nonce, aadHolder, aadOff, AAD_LEN, buf, off, len + AeadCipher.TAG_BYTES));
        final byte[] opened = buf.toArray(ValueLayout.JAVA_BYTE);
        assertArrayEquals(plaintext, Arrays.copyOfRange(opened, (int) off, (int) off + len));
        assertArrayEquals(Arrays.copyOfRange(before, 0, (int) off), Arrays.copyOfRange(opened, 0, (int) off));
        assertArrayEquals(Arrays.copyOfRange(before, end, before.length),
                Arrays.copyOfRange(opened, end, opened.length));
    }

    @Test
    void regionOutsideTheBufferIsRejected() {
        final MemorySegment buf = arena.allocate(100);
        final MemorySegment key = seg(A5_KEY);
        final MemorySegment aad = seg(A5_AAD);
        // A fresh nonce per call: the JDK backend initialises before it slices, and its nonce-reuse guard would
        // then refuse the next encryption under the same key and nonce.
        final MemorySegment[] nonces = new MemorySegment[6];
        for (int i = 0; i < nonces.length; i++) {
            nonces[i] = arena.allocate(AeadCipher.NONCE_BYTES);
            AeadCipher.fipsNonce(nonces[i], i);
        }
        // 90 bytes at offset 0 leave no room for the tag.
        assertThrows(IndexOutOfBoundsException.class, () -> cipher.seal(key, nonces[0], aad, 0, 12, buf, 0, 90));
        assertThrows(IndexOutOfBoundsException.class, () -> cipher.seal(key, nonces[1], aad, 0, 12, buf, 90, 10));
        assertThrows(IndexOutOfBoundsException.class, () -> cipher.seal(key, nonces[2], aad, 4, 12, buf, 0, 10));
        assertThrows(IndexOutOfBoundsException.class, () -> cipher.open(key, nonces[3], aad, 0, 12, buf, 50, 60));
        assertThrows(IndexOutOfBoundsException.class,
                () -> cipher.seal(key.asSlice(0, 31), nonces[4], aad, 0, 12, buf, 0, 10));
        assertThrows(IndexOutOfBoundsException.class,
                () -> cipher.seal(key, nonces[5].asSlice(0, 11), aad, 0, 12, buf, 0, 10));
    }

    @Test
    void aRejectedSealChangesNothingAndLeavesItsKeyAndNonceUsable() {
        final MemorySegment key = seg(S282_KEY);
        final MemorySegment nonce = seg(S282_NONCE);
        final MemorySegment aad = seg(S282_AAD);
        final int len = S282_PLAINTEXT.length;
        final MemorySegment parent = arena.allocate(len + AeadCipher.TAG_BYTES + 32);
        parent.fill((byte) 0x77);
        final MemorySegment buf = parent.asSlice(16, len + AeadCipher.TAG_BYTES);
        buf.copyFrom(MemorySegment.ofArray(S282_PLAINTEXT));
        final byte[] before = parent.toArray(ValueLayout.JAVA_BYTE);
        // Each call names the same key and nonce. A backend that started work (the JDK's init consumes the pair:
        // it refuses to encrypt under it twice) before checking the last region would fail the final seal.
        assertThrows(IndexOutOfBoundsException.class, () -> cipher.seal(key, nonce, aad, 0, 12, buf, 1, len));
        assertThrows(IndexOutOfBoundsException.class, () -> cipher.seal(key, nonce, aad, 0, 12, buf, -1, len));
        assertThrows(IndexOutOfBoundsException.class,
                () -> cipher.seal(key, nonce, aad, 0, 12, buf, Long.MAX_VALUE, len));
        assertThrows(IndexOutOfBoundsException.class, () -> cipher.seal(key, nonce, aad, 1, 12, buf, 0, len));
        assertThrows(IndexOutOfBoundsException.class,
                () -> cipher.seal(key.asSlice(1), nonce, aad, 0, 12, buf, 0, len));
        assertThrows(IndexOutOfBoundsException.class,
                () -> cipher.seal(key, nonce.asSlice(1), aad, 0, 12, buf, 0, len));
        assertThrows(IllegalArgumentException.class, () -> cipher.seal(key, nonce, aad, 0, 12, buf, 0, -1));
        assertThrows(IllegalArgumentException.class, () -> cipher.seal(key, nonce, aad, 0, -1, buf, 0, len));
        assertArrayEquals(before, parent.toArray(ValueLayout.JAVA_BYTE));

        assertEquals(len + AeadCipher.TAG_BYTES, cipher.seal(key, nonce, aad, 0, 12, buf, 0, len));
        assertArrayEquals(concat(S282_CIPHERTEXT, S282_TAG), buf.toArray(ValueLayout.JAVA_BYTE));
        final byte[] after = parent.toArray(ValueLayout.JAVA_BYTE);
        assertArrayEquals(Arrays.copyOfRange(before, 0, 16), Arrays.copyOfRange(after, 0, 16));
        assertArrayEquals(Arrays.copyOfRange(before, before.length - 16, before.length),
                Arrays.copyOfRange(after, after.length - 16, after.length));
    }

    @Test
    void aRejectedOpenChangesNothing() {
        final MemorySegment buf = seg(concat(A5_CIPHERTEXT, A5_TAG));
        final int n = (int) buf.byteSize();
        final byte[] before = buf.toArray(ValueLayout.JAVA_BYTE);
        final MemorySegment key = seg(A5_KEY);
        final MemorySegment nonce = seg(A5_NONCE);
        final MemorySegment aad = seg(A5_AAD);
        assertThrows(IndexOutOfBoundsException.class, () -> cipher.open(key, nonce, aad, 0, 12, buf, 0, n + 1));
        assertThrows(IndexOutOfBoundsException.class, () -> cipher.open(key, nonce, aad, 0, 12, buf, 1, n));
        assertThrows(IndexOutOfBoundsException.class, () -> cipher.open(key, nonce, aad, 1, 12, buf, 0, n));
        assertThrows(IndexOutOfBoundsException.class,
                () -> cipher.open(key, nonce.asSlice(1), aad, 0, 12, buf, 0, n));
        // Not wiped as a failed tag would be, not decrypted.
        assertArrayEquals(before, buf.toArray(ValueLayout.JAVA_BYTE));
        assertEquals(A5_CIPHERTEXT.length, cipher.open(key, nonce, aad, 0, 12, buf, 0, n));
    }

    /** A random packet sealed in place at offset 0: key, nonce, 16-byte AAD and plaintext kept for checks. */
    record Packet(MemorySegment key, MemorySegment nonce, MemorySegment aad, MemorySegment buf, byte[] plaintext) {
        static Packet sealed(final Arena arena, final AeadCipher cipher, final int len, final long seed) {
            final Random rnd = new Random(seed);
            final MemorySegment key = arena.allocate(AeadCipher.KEY_BYTES);
            key.copyFrom(MemorySegment.ofArray(bytes(rnd, AeadCipher.KEY_BYTES)));
            final MemorySegment nonce = arena.allocate(AeadCipher.NONCE_BYTES);
            AeadCipher.fipsNonce(nonce, rnd.nextLong());
            final MemorySegment aad = arena.allocate(AAD_LEN);
            aad.copyFrom(MemorySegment.ofArray(bytes(rnd, AAD_LEN)));
            final byte[] plaintext = bytes(rnd, len);
            final MemorySegment buf = arena.allocate(len + AeadCipher.TAG_BYTES);
            MemorySegment.copy(plaintext, 0, buf, ValueLayout.JAVA_BYTE, 0, len);
            assertEquals(len + AeadCipher.TAG_BYTES, cipher.seal(key, nonce, aad, 0, AAD_LEN, buf, 0, len));
            return new Packet(key, nonce, aad, buf, plaintext);
        }
    }

    MemorySegment seg(final byte[] bytes) {
        final MemorySegment s = arena.allocate(Math.max(1, bytes.length));
        MemorySegment.copy(bytes, 0, s, ValueLayout.JAVA_BYTE, 0, bytes.length);
        return s.asSlice(0, bytes.length);
    }

    static void flip(final MemorySegment s, final long at) {
        s.set(ValueLayout.JAVA_BYTE, at, (byte) (s.get(ValueLayout.JAVA_BYTE, at) ^ 0x20));
    }

    static byte[] bytes(final Random rnd, final int n) {
        final byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }

    static byte[] concat(final byte[] a, final byte[] b) {
        final byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
