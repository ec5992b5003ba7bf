package net.fips.ffm.openssl;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import net.fips.ffm.openssl.gen.openssl_h;

/**
 * The per-packet EVP downcalls, re-linked from the generated symbols with {@link Linker.Option#critical(boolean)}.
 *
 * <p>Why critical: every per-packet call (init with a bound cipher, update, final, ctrl) is a short, non-blocking
 * computation on memory the caller owns; none calls back into Java. A critical downcall skips the Java-to-native
 * thread-state transition, which is a measurable share of a 1400-byte seal (see docs/benchmarks.md), and with
 * {@code allowHeapAccess = true} it also accepts heap segments. The price is that a GC safepoint waits for the call
 * to return: at most a few microseconds for an 8 KB packet. Calls that may allocate or fetch a provider
 * (EVP_CIPHER_CTX_new/free, the first init that binds the cipher) keep the generated, non-critical handles.
 *
 * <p>Each call comes in two linkages of the same symbol. The segment handles take {@link MemorySegment} pointers:
 * the linker checks liveness and confinement and accepts heap segments, but the caller must first cut a
 * bounds-checked slice for each region, and those slices are only scalar-replaced when the JIT inlines the whole
 * call into one compilation unit, which the data-plane engine's larger loop defeats (~84 B per packet). The
 * address handles ({@code *_AT}) take every pointer as a {@code JAVA_LONG} address: nothing to allocate, but also
 * nothing checked, so {@link ChaCha20Poly1305} checks bounds, liveness and confinement itself before computing an
 * address, and only for native segments. They are critical without heap access: no segment ever reaches them.
 *
 * <p>{@code -Dnet.fips.ffm.openssl.critical=false} links the plain handles instead, to measure the difference.
 */
final class Evp {
    /** Whether the per-packet handles are critical; read once. */
    static final boolean CRITICAL = !"false".equals(System.getProperty("net.fips.ffm.openssl.critical"));

    static final MethodHandle ENCRYPT_INIT = link(openssl_h.EVP_EncryptInit_ex$address(),
            openssl_h.EVP_EncryptInit_ex$descriptor());
    static final MethodHandle DECRYPT_INIT = link(openssl_h.EVP_DecryptInit_ex$address(),
            openssl_h.EVP_DecryptInit_ex$descriptor());
    static final MethodHandle ENCRYPT_UPDATE = link(openssl_h.EVP_EncryptUpdate$address(),
            openssl_h.EVP_EncryptUpdate$descriptor());
    static final MethodHandle DECRYPT_UPDATE = link(openssl_h.EVP_DecryptUpdate$address(),
            openssl_h.EVP_DecryptUpdate$descriptor());
    static final MethodHandle ENCRYPT_FINAL = link(openssl_h.EVP_EncryptFinal_ex$address(),
            openssl_h.EVP_EncryptFinal_ex$descriptor());
    static final MethodHandle DECRYPT_FINAL = link(openssl_h.EVP_DecryptFinal_ex$address(),
            openssl_h.EVP_DecryptFinal_ex$descriptor());
    static final MethodHandle CTRL = link(openssl_h.EVP_CIPHER_CTX_ctrl$address(),
            openssl_h.EVP_CIPHER_CTX_ctrl$descriptor());

    /**
     * Whether a C pointer fits a {@code JAVA_LONG} (every 64-bit platform). Where it does not, the address handles
     * are not linked and the engine always takes the segment path.
     */
    static final boolean ADDRESSES = ValueLayout.ADDRESS.byteSize() == Long.BYTES;

    static final MethodHandle ENCRYPT_INIT_AT = linkAt(openssl_h.EVP_EncryptInit_ex$address(),
            openssl_h.EVP_EncryptInit_ex$descriptor());
    static final MethodHandle DECRYPT_INIT_AT = linkAt(openssl_h.EVP_DecryptInit_ex$address(),
            openssl_h.EVP_DecryptInit_ex$descriptor());
    static final MethodHandle ENCRYPT_UPDATE_AT = linkAt(openssl_h.EVP_EncryptUpdate$address(),
            openssl_h.EVP_EncryptUpdate$descriptor());
    static final MethodHandle DECRYPT_UPDATE_AT = linkAt(openssl_h.EVP_DecryptUpdate$address(),
            openssl_h.EVP_DecryptUpdate$descriptor());
    static final MethodHandle ENCRYPT_FINAL_AT = linkAt(openssl_h.EVP_EncryptFinal_ex$address(),
            openssl_h.EVP_EncryptFinal_ex$descriptor());
    static final MethodHandle DECRYPT_FINAL_AT = linkAt(openssl_h.EVP_DecryptFinal_ex$address(),
            openssl_h.EVP_DecryptFinal_ex$descriptor());
    static final MethodHandle CTRL_AT = linkAt(openssl_h.EVP_CIPHER_CTX_ctrl$address(),
            openssl_h.EVP_CIPHER_CTX_ctrl$descriptor());

    static final int CTRL_SET_IVLEN = openssl_h.EVP_CTRL_AEAD_SET_IVLEN();
    static final int CTRL_GET_TAG = openssl_h.EVP_CTRL_AEAD_GET_TAG();
    static final int CTRL_SET_TAG = openssl_h.EVP_CTRL_AEAD_SET_TAG();

    private Evp() {
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
        if (!ADDRESSES) {
            return null;
        }
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

    // The wrappers below keep invokeExact's checked Throwable out of the engine; the handles are static final, so
    // the JIT inlines them as constants.

    static int init(final boolean encrypt, final MemorySegment ctx, final MemorySegment cipher,
                    final MemorySegment key, final MemorySegment iv) {
        try {
            return encrypt
                    ? (int) ENCRYPT_INIT.invokeExact(ctx, cipher, MemorySegment.NULL, key, iv)
                    : (int) DECRYPT_INIT.invokeExact(ctx, cipher, MemorySegment.NULL, key, iv);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    static int update(final boolean encrypt, final MemorySegment ctx, final MemorySegment out,
                      final MemorySegment outl, final MemorySegment in, final int inl) {
        try {
            return encrypt
                    ? (int) ENCRYPT_UPDATE.invokeExact(ctx, out, outl, in, inl)
                    : (int) DECRYPT_UPDATE.invokeExact(ctx, out, outl, in, inl);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    static int finish(final boolean encrypt, final MemorySegment ctx, final MemorySegment out,
                      final MemorySegment outl) {
        try {
            return encrypt
                    ? (int) ENCRYPT_FINAL.invokeExact(ctx, out, outl)
                    : (int) DECRYPT_FINAL.invokeExact(ctx, out, outl);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    static int ctrl(final MemorySegment ctx, final int type, final int arg, final MemorySegment ptr) {
        try {
            return (int) CTRL.invokeExact(ctx, type, arg, ptr);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    // Address-taking twins of the wrappers above; 0 is C's NULL.

    static int initAt(final boolean encrypt, final long ctx, final long key, final long iv) {
        try {
            return encrypt
                    ? (int) ENCRYPT_INIT_AT.invokeExact(ctx, 0L, 0L, key, iv)
                    : (int) DECRYPT_INIT_AT.invokeExact(ctx, 0L, 0L, key, iv);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    static int updateAt(final boolean encrypt, final long ctx, final long out, final long outl, final long in,
                        final int inl) {
        try {
            return encrypt
                    ? (int) ENCRYPT_UPDATE_AT.invokeExact(ctx, out, outl, in, inl)
                    : (int) DECRYPT_UPDATE_AT.invokeExact(ctx, out, outl, in, inl);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    static int finishAt(final boolean encrypt, final long ctx, final long out, final long outl) {
        try {
            return encrypt
                    ? (int) ENCRYPT_FINAL_AT.invokeExact(ctx, out, outl)
                    : (int) DECRYPT_FINAL_AT.invokeExact(ctx, out, outl);
        } catch (final Throwable t) {
            throw rethrow(t);
        }
    }

    static int ctrlAt(final long ctx, final int type, final int arg, final long ptr) {
        try {
            return (int) CTRL_AT.invokeExact(ctx, type, arg, ptr);
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
