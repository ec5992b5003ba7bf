package net.fips.control.acl;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One problem found in an ACL file.
 *
 * @param file     the file
 * @param line     1-based line number, 0 for the file as a whole (unreadable, too large)
 * @param severity {@link Severity#ERROR} for a malformed line (the reference skips it too, but a reload with one
 *                 is refused, see {@link AclWatcher}); {@link Severity#WARNING} for an alias that is well formed
 *                 but not known (yet)
 * @param message  what is wrong
 */
public record AclProblem(Path file, int line, Severity severity, String message) {
    /** How bad it is. */
    public enum Severity { WARNING, ERROR }

    /** Checks nullness. */
    public AclProblem {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(message, "message");
    }

    @Override
    public String toString() {
        return file + (line > 0 ? ":" + line : "") + ": " + message;
    }
}
