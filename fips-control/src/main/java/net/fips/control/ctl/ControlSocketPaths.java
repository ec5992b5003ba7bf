package net.fips.control.ctl;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the control socket lives when config does not say ({@code node.control.socket_path} unset). The daemon
 * and the clients use the same order, as the reference does: {@code /run/fips/<name>} when {@code /run/fips} is a
 * directory, else {@code $XDG_RUNTIME_DIR/fips/<name>} when that variable names an existing directory, else
 * {@code /tmp/fips-<name>}.
 */
public final class ControlSocketPaths {

    /** File name of the daemon's control socket. */
    public static final String CONTROL_SOCKET = "control.sock";
    /** The system runtime directory the packages create. */
    public static final Path RUN_DIR = Path.of("/run/fips");

    private ControlSocketPaths() {
    }

    /** @return the default control socket path for this process's environment */
    public static Path defaultControlPath() {
        return resolve(CONTROL_SOCKET, RUN_DIR, System.getenv("XDG_RUNTIME_DIR"));
    }

    /**
     * The resolution rule with its inputs explicit (for tests and other socket names).
     *
     * @param fileName      socket file name, e.g. {@code control.sock}
     * @param runDir        the system runtime directory to prefer
     * @param xdgRuntimeDir value of {@code XDG_RUNTIME_DIR}, or null when unset
     * @return the socket path
     */
    public static Path resolve(final String fileName, final Path runDir, final String xdgRuntimeDir) {
        if (Files.isDirectory(runDir)) {
            return runDir.resolve(fileName);
        }
        // A stale XDG_RUNTIME_DIR (reaped after logout) counts as unset.
        if (xdgRuntimeDir != null && !xdgRuntimeDir.isEmpty() && Files.isDirectory(Path.of(xdgRuntimeDir))) {
            return Path.of(xdgRuntimeDir, "fips", fileName);
        }
        return Path.of("/tmp", "fips-" + fileName);
    }
}
