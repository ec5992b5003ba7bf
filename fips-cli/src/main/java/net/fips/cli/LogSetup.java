package net.fips.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import net.fips.control.config.NodeConfig;

/** The daemon's logging: java.util.logging to stderr, one line per record, level from config or command line. */
final class LogSetup {
    private LogSetup() {
    }

    /** {@code 2026-01-01T12:00:00.123Z INFO  Node: message}, then the stack trace if any. */
    static final class OneLineFormatter extends Formatter {
        @Override
        public String format(final LogRecord r) {
            final StringBuilder sb = new StringBuilder(160);
            sb.append(Instant.ofEpochMilli(r.getMillis())).append(' ');
            final String level = label(r.getLevel());
            sb.append(level).append(" ".repeat(Math.max(1, 6 - level.length())));
            final String name = r.getLoggerName() == null ? "" : r.getLoggerName();
            sb.append(name.substring(name.lastIndexOf('.') + 1)).append(": ").append(formatMessage(r))
                    .append(System.lineSeparator());
            if (r.getThrown() != null) {
                final StringWriter sw = new StringWriter();
                r.getThrown().printStackTrace(new PrintWriter(sw));
                sb.append(sw);
            }
            return sb.toString();
        }

        private static String label(final Level l) {
            if (l.intValue() >= Level.SEVERE.intValue()) {
                return "ERROR";
            }
            if (l.intValue() >= Level.WARNING.intValue()) {
                return "WARN";
            }
            if (l.intValue() >= Level.INFO.intValue()) {
                return "INFO";
            }
            return l.intValue() >= Level.FINE.intValue() ? "DEBUG" : "TRACE";
        }
    }

    /** Replaces the root logger's handlers with one stderr handler at {@code level}. */
    static void install(final NodeConfig.LogLevel level) {
        final Logger root = Logger.getLogger("");
        for (final Handler h : root.getHandlers()) {
            root.removeHandler(h);
        }
        final ConsoleHandler stderr = new ConsoleHandler();
        stderr.setFormatter(new OneLineFormatter());
        stderr.setLevel(Level.ALL);
        root.addHandler(stderr);
        root.setLevel(toJul(level));
    }

    /** Changes the root logger's level (SIGHUP reload). */
    static void setLevel(final NodeConfig.LogLevel level) {
        Logger.getLogger("").setLevel(toJul(level));
    }

    static Level toJul(final NodeConfig.LogLevel level) {
        return switch (level) {
            case TRACE -> Level.FINEST;
            case DEBUG -> Level.FINE;
            case INFO -> Level.INFO;
            case WARN -> Level.WARNING;
            case ERROR -> Level.SEVERE;
        };
    }
}
