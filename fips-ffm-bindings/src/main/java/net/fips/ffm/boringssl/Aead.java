package net.fips.ffm.boringssl;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import net.fips.ffm.boringssl.gen.boringssl_h;

/**
 * The per-packet {@code EVP_AEAD} downcalls, re-linked from the generated symbols with
 * {@link Linker.Option#critical(boolean)}, as {@code net.fips.ffm.openssl.Evp} does for OpenSSL and for the same
 * reasons: each call is a short computation on caller-owned memory that never calls back into Java, so skipping the
 * thread-state transition is worth a GC safepoint waiting a few microseconds at most.
 *
 * <p>Two linkages of each symbol: the address handles ({@code *_AT}) take every pointer as a {@code JAVA_LONG}
 * (nothing to allocate; {@link AeadChaCha20Poly1305} checks bounds, liveness and confinement itself and passes only
 * native memory), and the segment handles take {@link MemorySegment}s and accept heap memory (critical with heap
 * access) for callers with heap buffers. Init and cleanup of a context (one per key, not per packet) go through the
 * address handles too: for ChaCha20-Poly1305 they copy or drop 32 key bytes and never allocate.
 *
 * <p>{@code -Dnet.fips.ffm.boringssl.critical=false} links plain handles instead, to measure the difference.
 */
final class Aead {
    /** Whether the per-packet handles are critical; read once. */
    static final boolean CRITICAL = !"false".equals(System.getProperty("net.fips.ffm.boringssl.critical"));

    static final MethodHandle SEAL = link(boringssl_h.EVP_AEAD_CTX_seal$address(),
            boringssl_h.EVP_AEAD_CTX_seal$descriptor());
    static final MethodHandle OPEN = link(boringssl_h.EVP_AEAD_CTX_open$address(),
            boringssl_h.EVP_AEAD_CTX_open$descriptor());
    static final MethodHandle INIT_AT = linkAt(boringssl_h.EVP_AEAD_CTX_init$address(),
            boringssl_h.EVP_AEAD_CTX_init$descriptor());
    static final MethodHandle CLEANUP_AT = linkAt(boringssl_h.EVP_AEAD_CTX_cleanup$address(),
            boringssl_h.EVP_AEAD_CTX_cleanup$descriptor());
    static final MethodHandle SEAL_AT = linkAt(boringssl_h.EVP_AEAD_CTX_seal$address(),
            boringssl_h.EVP_AEAD_CTX_seal$descriptor());
    static final MethodHandle OPEN_AT = linkAt(boringssl_h.EVP_AEAD_CTX_open$address(),
            boringssl_h.EVP_AEAD_CTX_open$descriptor());

    private Aead() {
    }

    private static MethodHandle link(final MemorySegment address, final FunctionDescriptor descriptor) {
        return CRITICAL
                ? Linker.nativeLinker().downcallHandle(address, descriptor, Linker.Option.critical(true))
                : Linker.nativeLinker().downcallHandle(address, descriptor);
    }

    /**
     * Links {@code descriptor} with each pointer parameter replaced by {@code JAVA_LONG}; derived from the generated
     * descriptor so that both linkages of a symbol always agree on every other parameter.
     */
    private static MethodHandle linkAt(final MemorySegment address, final FunctionDescriptor descriptor) {
        final MemoryLayout[] args = descriptor.argumentLayouts().toArray(MemoryLayout[]::new);
        for (int i = 0; i < args.length; i++) {
            if (args[i] instanceof AddressLayout) {
                args[i] = ValueLayout.JAVA_LONG;
            }
        }
        final FunctionDescriptor longs = descriptor.returnLayout()
                .map(r -> FunctionDescriptor.of(r, args))
                .orElseGet(() -> FunctionDescriptor.ofVoid(args));
        // No heap access: only raw addresses of native memory are ever passed.
        return CRITICAL
                ? Linker.nativeLinker().downcallHandle(address, longs, Linker.Option.critical(false))
                : Linker.nativeLinker().downcallHandle(address, longs);
    }

    // The wrappers keep invokeExact's checked Throwable out of the engine; the handles are static final, so the JIT
    // inlines them as constants. 0 is C's NULL.

    static int initAt(final long ctx, final long aead, final long key, final long keyLen) {
        try {
            return (int) INIT_AT.invokeExact(ctx, aead, key, keyLen, 0L, 0L);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    static void cleanupAt(final long ctx) {
        try {
            CLEANUP_AT.invokeExact(ctx);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code EVP_AEAD_CTX_seal} or {@code _open} on raw addresses, in place ({@code out == in}). */
    static int cryptAt(final boolean seal, final long ctx, final long data, final long outLen, final long maxOut,
                       final long nonce, final long nonceLen, final long inLen, final long aad, final long aadLen) {
        try {
            return seal
                    ? (int) SEAL_AT.invokeExact(ctx, data, outLen, maxOut, nonce, nonceLen, data, inLen, aad, aadLen)
                    : (int) OPEN_AT.invokeExact(ctx, data, outLen, maxOut, nonce, nonceLen, data, inLen, aad, aadLen);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code EVP_AEAD_CTX_seal} or {@code _open} on segments, in place ({@code out == in}). */
    static int crypt(final boolean seal, final MemorySegment ctx, final MemorySegment data,
                     final MemorySegment outLen, final long maxOut, final MemorySegment nonce, final long nonceLen,
                     final long inLen, final MemorySegment aad, final long aadLen) {
        try {
            return seal
                    ? (int) SEAL.invokeExact(ctx, data, outLen, maxOut, nonce, nonceLen, data, inLen, aad, aadLen)
                    : (int) OPEN.invokeExact(ctx, data, outLen, maxOut, nonce, nonceLen, data, inLen, aad, aadLen);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(final Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException("unexpected checked exception from a downcall", t);
    }
}
