package net.fips.dataplane.tor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Coverage-guided fuzzing (Jazzer) of the SOCKS5 client handshake, with {@link Socks5FuzzTest}'s checks: fed any
 * proxy bytes in fragments, the handshake ends CONNECTED, FAILED (with its reason) or waiting for more, never throws,
 * and never leaves part of an incomplete message unconsumed. The first input byte picks the target address (onion,
 * IPv4, IPv6) and the client (Tor's username/password isolation below 128, no authentication from 128); the rest
 * are the proxy's bytes, delivered in fragments drawn from a {@link Random} seeded with the input.
 *
 * <p>A plain test run replays the committed corpus under
 * {@code src/test/resources/net/fips/dataplane/tor/Socks5JazzerTestInputs/handshake/} (Jazzer's regression mode);
 * with {@code JAZZER_FUZZ=1} Jazzer fuzzes it, see {@code benchmarks/fuzz.sh}. The seeds are
 * {@link Socks5FuzzTest}'s proxy replies, written by {@link #writeSeeds()}
 * ({@code -Dfips.fuzz.writeSeeds=<resources dir>}).
 */
class Socks5JazzerTest {
    private static final String[] TARGETS = {TorAddressTest.ONION + ":443", "192.0.2.7:8443", "[2001:db8::1]:443"};

    @FuzzTest
    void handshake(final byte[] in) throws TorAddressException {
        if (in.length == 0) {
            return;
        }
        final int sel = in[0] & 0xFF;
        final TorAddress t = TorAddress.parse(TARGETS[sel % TARGETS.length]);
        final Socks5Handshake hs = sel < 128 ? Socks5Handshake.tor(t) : Socks5Handshake.noAuth(t);
        Socks5FuzzTest.feed(hs, Arrays.copyOfRange(in, 1, in.length), new Random(Arrays.hashCode(in)));
    }

    /** Writes the seed corpus: each reply behind a selector for the client it answers. */
    @Test
    @EnabledIfSystemProperty(named = "fips.fuzz.writeSeeds", matches = ".+")
    void writeSeeds() throws IOException {
        final Path dir = Files.createDirectories(Path.of(System.getProperty("fips.fuzz.writeSeeds"),
                "net/fips/dataplane/tor/Socks5JazzerTestInputs", "handshake"));
        for (int i = 0; i < Socks5FuzzTest.REPLY_SEEDS.length; i++) {
            final byte[] reply = Socks5FuzzTest.REPLY_SEEDS[i];
            final byte[] seed = new byte[1 + reply.length];
            // method 02 (username/password) is what the Tor client offers; 00 the no-authentication one
            seed[0] = (byte) ((reply[1] == 0x02 ? 0 : 128) + i % TARGETS.length);
            System.arraycopy(reply, 0, seed, 1, reply.length);
            Files.write(dir.resolve("seed-" + i), seed);
        }
    }
}
