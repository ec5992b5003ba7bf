package net.fips.control.acl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import net.fips.control.config.EthernetAddress;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.metrics.Granularity;
import net.fips.dataplane.ble.L2capFamily;
import net.fips.dataplane.ethernet.MacAddress;

/**
 * Seeded random input for the parsers of operator text that the wire fuzzers do not cover: the ACL files (never
 * throw: every bad line is a problem with its line number, the rest still applies), peer addresses of Ethernet and
 * BLE, MAC addresses, and the metrics query parameters (only {@link IllegalArgumentException}, naming the input).
 */
class OperatorTextFuzzTest {
    private static final int ROUNDS = 20_000;
    private static final String NPUB = PeerAclTest.A;

    /** Random text from an alphabet that makes near-misses likely, sometimes spliced with a valid sample. */
    private static String text(final SplittableRandom r, final String alphabet, final List<String> samples) {
        final StringBuilder b = new StringBuilder();
        if (r.nextInt(3) == 0) {
            final String s = samples.get(r.nextInt(samples.size()));
            b.append(s, 0, r.nextInt(s.length() + 1));
        }
        final int n = r.nextInt(28);
        for (int i = 0; i < n; i++) {
            b.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        if (r.nextInt(4) == 0 && b.length() > 0) {
            b.setCharAt(r.nextInt(b.length()), (char) r.nextInt(0x20, 0x3000));
        }
        return b.toString();
    }

    private static void onlyIllegalArgument(final String what, final String input, final Consumer<String> parser) {
        try {
            parser.accept(input);
        } catch (final IllegalArgumentException e) {
            assertNotNull(e.getMessage(), what + ": " + input);
        } catch (final RuntimeException e) {
            fail(what + " threw " + e + " for \"" + input + "\"", e);
        }
    }

    @Test
    void aclFilesNeverThrowAndKeepTheirGoodLines() throws Exception {
        final SplittableRandom r = new SplittableRandom(0xAC1L);
        final HostAliases aliases = HostAliases.of(Map.of("peer-x", NPUB));
        final List<String> samples = List.of(NPUB, "ALL", "all # c", "peer-x", "npub1", "# only a comment");
        for (int i = 0; i < ROUNDS / 10; i++) {
            final StringBuilder allow = new StringBuilder();
            final int lines = r.nextInt(6);
            for (int l = 0; l < lines; l++) {
                allow.append(text(r, "npub1qpzry9x8gf2tvdw0s3jn54khce6mua7l #\t ALL-_.", samples))
                        .append(r.nextBoolean() ? "\n" : "\r\n");
            }
            // a valid line last: whatever came before, it is allowed
            allow.append(NPUB).append('\n');
            final PeerAcl.Loaded l;
            try {
                l = PeerAcl.parse(Path.of("peers.allow"), allow.toString(), Path.of("peers.deny"),
                        r.nextBoolean() ? null : text(r, "ALnpub1 #\n", samples), aliases);
            } catch (final RuntimeException e) {
                throw new AssertionError("PeerAcl.parse threw for " + allow, e);
            }
            for (final AclProblem p : l.problems()) {
                assertTrue(p.line() >= 0 && p.message() != null, p.toString());
            }
            assertEquals(AclDecision.ALLOWLIST_MATCH, l.acl().decide(PeerIdentity.fromNpub(NPUB)),
                    "the good last line still applies: " + allow + " " + l.problems());
        }
    }

    @Test
    void addressesAndQueryParametersFailOnlyWithTheirOwnError() {
        final SplittableRandom r = new SplittableRandom(0xADD5L);
        final List<String> macs = List.of("02:00:5e:00:00:0a", "eth0/02:00:5e:00:00:0a", "hci0/AA:BB:CC:DD:EE:FF",
                "hci0/AA:BB:CC:DD:EE:FF/random", "1s", "1m", "10m", "24h", "+5s");
        for (int i = 0; i < ROUNDS; i++) {
            final String t = text(r, "0123456789abcdefABCDEF:-/ hciethrandomsh+", macs);
            onlyIllegalArgument("MacAddress.parse", t, MacAddress::parse);
            onlyIllegalArgument("EthernetAddress.parse", t, EthernetAddress::parse);
            onlyIllegalArgument("L2capFamily.parse", t, L2capFamily::parse);
            onlyIllegalArgument("Granularity.parse", t, Granularity::parse);
            onlyIllegalArgument("Granularity.parseWindowSeconds", t, s -> {
                if (Granularity.parseWindowSeconds(s) < 0) {
                    fail("negative window for " + s);
                }
            });
        }
    }
}
