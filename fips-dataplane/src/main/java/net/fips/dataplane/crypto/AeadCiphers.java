package net.fips.dataplane.crypto;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import net.fips.ffm.boringssl.Boringssl;
import net.fips.ffm.openssl.Libcrypto;

/**
 * Picks the {@link AeadCipher} backend. By default: BoringSSL's one-call {@code EVP_AEAD} through FFM where Debian's
 * {@code android-libboringssl} is installed (the cheapest per packet, docs/benchmarks.md; ADR 0054), else OpenSSL
 * libcrypto where {@code libcrypto.so.3} loads and offers ChaCha20-Poly1305, else the JDK's {@code Cipher}. The
 * choice is made once per JVM and logged once, at INFO when the first choice is used (or a backend is forced) and
 * at WARNING, with the reasons, when falling back.
 *
 * <p>{@code -Dfips.aead.backend=boringssl|libcrypto|jdk} forces a backend (e.g. to rule out a native problem, or
 * to compare); a forced native backend that cannot load falls back along the default order with a warning. Any
 * other value is ignored with a warning.
 */
public final class AeadCiphers {
    /** Name of the OpenSSL libcrypto backend, as {@link AeadCipher#backend()} reports it. */
    public static final String LIBCRYPTO = "libcrypto";
    /** Name of the BoringSSL backend, as {@link AeadCipher#backend()} reports it. */
    public static final String BORINGSSL = "boringssl";
    /** Name of the JDK backend, as {@link AeadCipher#backend()} reports it. */
    public static final String JDK = "jdk";
    /** System property that can force a backend. */
    public static final String BACKEND_PROPERTY = "fips.aead.backend";
    /** The default order: the first available one is used; {@value #JDK} is always available. */
    public static final List<String> DEFAULT_ORDER = List.of(BORINGSSL, LIBCRYPTO, JDK);

    private AeadCiphers() {
    }

    /** @return a new engine of the default backend, for the calling thread */
    public static AeadCipher create() {
        return create(Choice.BACKEND);
    }

    /**
     * Creates an engine of the named backend, bypassing the default choice (tests and benchmarks).
     *
     * @param backend {@value #LIBCRYPTO}, {@value #BORINGSSL} or {@value #JDK}
     * @throws IllegalArgumentException for an unknown name
     * @throws IllegalStateException    if a native backend is asked for but unavailable
     */
    public static AeadCipher create(final String backend) {
        return switch (backend) {
            case LIBCRYPTO -> new LibcryptoAeadCipher();
            case BORINGSSL -> new BoringsslAeadCipher();
            case JDK -> new JdkAeadCipher();
            default -> throw new IllegalArgumentException("unknown AEAD backend '" + backend + "' (expected "
                    + String.join(", ", DEFAULT_ORDER) + ")");
        };
    }

    /** @return the backend {@link #create()} uses: one of {@link #DEFAULT_ORDER} */
    public static String defaultBackend() {
        return Choice.BACKEND;
    }

    /** @return the backends that can be created on this machine, in {@link #DEFAULT_ORDER} */
    public static List<String> available() {
        return DEFAULT_ORDER.stream().filter(b -> unavailableReason(b) == null).toList();
    }

    /**
     * @return why {@link #defaultBackend()} is not the first of {@link #DEFAULT_ORDER} (a forced backend, or the
     *         load failures of those before it), or empty when it is
     */
    public static Optional<String> fallbackReason() {
        return Optional.ofNullable(Choice.REASON);
    }

    /** @return why {@code backend} cannot be created here, or {@code null} when it can */
    static String unavailableReason(final String backend) {
        return switch (backend) {
            case LIBCRYPTO -> Libcrypto.unavailableReason();
            case BORINGSSL -> Boringssl.unavailableReason();
            default -> null;
        };
    }

    private static String describe(final String backend) {
        return switch (backend) {
            case LIBCRYPTO -> Libcrypto.version();
            case BORINGSSL -> Boringssl.version();
            default -> "javax.crypto ChaCha20-Poly1305";
        };
    }

    /**
     * The choice itself, for a given forced name and availability (pure, so the fallbacks can be tested).
     *
     * @param forced      the property's value if it names a backend, else {@code null}
     * @param unavailable a backend's unavailability reason, {@code null} when it can be created
     * @return {chosen backend, reason it is not the first of {@link #DEFAULT_ORDER} or {@code null}}
     */
    static String[] choose(final String forced, final Function<String, String> unavailable) {
        final StringBuilder why = new StringBuilder();
        if (forced != null && unavailable.apply(forced) == null) {
            if (!forced.equals(DEFAULT_ORDER.getFirst())) {
                why.append("forced by -D").append(BACKEND_PROPERTY).append('=').append(forced);
            }
            return new String[] {forced, why.isEmpty() ? null : why.toString()};
        }
        if (forced != null) {
            why.append("-D").append(BACKEND_PROPERTY).append('=').append(forced).append(" unavailable: ")
                    .append(unavailable.apply(forced));
        }
        for (final String b : DEFAULT_ORDER) {
            final String reason = unavailable.apply(b);
            if (reason == null) {
                return new String[] {b, why.isEmpty() ? null : why.toString()};
            }
            if (!b.equals(forced)) {
                why.append(why.isEmpty() ? "" : "; ").append(b).append(" unavailable: ").append(reason);
            }
        }
        throw new IllegalStateException("no AEAD backend available: " + why);
    }

    /** The once-per-JVM decision; its initialiser cannot throw because the libraries' probes do not. */
    private static final class Choice {
        static final String BACKEND;
        static final String REASON;

        static {
            final System.Logger log = System.getLogger(AeadCiphers.class.getName());
            String forced = System.getProperty(BACKEND_PROPERTY);
            if (forced != null && !DEFAULT_ORDER.contains(forced)) {
                log.log(Level.WARNING, "ignoring -D{0}={1}: expected one of {2}", BACKEND_PROPERTY, forced,
                        String.join(", ", DEFAULT_ORDER));
                forced = null;
            }
            final String[] choice = choose(forced, AeadCiphers::unavailableReason);
            BACKEND = choice[0];
            REASON = choice[1];
            if (REASON == null) {
                log.log(Level.INFO, "AEAD backend: {0} ({1})", BACKEND, describe(BACKEND));
            } else if (forced != null && forced.equals(BACKEND)) {
                log.log(Level.INFO, "AEAD backend: {0} ({1}), {2}", BACKEND, describe(BACKEND), REASON);
            } else {
                log.log(Level.WARNING, "AEAD backend: {0} ({1}), because {2}", BACKEND, describe(BACKEND), REASON);
            }
        }
    }
}
