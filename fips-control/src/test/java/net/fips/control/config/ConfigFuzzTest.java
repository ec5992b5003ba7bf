package net.fips.control.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Random and mutated YAML never gets anything but a ConfigException out of the loader. */
class ConfigFuzzTest {
    static final String SEED_DOC = """
            node:
              identity: { persistent: true }
              rekey: { enabled: true, after_secs: 120 }
              control: { socket_path: "/run/fips/control.sock" }
              discovery: { attempt_timeouts_secs: [1, 2, 4], nostr: { enabled: false } }
            tun: { enabled: true, name: fips0, mtu: 1280 }
            transports:
              udp: { main: { bind_addr: "0.0.0.0:2121", mtu: 1472 } }
              tcp: { bind_addr: "0.0.0.0:8443" }
            peers:
              - npub: "npub1qmc3cvfz0yu2hx96nq3gp55zdan2qclealn7xshgr448d3nh6lks7zel98"
                alias: test-us01
                addresses: [ { transport: udp, addr: "test-us01.fips.network:2121", priority: 5 } ]
            gateway: { enabled: false, pool: "fd01::/112", lan_interface: eth0 }
            """;
    private static final String ALPHABET = " \n\t:-{}[],&*!|>'\"#%@`?~0123456789.abcxyz_<=\\";
    private static final String[] TOKENS = {"&a ", "*a", "!!int ", "!!binary ", "!!set ", "!!map ", "!!str ",
        "!!float ", "!!bool ", "<<: ", "? ", "--- ", "...", "- ", "null", "~", "0x", "0o", "1e999", ".nan", "-.inf",
        "99999999999999999999999", "!<tag:yaml.org,2002:int> ", "!foo ", "%YAML 1.1\n---\n", "\"\\x", "'", "\ufeff",
        "[[[[[[[[[[", "{a: {b: {c: {d: ", "\u0000", "\ud800"};

    @TempDir
    Path root;

    @Test
    void onlyConfigExceptionEscapes() {
        final ConfigLoader loader = new ConfigLoader(ConfigTestSupport.host(root, Map.of()));
        final Random rnd = new Random(0x5EED_F1E5L);
        int accepted = 0;
        for (int i = 0; i < 2000; i++) {
            final String text = i % 4 == 0 ? random(rnd) : mutate(rnd, SEED_DOC);
            if (check(loader, text, "iteration " + i)) {
                accepted++;
            }
        }
        // Some mutations must still be valid configs, or the mutator only tests the YAML syntax layer.
        assertFalse(accepted == 0, "no mutated config was accepted");
    }

    /**
     * Loads one document: true if accepted, false if refused with a {@link ConfigException} that names its
     * problems; anything else fails. Shared with {@link ConfigJazzerTest}.
     */
    static boolean check(final ConfigLoader loader, final String text, final String what) {
        try {
            loader.load(text, "fuzz");
            return true;
        } catch (final ConfigException e) {
            assertFalse(e.problems().isEmpty());
            return false;
        } catch (final RuntimeException | StackOverflowError e) {
            fail(what + " leaked " + e + " for input:\n" + text, e);
            return false;
        }
    }

    private static String random(final Random rnd) {
        final StringBuilder sb = new StringBuilder();
        final int n = rnd.nextInt(200);
        for (int i = 0; i < n; i++) {
            sb.append(rnd.nextInt(5) == 0 ? TOKENS[rnd.nextInt(TOKENS.length)]
                    : String.valueOf(ALPHABET.charAt(rnd.nextInt(ALPHABET.length()))));
        }
        return sb.toString();
    }

    private static String mutate(final Random rnd, final String doc) {
        final StringBuilder sb = new StringBuilder(doc);
        final int edits = 1 + rnd.nextInt(4);
        for (int e = 0; e < edits; e++) {
            final int at = rnd.nextInt(sb.length());
            switch (rnd.nextInt(5)) {
                case 0 -> sb.deleteCharAt(at);
                case 1 -> sb.insert(at, ALPHABET.charAt(rnd.nextInt(ALPHABET.length())));
                case 2 -> sb.insert(at, TOKENS[rnd.nextInt(TOKENS.length)]);
                case 3 -> sb.setCharAt(at, ALPHABET.charAt(rnd.nextInt(ALPHABET.length())));
                default -> {
                    final int end = Math.min(sb.length(), at + rnd.nextInt(40));
                    final String cut = sb.substring(at, end);
                    sb.insert(rnd.nextInt(sb.length()), cut);
                }
            }
        }
        return sb.toString();
    }
}
