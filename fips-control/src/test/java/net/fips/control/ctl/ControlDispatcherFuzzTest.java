package net.fips.control.ctl;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Random and mutated requests never make the dispatcher throw; every answer is a well-formed envelope. */
class ControlDispatcherFuzzTest {

    static final List<String> SEEDS = List.of(
            "{\"command\":\"show_status\"}",
            "{\"command\":\"connect\",\"params\":{\"npub\":\"npub1qqqq\",\"address\":\"1.2.3.4:2121\","
                    + "\"transport\":\"udp\"}}",
            "{\"command\":\"disconnect\",\"params\":{\"npub\":\"npub1rwzv24nmzfjypx2a8m264ws9vht3uxp5vpypnlu"
                    + "uzl67n4waq78suk0wul\"}}",
            "{\"command\":\"show_peers\",\"params\":[1,{\"a\":null}]}");

    @Test
    void randomAndMutatedRequests() {
        final ControlDispatcher d = new ControlDispatcher(new FakeControlApi());
        final Random rnd = new Random(0xF1F5C7L);
        for (int i = 0; i < 4000; i++) {
            final String text;
            if (i % 4 == 0) {
                final byte[] b = new byte[rnd.nextInt(64)];
                rnd.nextBytes(b);
                text = new String(b, StandardCharsets.ISO_8859_1);
            } else {
                final StringBuilder sb = new StringBuilder(SEEDS.get(rnd.nextInt(SEEDS.size())));
                for (int m = 1 + rnd.nextInt(4); m > 0 && sb.length() > 0; m--) {
                    final int at = rnd.nextInt(sb.length());
                    switch (rnd.nextInt(3)) {
                        case 0 -> sb.setCharAt(at, (char) (32 + rnd.nextInt(95)));
                        case 1 -> sb.deleteCharAt(at);
                        default -> sb.insert(at, "{}[]\",:0n\\".charAt(rnd.nextInt(10)));
                    }
                }
                text = sb.toString();
            }
            check(d, text);
        }
    }

    /**
     * Dispatches one request and checks that the answer is a well-formed envelope: {@code ok} with data and no
     * message, or {@code error} with a text message and no data. Shared with {@link ControlDispatcherJazzerTest}.
     */
    static void check(final ControlDispatcher d, final String text) {
        final ObjectNode r = d.dispatch(text);
        final String status = r.path("status").asText();
        assertTrue(status.equals("ok") && r.has("data") && !r.has("message")
                || status.equals("error") && r.path("message").isTextual() && !r.has("data"), text);
    }
}
