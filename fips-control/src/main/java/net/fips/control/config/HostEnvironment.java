package net.fips.control.config;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * The parts of the host that configuration depends on, injectable so tests run against a temporary directory:
 * the file system root under which every absolute path ({@code /etc/fips}, {@code /run/fips}, {@code /tmp},
 * {@code $HOME}, ...) is looked up, the working directory for {@code ./fips.yaml}, and the environment.
 *
 * @param root       the file system root ({@code /} in production)
 * @param workingDir the directory {@code ./fips.yaml} is relative to
 * @param env        environment variables
 */
public record HostEnvironment(Path root, Path workingDir, Map<String, String> env) {
    /** Checks nullness and freezes the environment. */
    public HostEnvironment {
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(workingDir, "workingDir");
        env = Map.copyOf(env);
    }

    /** @return the real host: root {@code /}, the process working directory and environment */
    public static HostEnvironment system() {
        return new HostEnvironment(Path.of("/"), Path.of("").toAbsolutePath(), System.getenv());
    }

    /**
     * @param absolute an absolute path as the reference writes it ({@code /etc/fips/fips.yaml})
     * @return that path under {@link #root()}
     */
    public Path resolve(final String absolute) {
        String rel = absolute;
        while (rel.startsWith("/")) {
            rel = rel.substring(1);
        }
        return rel.isEmpty() ? root : root.resolve(rel);
    }

    /** @return the variable's value when set and non-empty, else null */
    public String getenv(final String name) {
        final String v = env.get(name);
        return v == null || v.isEmpty() ? null : v;
    }
}
