package net.fips.control.link;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import java.util.logging.StreamHandler;

/**
 * Captures the java.util.logging records (the System.Logger backend) of one logger subtree for tests, as
 * {@code LEVEL: message} lines. The module under test does not read {@code java.logging}: {@link #attach} adds the
 * read edge at run time, and nothing here subclasses a java.logging class (a subclass would be checked when this
 * class is verified, before the edge exists).
 */
public final class LogCapture implements AutoCloseable {
    private final Logger jul;
    private final Level previous;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final StreamHandler handler;

    private LogCapture(final String loggerName) {
        this.jul = Logger.getLogger(loggerName);
        this.previous = jul.getLevel();
        this.handler = new StreamHandler(bytes, new SimpleFormatter());
        handler.setLevel(Level.ALL);
        jul.setLevel(Level.INFO);
        jul.addHandler(handler);
    }

    /** Starts capturing INFO and above of {@code loggerName} and its children. */
    public static LogCapture attach(final String loggerName) {
        LogCapture.class.getModule().addReads(ModuleLayer.boot().findModule("java.logging").orElseThrow());
        return new LogCapture(loggerName);
    }

    /**
     * @param level "INFO", "WARNING", ...
     * @param part  text the message must contain
     * @return the messages at that level, in order
     */
    public synchronized List<String> lines(final String level, final String part) {
        handler.flush();
        final List<String> out = new ArrayList<>();
        // The formatter writes the localized level name.
        final String label = Level.parse(level).getLocalizedName();
        for (final String line : bytes.toString(StandardCharsets.UTF_8).split("\\R")) {
            // SimpleFormatter's default format: a date/source line, then "LEVEL: message".
            if (line.startsWith(label + ": ")) {
                final String m = line.substring(label.length() + 2);
                if (m.contains(part)) {
                    out.add(m);
                }
            }
        }
        return out;
    }

    @Override
    public void close() {
        jul.removeHandler(handler);
        jul.setLevel(previous);
    }
}
