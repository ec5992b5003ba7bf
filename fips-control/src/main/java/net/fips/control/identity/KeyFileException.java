package net.fips.control.identity;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/** A key file that could not be read, was empty or corrupt, or could not be written. Names the file. */
public final class KeyFileException extends IOException {
    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    public enum Problem {
        /** The file could not be read (missing, unreadable, not UTF-8). */
        READ_FAILED,
        /** The file holds only whitespace. */
        EMPTY,
        /** The content is neither an nsec nor 64 hex digits of a valid secret. */
        CORRUPT,
        /** The file could not be created or written. */
        WRITE_FAILED
    }

    private final transient Path path;
    private final Problem problem;

    /**
     * @param path    the file
     * @param problem what went wrong
     * @param detail  more detail for an operator
     * @param cause   the underlying error, or null
     */
    public KeyFileException(final Path path, final Problem problem, final String detail, final Throwable cause) {
        super("key file " + path + ": " + detail, cause);
        this.path = Objects.requireNonNull(path, "path");
        this.problem = Objects.requireNonNull(problem, "problem");
    }

    /** @return the file */
    public Path path() {
        return path;
    }

    /** @return what went wrong */
    public Problem problem() {
        return problem;
    }
}
