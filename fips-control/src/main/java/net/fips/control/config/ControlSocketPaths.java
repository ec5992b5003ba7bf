package net.fips.control.config;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Default control socket location (operator.md §1.4, §2.1), one resolver for the daemon and its clients as in the
 * reference: {@code /run/fips/<name>} when {@code /run/fips} is a directory, else
 * {@code $XDG_RUNTIME_DIR/fips/<name>} when that variable names an existing directory (a stale value after logout
 * counts as unset), else {@code /tmp/fips-<name>}. Choice is by existence, not writability, so a client that
 * lacks the group still finds the daemon's socket and gets a clear EACCES.
 */
public final class ControlSocketPaths {
    /** File name of the daemon's control socket. */
    public static final String CONTROL_SOCKET = "control.sock";
    /** File name of the gateway's control socket. */
    public static final String GATEWAY_SOCKET = "gateway.sock";

    private ControlSocketPaths() {
    }

    /**
     * @param host     where to look
     * @param fileName socket file name, e.g. {@link #CONTROL_SOCKET}
     * @return the socket path
     */
    public static Path resolveDefault(final HostEnvironment host, final String fileName) {
        final Path run = host.resolve("/run/fips");
        if (Files.isDirectory(run)) {
            return run.resolve(fileName);
        }
        final String xdg = host.getenv("XDG_RUNTIME_DIR");
        if (xdg != null && xdg.startsWith("/")) {
            final Path dir = host.resolve(xdg);
            if (Files.isDirectory(dir)) {
                return dir.resolve("fips").resolve(fileName);
            }
        }
        return host.resolve("/tmp").resolve("fips-" + fileName);
    }

    /**
     * @return the daemon control socket path on the real host
     */
    public static Path defaultControlSocket() {
        return resolveDefault(HostEnvironment.system(), CONTROL_SOCKET);
    }
}
