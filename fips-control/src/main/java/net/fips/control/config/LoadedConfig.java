package net.fips.control.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A loaded configuration with what an operator should be told about it.
 *
 * @param config      the configuration
 * @param files       the files read, lowest priority first (empty for the embedded default or plain text); pass
 *                    to {@code KeyFiles.directoryFor} to place {@code fips.key}
 * @param warnings    one line per setting that parsed but is not supported yet, or was ignored
 * @param environment what the environment variables of §1.21 asked for
 * @param gateway     the {@code gateway:} block, which only {@code fips-gateway} reads; empty when absent
 */
public record LoadedConfig(FipsConfig config, List<Path> files, List<String> warnings, EnvSettings environment,
        Optional<GatewayConfig> gateway) {
    /** Checks nullness and freezes the lists. */
    public LoadedConfig {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(environment, "environment");
        Objects.requireNonNull(gateway, "gateway");
        files = List.copyOf(files);
        warnings = List.copyOf(warnings);
    }

    /** A config without a gateway block. */
    public LoadedConfig(final FipsConfig config, final List<Path> files, final List<String> warnings,
            final EnvSettings environment) {
        this(config, files, warnings, environment, Optional.empty());
    }

    /** @return the log level to run with: {@code RUST_LOG} when it names a plain level, else {@code node.log_level} */
    public NodeConfig.LogLevel effectiveLogLevel() {
        return environment.logLevel().orElse(config.node().effectiveLogLevel());
    }
}
