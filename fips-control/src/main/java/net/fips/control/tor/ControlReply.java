package net.fips.control.tor;

import java.util.List;
import java.util.Objects;

/**
 * One complete reply of the Tor control protocol: the data lines ({@code NNN-...} and {@code NNN+...} with their
 * dot-terminated blocks) and the final {@code NNN text} line.
 *
 * @param code    the final line's status code (250 = OK)
 * @param message the final line's text
 * @param lines   the data lines in order
 */
public record ControlReply(int code, String message, List<Line> lines) {
    /**
     * One data line.
     *
     * @param code    its status code
     * @param content the text after {@code NNN-} or {@code NNN+}
     * @param data    for a {@code NNN+} line, the lines of its block (leading dot un-escaped), else null
     */
    public record Line(int code, String content, List<String> data) {
        /** Freezes the block. */
        public Line {
            Objects.requireNonNull(content, "content");
            data = data == null ? null : List.copyOf(data);
        }
    }

    /** Freezes the lines. */
    public ControlReply {
        Objects.requireNonNull(message, "message");
        lines = List.copyOf(lines);
    }

    /** @return whether the final code is 250 */
    public boolean isOk() {
        return code == 250;
    }

    /**
     * The value of {@code key} in a GETINFO reply: the text after {@code key=} on a {@code -} line, or a
     * {@code +} line's block joined with {@code \n} (the reference returns only the empty first line there).
     *
     * @param key the GETINFO key
     * @return the value, or null when the reply does not carry the key
     */
    public String value(final String key) {
        final String prefix = key + "=";
        for (final Line l : lines) {
            if (l.content().startsWith(prefix)) {
                return l.data() == null ? l.content().substring(prefix.length()) : String.join("\n", l.data());
            }
        }
        return null;
    }
}
