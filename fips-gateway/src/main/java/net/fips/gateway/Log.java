package net.fips.gateway;

import java.io.PrintStream;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/** The gateway's log: one line per event on stderr (journald under systemd), at or above a level. */
public final class Log {
    /** Levels, lowest first, with the reference's names. */
    public enum Level {
        /** Everything. */
        TRACE,
        /** Per-query detail. */
        DEBUG,
        /** Start, stop, mappings. */
        INFO,
        /** Degraded operation. */
        WARN,
        /** Failures. */
        ERROR
    }

    private final PrintStream out;
    private final Level level;

    /**
     * @param out   where lines go
     * @param level the lowest level written
     */
    public Log(final PrintStream out, final Level level) {
        this.out = out;
        this.level = level;
    }

    /**
     * @param text a level name, any case
     * @return the level
     * @throws IllegalArgumentException naming the accepted names
     */
    public static Level parse(final String text) {
        try {
            return Level.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown log level \"" + text
                    + "\" (trace, debug, info, warn, error)", e);
        }
    }

    /** @param m the message */
    public void debug(final String m) {
        write(Level.DEBUG, m);
    }

    /** @param m the message */
    public void info(final String m) {
        write(Level.INFO, m);
    }

    /** @param m the message */
    public void warn(final String m) {
        write(Level.WARN, m);
    }

    /** @param m the message */
    public void error(final String m) {
        write(Level.ERROR, m);
    }

    private void write(final Level l, final String m) {
        if (l.compareTo(level) >= 0) {
            synchronized (out) {
                out.println(Instant.now().truncatedTo(ChronoUnit.MILLIS) + " " + l + " " + m);
            }
        }
    }
}
