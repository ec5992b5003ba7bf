package net.fips.control.dns;

import static net.fips.control.dns.DnsTestSupport.NPUB_A;
import static net.fips.control.dns.DnsTestSupport.NPUB_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import net.fips.control.acl.AclProblem;
import net.fips.control.acl.HostAliases;

class HostsFileTest {
    @TempDir
    Path dir;

    @Test
    void loadsValidLinesAndReportsBadOnesWithLineNumbers() throws Exception {
        final Path f = dir.resolve("hosts");
        Files.writeString(f, "# comment\n\ngateway " + NPUB_A + "\nbad line with fields\n-bad " + NPUB_A
                + "\nnode2 npub1nonsense\nGateway " + NPUB_B + "\n");
        final HostsFile h = new HostsFile(f, HostAliases.EMPTY);
        assertEquals(Map.of("gateway", NPUB_B), h.aliases().asMap(), "a later line wins");
        assertEquals(List.of(4, 5, 6), h.problems().stream().map(AclProblem::line).toList());
        assertTrue(h.problems().stream().allMatch(p -> p.file().equals(f)));
    }

    @Test
    void reloadsWhenTheFileChanges() throws Exception {
        final Path f = dir.resolve("hosts");
        Files.writeString(f, "gateway " + NPUB_A + "\n");
        Files.setLastModifiedTime(f, FileTime.fromMillis(1_000_000));
        final HostsFile h = new HostsFile(f, HostAliases.EMPTY);
        final FipsNameResolver resolver = FipsNameResolver.hostsThenNpub(h::aliases);
        assertEquals(HostsFile.Outcome.UNCHANGED, h.poll().outcome());
        assertEquals(null, resolver.resolve("server2.fips"));

        Files.writeString(f, "gateway " + NPUB_A + "\nserver2 " + NPUB_B + "\nbroken\n");
        Files.setLastModifiedTime(f, FileTime.fromMillis(2_000_000));
        final HostsFile.PollResult p = h.poll();
        assertEquals(HostsFile.Outcome.RELOADED, p.outcome());
        assertEquals(List.of(3), p.problems().stream().map(AclProblem::line).toList());
        assertEquals(DnsTestSupport.peer(NPUB_B), resolver.resolve("server2.fips"));
        assertEquals(HostsFile.Outcome.UNCHANGED, h.poll().outcome());

        // same mtime, different size still reloads
        Files.writeString(f, "server2 " + NPUB_B + "\n");
        Files.setLastModifiedTime(f, FileTime.fromMillis(2_000_000));
        assertEquals(HostsFile.Outcome.RELOADED, h.poll().outcome());
        assertEquals(null, resolver.resolve("gateway.fips"));
    }

    @Test
    void fileOverlaysYamlAliasesAndVanishingFallsBackToThem() throws Exception {
        final Path f = dir.resolve("hosts");
        final HostAliases yaml = HostAliases.of(Map.of("gateway", NPUB_A, "core", NPUB_A));
        final HostsFile missing = new HostsFile(f, yaml);
        assertEquals(yaml, missing.aliases());
        assertTrue(missing.problems().isEmpty(), "a missing file is fine");

        Files.writeString(f, "gateway " + NPUB_B + "\n");
        assertEquals(HostsFile.Outcome.RELOADED, missing.poll().outcome());
        assertEquals(Optional.of(NPUB_B), missing.aliases().lookupNpub("GATEWAY"), "the file wins");
        assertEquals(Optional.of(NPUB_A), missing.aliases().lookupNpub("core"));

        Files.delete(f);
        assertEquals(HostsFile.Outcome.RELOADED, missing.poll().outcome());
        assertEquals(yaml, missing.aliases());
    }

    @Test
    void unreadableFileIsAnEmptyOverlayAndAProblem() throws Exception {
        final Path f = dir.resolve("hosts");
        Files.write(f, new byte[] {'a', ' ', (byte) 0xff, '\n'});
        final HostsFile h = new HostsFile(f, HostAliases.EMPTY);
        assertEquals(0, h.aliases().size());
        assertEquals(1, h.problems().size());
        assertEquals(0, h.problems().getFirst().line());
        assertEquals(AclProblem.Severity.ERROR, h.problems().getFirst().severity());
    }
}
