package net.fips.ffm.secp256k1;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;

import net.fips.ffm.secp256k1.gen.secp256k1_ecdh_hash_function;
import net.fips.ffm.secp256k1.gen.secp256k1_h;
import net.fips.ffm.secp256k1.gen.secp256k1_keypair;
import net.fips.ffm.secp256k1.gen.secp256k1_pubkey;
import net.fips.ffm.secp256k1.gen.secp256k1_schnorrsig_extraparams;
import net.fips.ffm.secp256k1.gen.secp256k1_xonly_pubkey;

/**
 * libsecp256k1 ({@value #SONAME}) through FFM: public keys from secrets, ECDH that hands back the shared point's X,
 * and BIP-340 Schnorr signatures. All keys, scalars and signatures are byte arrays in the library's (and BIP-340's)
 * big-endian encodings; nothing here knows FIPS.
 *
 * <p>The probe runs once, on first use, and never throws: a missing library, a missing symbol, native access denied
 * to module {@code net.fips.ffm} or a failed known-answer check all end up as an {@link #unavailableReason()
 * explanation}. Only after a successful probe is the generated class {@code secp256k1_h} (whose static initialiser
 * throws when the library cannot be opened) touched; every operation throws {@link IllegalStateException} when the
 * library is unavailable.
 *
 * <p>One context serves the whole JVM. It is created and randomized (side-channel blinding of the generator
 * multiplications) once, in the probe, before it is published; the calls made here only read it, which libsecp256k1
 * allows from any number of threads at once. Each call copies its inputs into a confined arena of its own.
 *
 * <p>Argument lengths are checked here before any native call: libsecp256k1 answers a violated precondition (a NULL
 * pointer, a bad flag, a wrong extraparams magic) by calling {@code abort()}, so none may reach it.
 */
public final class Secp256k1Lib {
    /** The library loaded by soname, so the runtime needs only Debian's libsecp256k1-1 package, not the -dev one. */
    public static final String SONAME = "libsecp256k1.so.1";
    /** Secret key (scalar) length. */
    public static final int SECRET_BYTES = 32;
    /** SEC1 compressed public key length. */
    public static final int COMPRESSED_BYTES = 33;
    /** x-only public key / point X coordinate length. */
    public static final int X_BYTES = 32;
    /** BIP-340 signature length. */
    public static final int SIGNATURE_BYTES = 64;
    /** BIP-340 aux randomness length. */
    public static final int AUX_BYTES = 32;

    /** {@code SECP256K1_SCHNORRSIG_EXTRAPARAMS_MAGIC}, a brace initialiser jextract cannot extract. */
    private static final byte[] EXTRAPARAMS_MAGIC = {(byte) 0xda, (byte) 0x6f, (byte) 0xb3, (byte) 0x8c};

    private Secp256k1Lib() {
    }

    /** @return whether libsecp256k1 loaded and passed the probe's known-answer check */
    public static boolean isAvailable() {
        return Probe.REASON == null;
    }

    /** @return why libsecp256k1 cannot be used, or {@code null} when it can */
    public static String unavailableReason() {
        return Probe.REASON;
    }

    /**
     * @param secret 32-byte big-endian scalar
     * @return the 33-byte SEC1 compressed public key (real parity)
     * @throws IllegalArgumentException when {@code secret} is not 32 bytes or not in [1, n-1]
     * @throws IllegalStateException    when the library is unavailable
     */
    public static byte[] publicKey(final byte[] secret) {
        requireLength(secret, SECRET_BYTES, "secret key");
        final MemorySegment ctx = context();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment pub = secp256k1_pubkey.allocate(arena);
            final MemorySegment sk = arena.allocateFrom(ValueLayout.JAVA_BYTE, secret);
            try {
                if (secp256k1_h.secp256k1_ec_pubkey_create(ctx, pub, sk) != 1) {
                    throw new IllegalArgumentException("secret key must be in [1, n-1]");
                }
            } finally {
                sk.fill((byte) 0);
            }
            final MemorySegment out = arena.allocate(COMPRESSED_BYTES);
            final MemorySegment outLen = arena.allocateFrom(ValueLayout.JAVA_LONG, COMPRESSED_BYTES);
            secp256k1_h.secp256k1_ec_pubkey_serialize(ctx, out, outLen, pub, secp256k1_h.SECP256K1_EC_COMPRESSED());
            return out.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /**
     * @param compressed candidate SEC1 compressed key
     * @return whether it is 33 bytes, prefix 02/03, with an X on the curve
     * @throws IllegalStateException when the library is unavailable
     */
    public static boolean isValidPublicKey(final byte[] compressed) {
        if (compressed == null || compressed.length != COMPRESSED_BYTES) {
            return false;
        }
        final MemorySegment ctx = context();
        try (Arena arena = Arena.ofConfined()) {
            return parsePublicKey(ctx, arena, compressed) != null;
        }
    }

    /**
     * @param x candidate BIP-340 x-only key
     * @return whether it is 32 bytes, below p, and the X of a curve point
     * @throws IllegalStateException when the library is unavailable
     */
    public static boolean isValidXOnly(final byte[] x) {
        if (x == null || x.length != X_BYTES) {
            return false;
        }
        final MemorySegment ctx = context();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment pub = secp256k1_xonly_pubkey.allocate(arena);
            return secp256k1_h.secp256k1_xonly_pubkey_parse(ctx, pub, arena.allocateFrom(ValueLayout.JAVA_BYTE, x))
                    == 1;
        }
    }

    /**
     * Constant-time ECDH ({@code secp256k1_ecdh}) returning the raw X coordinate of {@code secret}·{@code peer}; the
     * caller hashes it as its protocol requires.
     *
     * @param secret 32-byte scalar in [1, n-1]
     * @param peer   33-byte SEC1 compressed public key
     * @return the 32-byte big-endian X of the shared point
     * @throws IllegalArgumentException when {@code peer} is not a valid compressed key or {@code secret} is not a
     *                                  valid scalar
     * @throws IllegalStateException    when the library is unavailable
     */
    public static byte[] sharedX(final byte[] secret, final byte[] peer) {
        requireLength(secret, SECRET_BYTES, "secret key");
        requireLength(peer, COMPRESSED_BYTES, "public key");
        final MemorySegment ctx = context();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment pub = parsePublicKey(ctx, arena, peer);
            if (pub == null) {
                throw new IllegalArgumentException("public key is not a 33-byte compressed secp256k1 point");
            }
            final MemorySegment sk = arena.allocateFrom(ValueLayout.JAVA_BYTE, secret);
            final MemorySegment out = arena.allocate(X_BYTES);
            try {
                if (secp256k1_h.secp256k1_ecdh(ctx, out, pub, sk, Probe.COPY_X, MemorySegment.NULL) != 1) {
                    throw new IllegalArgumentException("secret key must be in [1, n-1]");
                }
                return out.toArray(ValueLayout.JAVA_BYTE);
            } finally {
                sk.fill((byte) 0);
                out.fill((byte) 0);
            }
        }
    }

    /**
     * BIP-340 signing with the library's default nonce function, which is BIP-340's: the same key, message and
     * {@code aux} give the specification's signature.
     *
     * @param secret 32-byte scalar in [1, n-1]
     * @param msg    the message, any length
     * @param aux    32 bytes of auxiliary randomness
     * @return the 64-byte signature
     * @throws IllegalArgumentException when a length is wrong or {@code secret} is not a valid scalar
     * @throws IllegalStateException    when the library is unavailable or signing fails
     */
    public static byte[] signSchnorr(final byte[] secret, final byte[] msg, final byte[] aux) {
        requireLength(secret, SECRET_BYTES, "secret key");
        requireLength(aux, AUX_BYTES, "aux randomness");
        if (msg == null) {
            throw new IllegalArgumentException("message is required");
        }
        final MemorySegment ctx = context();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment keypair = secp256k1_keypair.allocate(arena);
            final MemorySegment sk = arena.allocateFrom(ValueLayout.JAVA_BYTE, secret);
            try {
                if (secp256k1_h.secp256k1_keypair_create(ctx, keypair, sk) != 1) {
                    throw new IllegalArgumentException("secret key must be in [1, n-1]");
                }
                final MemorySegment params = secp256k1_schnorrsig_extraparams.allocate(arena);
                MemorySegment.copy(EXTRAPARAMS_MAGIC, 0, params, ValueLayout.JAVA_BYTE,
                        secp256k1_schnorrsig_extraparams.magic$offset(), EXTRAPARAMS_MAGIC.length);
                secp256k1_schnorrsig_extraparams.noncefp(params, MemorySegment.NULL);
                secp256k1_schnorrsig_extraparams.ndata(params, arena.allocateFrom(ValueLayout.JAVA_BYTE, aux));
                final MemorySegment sig = arena.allocate(SIGNATURE_BYTES);
                if (secp256k1_h.secp256k1_schnorrsig_sign_custom(ctx, sig, message(arena, msg), msg.length,
                        keypair, params) != 1) {
                    throw new IllegalStateException("secp256k1_schnorrsig_sign_custom failed");
                }
                return sig.toArray(ValueLayout.JAVA_BYTE);
            } finally {
                sk.fill((byte) 0);
                keypair.fill((byte) 0);
            }
        }
    }

    /**
     * BIP-340 verification. Malformed inputs (wrong lengths, key not on the curve, r >= p, s >= n) are an invalid
     * signature, not an exception.
     *
     * @param xOnly 32-byte x-only public key
     * @param msg   the signed message, any length
     * @param sig   the 64-byte signature
     * @return true only for a valid signature
     * @throws IllegalStateException when the library is unavailable
     */
    public static boolean verifySchnorr(final byte[] xOnly, final byte[] msg, final byte[] sig) {
        if (xOnly == null || xOnly.length != X_BYTES || msg == null || sig == null
                || sig.length != SIGNATURE_BYTES) {
            return false;
        }
        final MemorySegment ctx = context();
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment pub = secp256k1_xonly_pubkey.allocate(arena);
            if (secp256k1_h.secp256k1_xonly_pubkey_parse(ctx, pub, arena.allocateFrom(ValueLayout.JAVA_BYTE, xOnly))
                    != 1) {
                return false;
            }
            return secp256k1_h.secp256k1_schnorrsig_verify(ctx, arena.allocateFrom(ValueLayout.JAVA_BYTE, sig),
                    message(arena, msg), msg.length, pub) == 1;
        }
    }

    private static MemorySegment message(final Arena arena, final byte[] msg) {
        // A zero-length message may be any pointer (the library reads none of it), but never NULL with length > 0.
        return msg.length == 0 ? arena.allocate(1) : arena.allocateFrom(ValueLayout.JAVA_BYTE, msg);
    }

    /** @return the parsed key in {@code arena}, or {@code null} when the bytes are not a valid compressed key */
    private static MemorySegment parsePublicKey(final MemorySegment ctx, final Arena arena, final byte[] compressed) {
        final MemorySegment pub = secp256k1_pubkey.allocate(arena);
        final MemorySegment in = arena.allocateFrom(ValueLayout.JAVA_BYTE, compressed);
        return secp256k1_h.secp256k1_ec_pubkey_parse(ctx, pub, in, COMPRESSED_BYTES) == 1 ? pub : null;
    }

    private static void requireLength(final byte[] b, final int want, final String what) {
        if (b == null || b.length != want) {
            throw new IllegalArgumentException(what + " must be " + want + " bytes, got "
                    + (b == null ? "null" : b.length));
        }
    }

    private static MemorySegment context() {
        final MemorySegment ctx = Probe.CONTEXT;
        if (ctx == null) {
            throw new IllegalStateException("libsecp256k1 unavailable: " + Probe.REASON);
        }
        return ctx;
    }

    /** Holds the probe's outcome, the shared context and the ECDH hash upcall; its initialiser cannot fail. */
    static final class Probe {
        /** The shared, randomized context, or {@code null} when unavailable. */
        static final MemorySegment CONTEXT;
        /** The ECDH "hash" function: copies X to the output and ignores Y. */
        static final MemorySegment COPY_X;
        static final String REASON;

        /** secp256k1's generator, the public key of secret 1. */
        private static final String G_COMPRESSED =
                "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";

        static {
            final Object[] outcome = probe(SONAME);
            CONTEXT = (MemorySegment) outcome[0];
            COPY_X = (MemorySegment) outcome[1];
            REASON = (String) outcome[2];
        }

        private Probe() {
        }

        /** @return {context or null, upcall or null, reason or null}; never throws */
        static Object[] probe(final String soname) {
            // Open by soname first: the dynamic loader's own message is the most useful reason, better than the
            // generated class's wrapped initialiser failure.
            try (Arena arena = Arena.ofConfined()) {
                SymbolLookup.libraryLookup(soname, arena);
            } catch (final IllegalArgumentException e) {
                return new Object[] {null, null, soname + " could not be loaded: " + e.getMessage()};
            } catch (final IllegalCallerException e) {
                return new Object[] {null, null, "native access is not enabled for module net.fips.ffm "
                        + "(run with --enable-native-access=net.fips.ffm): " + e.getMessage()};
            } catch (final RuntimeException | LinkageError e) {
                return new Object[] {null, null, soname + " could not be loaded: " + e};
            }
            try {
                final MemorySegment ctx = secp256k1_h.secp256k1_context_create(secp256k1_h.SECP256K1_CONTEXT_NONE());
                if (ctx.equals(MemorySegment.NULL)) {
                    return new Object[] {null, null, "secp256k1_context_create returned NULL"};
                }
                final byte[] seed = new byte[32];
                new SecureRandom().nextBytes(seed);
                try (Arena arena = Arena.ofConfined()) {
                    final MemorySegment s = arena.allocateFrom(ValueLayout.JAVA_BYTE, seed);
                    Arrays.fill(seed, (byte) 0);
                    final int ok = secp256k1_h.secp256k1_context_randomize(ctx, s);
                    s.fill((byte) 0);
                    if (ok != 1) {
                        return new Object[] {null, null, "secp256k1_context_randomize failed"};
                    }
                }
                // Links every handle this class uses, so a missing symbol surfaces here and not on first use.
                secp256k1_h.secp256k1_ec_pubkey_parse$handle();
                secp256k1_h.secp256k1_ec_pubkey_serialize$handle();
                secp256k1_h.secp256k1_ecdh$handle();
                secp256k1_h.secp256k1_keypair_create$handle();
                secp256k1_h.secp256k1_xonly_pubkey_parse$handle();
                secp256k1_h.secp256k1_schnorrsig_sign_custom$handle();
                secp256k1_h.secp256k1_schnorrsig_verify$handle();
                final MemorySegment copyX = secp256k1_ecdh_hash_function.allocate(Probe::copyX, Arena.global());
                // Known answer: 1·G.
                try (Arena arena = Arena.ofConfined()) {
                    final byte[] one = new byte[SECRET_BYTES];
                    one[SECRET_BYTES - 1] = 1;
                    final MemorySegment pub = secp256k1_pubkey.allocate(arena);
                    final MemorySegment out = arena.allocate(COMPRESSED_BYTES);
                    final MemorySegment outLen = arena.allocateFrom(ValueLayout.JAVA_LONG, COMPRESSED_BYTES);
                    if (secp256k1_h.secp256k1_ec_pubkey_create(ctx, pub, arena.allocateFrom(ValueLayout.JAVA_BYTE,
                            one)) != 1
                            || secp256k1_h.secp256k1_ec_pubkey_serialize(ctx, out, outLen, pub,
                            secp256k1_h.SECP256K1_EC_COMPRESSED()) != 1
                            || !G_COMPRESSED.equals(HexFormat.of().formatHex(out.toArray(ValueLayout.JAVA_BYTE)))) {
                        return new Object[] {null, null, soname + " failed its known-answer check (1*G)"};
                    }
                }
                return new Object[] {ctx, copyX, null};
            } catch (final RuntimeException | LinkageError e) {
                final Throwable cause = e instanceof ExceptionInInitializerError && e.getCause() != null
                        ? e.getCause() : e;
                return new Object[] {null, null, "binding " + soname + " failed: " + cause};
            }
        }

        /** {@code secp256k1_ecdh_hash_function}: output = x32; the parity of Y is discarded. */
        private static int copyX(final MemorySegment output, final MemorySegment x32, final MemorySegment y32,
                                 final MemorySegment data) {
            MemorySegment.copy(x32.reinterpret(X_BYTES), 0, output.reinterpret(X_BYTES), 0, X_BYTES);
            return 1;
        }
    }
}
