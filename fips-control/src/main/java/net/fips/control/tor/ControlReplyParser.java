package net.fips.control.tor;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Arrays;

/**
 * Decodes control-port replies from bytes as they arrive (transports.md §6.6): lines end in LF (an optional CR
 * before it is dropped); {@code NNN-text} is a data line with more to come, {@code NNN+text} starts a data line
 * whose block follows until a line holding only {@code .} (a leading {@code .} of a block line is un-escaped),
 * {@code NNN text} ends the reply. A line shorter than 4 characters, a code that is not three digits or another
 * separator is a protocol error. Bounded: a line over {@value #MAX_LINE} bytes or a reply over
 * {@value #MAX_REPLY} bytes is a protocol error too, so a misbehaving peer cannot grow it without limit.
 */
public final class ControlReplyParser {
    /** The longest line accepted. */
    public static final int MAX_LINE = 64 * 1024;
    /** The most bytes one reply may take. */
    public static final int MAX_REPLY = 1024 * 1024;

    private byte[] line = new byte[256];
    private int lineLen;
    private int replyBytes;
    private List<ControlReply.Line> lines = new ArrayList<>();
    private int blockCode = -1;
    private String blockContent;
    private List<String> block;

    /**
     * Consumes bytes up to the end of one reply.
     *
     * @param in bytes from the control connection; the position moves past what was consumed (bytes after a
     *           complete reply are left for the next call)
     * @return the reply when it is complete, else null (read more and call again)
     * @throws TorControlException ({@link TorControlException.Kind#PROTOCOL}) on a malformed line; the parser is
     *                             then reset, but the connection should be dropped
     */
    public ControlReply offer(final ByteBuffer in) throws TorControlException {
        while (in.hasRemaining()) {
            final byte b = in.get();
            if (++replyBytes > MAX_REPLY) {
                throw error("reply longer than " + MAX_REPLY + " bytes");
            }
            if (b != '\n') {
                if (lineLen == line.length) {
                    if (lineLen == MAX_LINE) {
                        throw error("line longer than " + MAX_LINE + " bytes");
                    }
                    line = Arrays.copyOf(line, Math.min(MAX_LINE, lineLen * 2));
                }
                line[lineLen++] = b;
                continue;
            }
            int len = lineLen;
            if (len > 0 && line[len - 1] == '\r') {
                len--;
            }
            final String text = new String(line, 0, len, StandardCharsets.UTF_8);
            lineLen = 0;
            final ControlReply done = onLine(text);
            if (done != null) {
                return done;
            }
        }
        return null;
    }

    private ControlReply onLine(final String text) throws TorControlException {
        if (block != null) {
            if (text.equals(".")) {
                lines.add(new ControlReply.Line(blockCode, blockContent, block));
                block = null;
            } else {
                block.add(text.startsWith(".") ? text.substring(1) : text);
            }
            return null;
        }
        if (text.length() < 4) {
            throw error("response line too short: '" + text + "'");
        }
        final int code = code(text);
        final char sep = text.charAt(3);
        final String content = text.substring(4);
        switch (sep) {
            case '-' -> lines.add(new ControlReply.Line(code, content, null));
            case '+' -> {
                blockCode = code;
                blockContent = content;
                block = new ArrayList<>();
            }
            case ' ' -> {
                final ControlReply r = new ControlReply(code, content, lines);
                reset();
                return r;
            }
            default -> throw error("unexpected separator '" + sep + "' in: '" + text + "'");
        }
        return null;
    }

    private int code(final String text) throws TorControlException {
        int v = 0;
        for (int i = 0; i < 3; i++) {
            final char c = text.charAt(i);
            if (c < '0' || c > '9') {
                throw error("invalid response code in: '" + text + "'");
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    private void reset() {
        lines = new ArrayList<>();
        block = null;
        lineLen = 0;
        replyBytes = 0;
    }

    private TorControlException error(final String message) {
        reset();
        return new TorControlException(TorControlException.Kind.PROTOCOL, message);
    }
}
