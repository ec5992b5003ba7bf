package net.fips.ffm.boringssl;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;

import net.fips.ffm.boringssl.gen.boringssl_h;
import net.fips.ffm.boringssl.gen.evp_aead_ctx_st;

/**
 * Whether BoringSSL's libcrypto ({@value #PATH}) can be used from this JVM, and if not, why.
 *
 * <p>The probe runs once, on first use, and never throws: a missing library (the package is not installed), a
 * missing symbol, native access denied to module {@code net.fips.ffm}, or a context that does not initialise all end
 * up as an {@link #unavailableReason() explanation}. Only after a successful probe is the generated class
 * {@code boringssl_h} used elsewhere, so its throwing static initialiser is never the first thing to meet a broken
 * installation.
 *
 * <p>The library is opened by path, not soname: Debian installs it outside the loader's search path (its soname
 * {@code libcrypto.so.0} would otherwise be taken for an old OpenSSL). {@link SymbolLookup#libraryLookup} resolves
 * names in this library only, so its {@code EVP_*} names never meet OpenSSL's {@code libcrypto.so.3} in the same
 * process.
 */
public final class Boringssl {
    /** Where Debian's {@code android-libboringssl} installs the library on x86_64 (the generated code's path). */
    public static final String PATH = "/usr/lib/x86_64-linux-gnu/android/libcrypto.so.0";

    private Boringssl() {
    }

    /** @return whether the ChaCha20-Poly1305 engine can be created */
    public static boolean isAvailable() {
        return Probe.REASON == null;
    }

    /** @return why BoringSSL cannot be used, or {@code null} when it can */
    public static String unavailableReason() {
        return Probe.REASON;
    }

    /** @return a description for the log, e.g. {@code "BoringSSL EVP_AEAD (/usr/lib/.../libcrypto.so.0)"} */
    public static String version() {
        return "BoringSSL EVP_AEAD (" + PATH + ")";
    }

    /** @throws IllegalStateException naming the probe's reason when BoringSSL is unavailable */
    static void requireAvailable() {
        if (Probe.REASON != null) {
            throw new IllegalStateException("BoringSSL unavailable: " + Probe.REASON);
        }
    }

    /** Holds the probe's outcome; its initialiser catches everything, so it cannot fail. */
    static final class Probe {
        static final String REASON = probe(PATH);

        /** @return the reason the library at {@code path} cannot be used, or {@code null}; never throws */
        static String probe(final String path) {
            try (Arena arena = Arena.ofConfined()) {
                SymbolLookup.libraryLookup(path, arena);
            } catch (final IllegalArgumentException e) {
                return path + " could not be loaded (is android-libboringssl installed?): " + e.getMessage();
            } catch (final IllegalCallerException e) {
                return "native access is not enabled for module net.fips.ffm "
                        + "(run with --enable-native-access=net.fips.ffm): " + e.getMessage();
            } catch (final RuntimeException | LinkageError e) {
                return path + " could not be loaded: " + e;
            }
            try (Arena arena = Arena.ofConfined()) {
                // Touching Aead links every per-packet handle: a missing symbol surfaces here, not per packet.
                if (Aead.SEAL_AT == null) {
                    return "EVP_AEAD handles could not be linked";
                }
                final MemorySegment aead = boringssl_h.EVP_aead_chacha20_poly1305();
                if (aead.equals(MemorySegment.NULL)) {
                    return "EVP_aead_chacha20_poly1305 returned NULL";
                }
                final MemorySegment ctx = arena.allocate(evp_aead_ctx_st.layout());
                final MemorySegment key = arena.allocate(AeadChaCha20Poly1305.KEY_BYTES);
                if (boringssl_h.EVP_AEAD_CTX_init(ctx, aead, key, AeadChaCha20Poly1305.KEY_BYTES,
                        boringssl_h.EVP_AEAD_DEFAULT_TAG_LENGTH(), MemorySegment.NULL) != 1) {
                    return "EVP_AEAD_CTX_init refused a ChaCha20-Poly1305 key";
                }
                boringssl_h.EVP_AEAD_CTX_cleanup(ctx);
                return null;
            } catch (final RuntimeException | LinkageError e) {
                final Throwable cause = e instanceof ExceptionInInitializerError && e.getCause() != null
                        ? e.getCause() : e;
                return "binding " + path + " failed: " + cause;
            }
        }
    }
}
