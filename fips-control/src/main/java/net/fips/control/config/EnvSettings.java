package net.fips.control.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What the daemon's environment variables (operator.md §1.21) ask for. {@code XDG_RUNTIME_DIR},
 * {@code XDG_CONFIG_HOME} and {@code HOME} are used directly by path resolution and are not repeated here.
 *
 * @param logLevel       {@code RUST_LOG} when it names a plain level (or has one bare level among its
 *                       directives); it overrides {@code node.log_level} as in the reference
 * @param configFile     {@code FIPS_CONFIG}: a config file to read as if given with {@code -c}. The reference
 *                       honours it only in Windows service mode; here it applies whenever {@code -c} is absent
 * @param encryptWorkers {@code FIPS_ENCRYPT_WORKERS}: FMP encrypt worker count (reference default: CPU count,
 *                       at least 1)
 * @param decryptWorkers {@code FIPS_DECRYPT_WORKERS}: decrypt worker count, 0 = decrypt inline (reference
 *                       default: CPU count)
 * @param threading      {@code FIPS_DATAPLANE_THREADING} (ours): {@code auto}, {@code dedicated} or {@code compact};
 *                       overrides {@code node.dataplane.threading}
 */
public record EnvSettings(Optional<NodeConfig.LogLevel> logLevel, Optional<Path> configFile,
        OptionalInt encryptWorkers, OptionalInt decryptWorkers, Optional<NodeConfig.Threading> threading) {
    /** Nothing set. */
    public static final EnvSettings NONE = new EnvSettings(Optional.empty(), Optional.empty(), OptionalInt.empty(),
            OptionalInt.empty(), Optional.empty());

    /** Without a threading override. */
    public EnvSettings(final Optional<NodeConfig.LogLevel> logLevel, final Optional<Path> configFile,
                       final OptionalInt encryptWorkers, final OptionalInt decryptWorkers) {
        this(logLevel, configFile, encryptWorkers, decryptWorkers, Optional.empty());
    }

    /** Checks nullness. */
    public EnvSettings {
        Objects.requireNonNull(logLevel, "logLevel");
        Objects.requireNonNull(configFile, "configFile");
        Objects.requireNonNull(encryptWorkers, "encryptWorkers");
        Objects.requireNonNull(decryptWorkers, "decryptWorkers");
        Objects.requireNonNull(threading, "threading");
    }

    /**
     * Reads the variables. Like the reference, a value that does not parse is ignored, but here it is also
     * reported as a warning.
     *
     * @param host     the environment
     * @param warnings where to add warnings
     * @return the settings
     */
    static EnvSettings from(final HostEnvironment host, final List<String> warnings) {
        Optional<NodeConfig.LogLevel> level = Optional.empty();
        final String rustLog = host.getenv("RUST_LOG");
        if (rustLog != null) {
            for (final String directive : rustLog.split(",")) {
                final String d = directive.trim().toLowerCase(Locale.ROOT);
                if (!d.contains("=") && !d.isEmpty()) {
                    level = switch (d) {
                        case "trace", "debug", "info", "warn", "warning", "error" ->
                                Optional.of(NodeConfig.parseLogLevel(d));
                        default -> level;
                    };
                }
            }
            if (level.isEmpty()) {
                warnings.add("env RUST_LOG: no plain level (trace/debug/info/warn/error) in \"" + rustLog
                        + "\"; using node.log_level");
            }
        }
        final String cfg = host.getenv("FIPS_CONFIG");
        final Optional<Path> configFile = Optional.ofNullable(cfg).map(c -> c.startsWith("/") ? host.resolve(c)
                : host.workingDir().resolve(c));
        return new EnvSettings(level, configFile, count(host, "FIPS_ENCRYPT_WORKERS", 1, warnings),
                count(host, "FIPS_DECRYPT_WORKERS", 0, warnings), threading(host, warnings));
    }

    private static Optional<NodeConfig.Threading> threading(final HostEnvironment host, final List<String> warnings) {
        final String v = host.getenv("FIPS_DATAPLANE_THREADING");
        if (v == null) {
            return Optional.empty();
        }
        for (final NodeConfig.Threading t : NodeConfig.Threading.values()) {
            if (t.name().equalsIgnoreCase(v.trim())) {
                return Optional.of(t);
            }
        }
        warnings.add("env FIPS_DATAPLANE_THREADING: expected auto, dedicated or compact, got \"" + v + "\"; ignored");
        return Optional.empty();
    }

    private static OptionalInt count(final HostEnvironment host, final String name, final int min,
            final List<String> warnings) {
        final String v = host.getenv(name);
        if (v == null) {
            return OptionalInt.empty();
        }
        try {
            final int n = Integer.parseInt(v.trim());
            if (n >= 0) {
                return OptionalInt.of(Math.max(min, n));
            }
        } catch (final NumberFormatException e) {
            // reported below
        }
        warnings.add("env " + name + ": expected a non-negative integer, got \"" + v + "\"; ignored");
        return OptionalInt.empty();
    }
}
