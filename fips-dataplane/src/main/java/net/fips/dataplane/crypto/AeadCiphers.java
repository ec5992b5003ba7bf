package net.fips.dataplane.crypto;

import java.lang.System.Logger.Level;
import java.util.Optional;

import net.fips.ffm.openssl.Libcrypto;

/**
 * Picks the {@link AeadCipher} backend: OpenSSL libcrypto through FFM where {@code libcrypto.so.3} loads and offers
 * ChaCha20-Poly1305, else the JDK's {@code Cipher}. The choice is made once per JVM and logged once, at INFO when
 * libcrypto is used (or the JDK is forced) and at WARNING, with the reason, when falling back.
 *
 * <p>{@code -Dfips.aead.backend=jdk} forces the JDK backend (e.g. to rule out a native problem); any other value
 * than {@code jdk}, {@code libcrypto} or unset is ignored with a warning.
 */
public final class AeadCiphers {
    /** Name of the libcrypto backend, as {@link AeadCipher#backend()} reports it. */
    public static final String LIBCRYPTO = "libcrypto";
    /** Name of the JDK backend, as {@link AeadCipher#backend()} reports it. */
    public static final String JDK = "jdk";
    /** System property that can force a backend. */
    public static final String BACKEND_PROPERTY = "fips.aead.backend";

    private AeadCiphers() {
    }

    /** @return a new engine of the default backend, for the calling thread */
    public static AeadCipher create() {
        return create(Choice.BACKEND);
    }

    /**
     * Creates an engine of the named backend, bypassing the default choice (tests and benchmarks).
     *
     * @param backend {@value #LIBCRYPTO} or {@value #JDK}
     * @throws IllegalArgumentException for an unknown name
     * @throws IllegalStateException    if libcrypto is asked for but unavailable
     */
    public static AeadCipher create(final String backend) {
        return switch (backend) {
            case LIBCRYPTO -> new LibcryptoAeadCipher();
            case JDK -> new JdkAeadCipher();
            default -> throw new IllegalArgumentException("unknown AEAD backend '" + backend + "' (expected "
                    + LIBCRYPTO + " or " + JDK + ")");
        };
    }

    /** @return the backend {@link #create()} uses: {@value #LIBCRYPTO} or {@value #JDK} */
    public static String defaultBackend() {
        return Choice.BACKEND;
    }

    /** @return why the default is not libcrypto, or empty when it is */
    public static Optional<String> fallbackReason() {
        return Optional.ofNullable(Choice.REASON);
    }

    /** The once-per-JVM decision; its initialiser cannot throw because {@link Libcrypto}'s probe does not. */
    private static final class Choice {
        static final String BACKEND;
        static final String REASON;

        static {
            final System.Logger log = System.getLogger(AeadCiphers.class.getName());
            final String forced = System.getProperty(BACKEND_PROPERTY);
            if (forced != null && !forced.equals(LIBCRYPTO) && !forced.equals(JDK)) {
                log.log(Level.WARNING, "ignoring -D{0}={1}: expected {2} or {3}", BACKEND_PROPERTY, forced,
                        LIBCRYPTO, JDK);
            }
            if (JDK.equals(forced)) {
                BACKEND = JDK;
                REASON = "forced by -D" + BACKEND_PROPERTY + "=" + JDK;
            } else if (Libcrypto.isAvailable()) {
                BACKEND = LIBCRYPTO;
                REASON = null;
            } else {
                BACKEND = JDK;
                REASON = Libcrypto.unavailableReason();
            }
            if (REASON == null) {
                log.log(Level.INFO, "AEAD backend: libcrypto ({0})", Libcrypto.version());
            } else if (JDK.equals(forced)) {
                log.log(Level.INFO, "AEAD backend: jdk, {0}", REASON);
            } else {
                log.log(Level.WARNING, "AEAD backend: jdk, because {0}", REASON);
            }
        }
    }
}
