package net.fips.control.acl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import net.fips.control.config.EthernetAddress;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.metrics.Granularity;
import net.fips.dataplane.ble.L2capFamily;
import net.fips.dataplane.ethernet.MacAddress;

/**
 * Coverage-guided fuzzing (Jazzer) of the parsers of operator text beside the config: the ACL files
 * ({@code peers.allow}/{@code peers.deny}, read as bytes and decoded as {@link PeerAcl} does), the hosts file
 * ({@link HostAliases#parseHostsFile}), and Ethernet/BLE peer addresses, MAC addresses and metrics query parameters,
 * with {@link OperatorTextFuzzTest}'s contract: the files never throw (every bad line is a problem with its line
 * number, a good line still applies), the address parsers fail only with {@link IllegalArgumentException}.
 *
 * <p>{@code in[0] % 3} picks the parser, the rest is its input (for the ACL files: the allow text, a zero byte, the
 * deny text). A plain test run replays the committed corpus under
 * {@code src/test/resources/net/fips/control/acl/OperatorTextJazzerTestInputs/operatorText/}; with
 * {@code JAZZER_FUZZ=1} Jazzer fuzzes it, see {@code benchmarks/fuzz.sh}. Seeds: {@link #writeSeeds()}.
 */
class OperatorTextJazzerTest {
    private static final String NPUB = PeerAclTest.A;
    private static final HostAliases ALIASES = HostAliases.of(Map.of("peer-x", NPUB));

    @FuzzTest
    void operatorText(final byte[] in) throws IdentityFormatException {
        if (in.length == 0) {
            return;
        }
        final byte[] rest = Arrays.copyOfRange(in, 1, in.length);
        switch ((in[0] & 0xFF) % 3) {
            case 0 -> aclFiles(rest);
            case 1 -> {
                final HostAliases.Parsed p = HostAliases.parseHostsFile(new String(rest, StandardCharsets.UTF_8));
                p.problems().forEach(m -> assertNotNull(m));
            }
            default -> {
                final String t = new String(rest, StandardCharsets.UTF_8);
                OperatorTextFuzzTest.onlyIllegalArgument("MacAddress.parse", t, MacAddress::parse);
                OperatorTextFuzzTest.onlyIllegalArgument("EthernetAddress.parse", t, EthernetAddress::parse);
                OperatorTextFuzzTest.onlyIllegalArgument("L2capFamily.parse", t, L2capFamily::parse);
                OperatorTextFuzzTest.onlyIllegalArgument("Granularity.parse", t, Granularity::parse);
                OperatorTextFuzzTest.onlyIllegalArgument("Granularity.parseWindowSeconds", t, s -> {
                    assertTrue(Granularity.parseWindowSeconds(s) >= 0, "negative window for " + s);
                });
            }
        }
    }

    private static void aclFiles(final byte[] in) throws IdentityFormatException {
        int cut = 0;
        while (cut < in.length && in[cut] != 0) {
            cut++;
        }
        final String allow;
        final String deny;
        try {
            allow = PeerAcl.decode(Arrays.copyOf(in, cut));
            deny = cut < in.length ? PeerAcl.decode(Arrays.copyOfRange(in, cut + 1, in.length)) : null;
        } catch (final CharacterCodingException e) {
            return;   // not UTF-8: the loader reports the file as unreadable before parsing
        }
        final PeerAcl.Loaded l = PeerAcl.parse(Path.of("peers.allow"), allow, Path.of("peers.deny"), deny, ALIASES);
        for (final AclProblem p : l.problems()) {
            assertTrue(p.line() >= 0 && p.message() != null, p.toString());
        }
        // a valid line last, no deny file: whatever came before, it is allowed
        final PeerAcl.Loaded good = PeerAcl.parse(Path.of("peers.allow"), allow + "\n" + NPUB + "\n",
                Path.of("peers.deny"), null, ALIASES);
        assertEquals(AclDecision.ALLOWLIST_MATCH, good.acl().decide(PeerIdentity.fromNpub(NPUB)),
                "the good last line still applies: " + good.problems());
    }

    /** Writes the seed corpus. Run once by hand when a target is added. */
    @Test
    @EnabledIfSystemProperty(named = "fips.fuzz.writeSeeds", matches = ".+")
    void writeSeeds() throws IOException {
        final Path dir = Files.createDirectories(Path.of(System.getProperty("fips.fuzz.writeSeeds"),
                "net/fips/control/acl/OperatorTextJazzerTestInputs", "operatorText"));
        final List<String> seeds = List.of(
                "\u0000" + NPUB + " # a peer\npeer-x\n\u0000ALL\n",
                "\u0001# hosts\n" + NPUB + " peer-y\nbad line\n",
                "\u0002eth0/02:00:5e:00:00:0a",
                "\u0002hci0/AA:BB:CC:DD:EE:FF/random",
                "\u000224h");
        for (int i = 0; i < seeds.size(); i++) {
            Files.write(dir.resolve("seed-" + i), seeds.get(i).getBytes(StandardCharsets.UTF_8));
        }
    }
}
