package net.fips.control.crypto;

import java.util.List;
import java.util.Locale;

import net.fips.ffm.secp256k1.Secp256k1Lib;

/**
 * Chooses the {@link Secp256k1Backend}: libsecp256k1 ({@value Secp256k1Lib#SONAME}, Debian package
 * {@code libsecp256k1-1}) when it loads, else BouncyCastle. The choice is made once, on first use, and logged in one
 * line that names the backend and, for BouncyCastle, why.
 *
 * <p>The system property {@value #PROPERTY} overrides it: {@code native} (the default; falls back with a warning when
 * the library is unavailable), {@code bc} (BouncyCastle even when the library loads). Any other value is warned about
 * and treated as the default.
 */
public final class Secp256k1Backends {
    /** The system property that overrides the choice: {@code native} or {@code bc}. */
    public static final String PROPERTY = "fips.secp256k1";

    private static final System.Logger LOG = System.getLogger(Secp256k1Backends.class.getName());
    private static final Secp256k1Backend BOUNCY_CASTLE = new BouncyCastleSecp256k1Backend();

    private static volatile Secp256k1Backend active;

    private Secp256k1Backends() {
    }

    /** @return the backend every {@link Secp256k1} and {@link Schnorr} call uses; chosen on the first call */
    public static Secp256k1Backend active() {
        Secp256k1Backend b = active;
        if (b == null) {
            synchronized (Secp256k1Backends.class) {
                b = active;
                if (b == null) {
                    b = choose(System.getProperty(PROPERTY));
                    active = b;
                }
            }
        }
        return b;
    }

    /**
     * Replaces the active backend, for tests and benchmarks that run the same work on both (the two give identical
     * bytes, so a switch never changes a result). Does not make (or log) the default choice.
     *
     * @param backend the backend to use from now on; {@code null} makes the next {@link #active()} choose again
     * @return the backend that was active before, {@code null} when none was chosen yet (pass it back to restore)
     */
    public static Secp256k1Backend use(final Secp256k1Backend backend) {
        synchronized (Secp256k1Backends.class) {
            final Secp256k1Backend before = active;
            active = backend;
            return before;
        }
    }

    /** @return the BouncyCastle backend (always available) */
    public static Secp256k1Backend bouncyCastle() {
        return BOUNCY_CASTLE;
    }

    /** @return the libsecp256k1 backend, or {@code null} when the library is unavailable */
    public static Secp256k1Backend libsecp256k1() {
        return Native.BACKEND;
    }

    /** @return why libsecp256k1 cannot be used, or {@code null} when it can */
    public static String libsecp256k1UnavailableReason() {
        return Secp256k1Lib.unavailableReason();
    }

    /** @return every backend available here, libsecp256k1 first */
    public static List<Secp256k1Backend> available() {
        final Secp256k1Backend n = libsecp256k1();
        return n == null ? List.of(BOUNCY_CASTLE) : List.of(n, BOUNCY_CASTLE);
    }

    /**
     * @param property the value of {@value #PROPERTY}, or {@code null}
     * @return the backend it selects on this machine (logs the choice)
     */
    static Secp256k1Backend choose(final String property) {
        final String want = property == null ? "" : property.strip().toLowerCase(Locale.ROOT);
        if (want.equals("bc")) {
            LOG.log(System.Logger.Level.INFO, "secp256k1 backend: BouncyCastle ({0}=bc)", PROPERTY);
            return BOUNCY_CASTLE;
        }
        if (!want.isEmpty() && !want.equals("native")) {
            LOG.log(System.Logger.Level.WARNING, "{0}={1} is neither native nor bc; using the default", PROPERTY,
                    property);
        }
        final Secp256k1Backend n = libsecp256k1();
        if (n != null) {
            LOG.log(System.Logger.Level.INFO, "secp256k1 backend: libsecp256k1 ({0})", Secp256k1Lib.SONAME);
            return n;
        }
        LOG.log(System.Logger.Level.WARNING, "secp256k1 backend: BouncyCastle, slower: {0} (install the {1} package)",
                Secp256k1Lib.unavailableReason(), "libsecp256k1-1");
        return BOUNCY_CASTLE;
    }

    /** Probes the library on first use only, so {@code bc} never touches it. */
    private static final class Native {
        static final Secp256k1Backend BACKEND = Secp256k1Lib.isAvailable() ? new LibSecp256k1Backend() : null;
    }
}
