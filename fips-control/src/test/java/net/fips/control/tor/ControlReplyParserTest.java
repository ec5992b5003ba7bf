package net.fips.control.tor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The control-port reply grammar of transports.md §6.6. */
class ControlReplyParserTest {
    private static ByteBuffer bytes(final String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void singleLineAndDataLines() throws Exception {
        final ControlReplyParser p = new ControlReplyParser();
        final ControlReply ok = p.offer(bytes("250 OK\r\n"));
        assertEquals(250, ok.code());
        assertEquals("OK", ok.message());
        assertTrue(ok.lines().isEmpty());
        final ControlReply v = p.offer(bytes("250-version=0.4.9.11\r\n250 OK\r\n"));
        assertEquals("0.4.9.11", v.value("version"));
        assertNull(v.value("dormant"));
        final ControlReply err = p.offer(bytes("552 Unrecognized key \"nosuch\"\r\n"));
        assertEquals(552, err.code());
        assertEquals("Unrecognized key \"nosuch\"", err.message());
    }

    @Test
    void plusLinesCarryADotTerminatedBlockWithLeadingDotsUnescaped() throws Exception {
        final ControlReply r = new ControlReplyParser().offer(bytes(
                "250+config-text=\r\nControlPort 9051\r\n..hidden\r\n\r\n.\r\n250-dormant=0\r\n250 OK\r\n"));
        assertEquals(2, r.lines().size());
        assertEquals(List.of("ControlPort 9051", ".hidden", ""), r.lines().get(0).data());
        assertEquals("ControlPort 9051\n.hidden\n", r.value("config-text"));
        assertEquals("0", r.value("dormant"));
    }

    @Test
    void bytesArriveInAnyFragmentsAndTheNextReplyIsLeftAlone() throws Exception {
        final ControlReplyParser p = new ControlReplyParser();
        final byte[] all = "250-traffic/read=42\n250 OK\n250 OK\r\n".getBytes(StandardCharsets.US_ASCII);
        ControlReply r = null;
        int i = 0;
        while (r == null) {
            r = p.offer(ByteBuffer.wrap(all, i, 1));
            i++;
        }
        assertEquals("42", r.value("traffic/read"));
        final ByteBuffer rest = ByteBuffer.wrap(all, i, all.length - i);
        assertEquals(250, p.offer(rest).code());
        assertEquals(0, rest.remaining());
        final ByteBuffer two = bytes("250 A\r\n250 B\r\n");
        assertEquals("A", p.offer(two).message());
        assertEquals(7, two.remaining());
    }

    @Test
    void grammarViolationsAreProtocolErrors() {
        for (final String bad : List.of("250\r\n", "25\r\n", "\r\n", "2x0 OK\r\n", "250*OK\r\n", "-250 OK\r\n")) {
            final TorControlException e = assertThrows(TorControlException.class,
                    () -> new ControlReplyParser().offer(bytes(bad)), bad);
            assertEquals(TorControlException.Kind.PROTOCOL, e.kind());
        }
        final ControlReplyParser p = new ControlReplyParser();
        final TorControlException big = assertThrows(TorControlException.class,
                () -> p.offer(bytes("250-" + "x".repeat(ControlReplyParser.MAX_LINE))));
        assertTrue(big.getMessage().contains("longer"), big.getMessage());
    }

    @Test
    void anIncompleteReplyIsNull() throws Exception {
        final ControlReplyParser p = new ControlReplyParser();
        assertNull(p.offer(bytes("250-version=1\r\n")));
        assertNull(p.offer(bytes("250+x=\r\nline\r\n")));
        assertEquals(250, p.offer(bytes(".\r\n250 OK\r\n")).code());
    }
}
