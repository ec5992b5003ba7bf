package net.fips.ffm.openssl;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;

import net.fips.ffm.openssl.gen.openssl_h;

/**
 * Whether OpenSSL's libcrypto ({@value #SONAME}) can be used from this JVM, and if not, why.
 *
 * <p>The probe runs once, on first use, and never throws: a missing library, a missing symbol, native access
 * denied to module {@code net.fips.ffm}, or a libcrypto whose providers do not offer ChaCha20-Poly1305 (a
 * FIPS-only configuration) all end up as an {@link #unavailableReason() explanation}. Only after a successful
 * probe is the generated class {@code openssl_h} used elsewhere, so its throwing static initialiser is never the
 * first thing to meet a broken installation.
 */
public final class Libcrypto {
    /** The library loaded by soname, so the runtime needs only Debian's libssl3 package, not libssl-dev. */
    public static final String SONAME = "libcrypto.so.3";

    private Libcrypto() {
    }

    /** @return whether the ChaCha20-Poly1305 engine can be created */
    public static boolean isAvailable() {
        return Probe.REASON == null;
    }

    /** @return why libcrypto cannot be used, or {@code null} when it can */
    public static String unavailableReason() {
        return Probe.REASON;
    }

    /** @return OpenSSL's version text (e.g. {@code "OpenSSL 3.0.19 27 Jan 2026"}), or {@code null} if unavailable */
    public static String version() {
        return Probe.VERSION;
    }

    /** @throws IllegalStateException naming the probe's reason when libcrypto is unavailable */
    static void requireAvailable() {
        if (Probe.REASON != null) {
            throw new IllegalStateException("libcrypto unavailable: " + Probe.REASON);
        }
    }

    /** Holds the probe's outcome; its initialiser catches everything, so it cannot fail. */
    static final class Probe {
        static final String VERSION;
        static final String REASON;

        static {
            final String[] outcome = probe(SONAME);
            VERSION = outcome[0];
            REASON = outcome[1];
        }

        /** @return {version or null, reason or null}; never throws */
        static String[] probe(final String soname) {
            // Open by soname first: the dynamic loader's own message ("cannot open shared object file") is the
            // most useful reason, better than the generated class's wrapped initialiser failure.
            try (Arena arena = Arena.ofConfined()) {
                SymbolLookup.libraryLookup(soname, arena);
            } catch (final IllegalArgumentException e) {
                return new String[] {null, soname + " could not be loaded: " + e.getMessage()};
            } catch (final IllegalCallerException e) {
                return new String[] {null, "native access is not enabled for module net.fips.ffm "
                        + "(run with --enable-native-access=net.fips.ffm): " + e.getMessage()};
            } catch (final RuntimeException | LinkageError e) {
                return new String[] {null, soname + " could not be loaded: " + e};
            }
            try {
                final String version = openssl_h.OpenSSL_version(openssl_h.OPENSSL_VERSION())
                        .reinterpret(256).getString(0);
                // Touching Evp links every per-packet handle: a missing symbol surfaces here, not per packet.
                if (Evp.CTRL == null) {
                    return new String[] {version, "EVP handles could not be linked"};
                }
                final MemorySegment ctx = openssl_h.EVP_CIPHER_CTX_new();
                if (ctx.equals(MemorySegment.NULL)) {
                    return new String[] {version, "EVP_CIPHER_CTX_new returned NULL"};
                }
                try {
                    final MemorySegment cipher = openssl_h.EVP_chacha20_poly1305();
                    if (cipher.equals(MemorySegment.NULL)
                            || openssl_h.EVP_EncryptInit_ex(ctx, cipher, MemorySegment.NULL, MemorySegment.NULL,
                            MemorySegment.NULL) != 1) {
                        return new String[] {version, version + " offers no ChaCha20-Poly1305 "
                                + "(is only the FIPS provider loaded?)"};
                    }
                } finally {
                    openssl_h.EVP_CIPHER_CTX_free(ctx);
                }
                return new String[] {version, null};
            } catch (final RuntimeException | LinkageError e) {
                final Throwable cause = e instanceof ExceptionInInitializerError && e.getCause() != null
                        ? e.getCause() : e;
                return new String[] {null, "binding " + SONAME + " failed: " + cause};
            }
        }
    }
}
