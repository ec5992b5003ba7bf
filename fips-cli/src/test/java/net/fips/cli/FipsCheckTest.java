package net.fips.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import net.fips.control.config.ConfigSources;
import net.fips.control.config.HostEnvironment;
import net.fips.control.identity.KeyFiles;
import net.fips.control.identity.NodeIdentity;

/** {@code fips --check}: validates without starting anything; one OK line or every problem; exit 0 or 78. */
class FipsCheckTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    /** Runs {@code fips} in process with a host rooted in the temp dir (no real /etc/fips is read). */
    private int fips(final String... args) {
        final FipsDaemon daemon = new FipsDaemon();
        daemon.sources = new ConfigSources(new HostEnvironment(dir.resolve("root"), dir.resolve("work"), Map.of()));
        final CommandLine cl = FipsDaemon.commandLine(daemon);
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        return cl.execute(args);
    }

    private Path write(final String name, final String yaml) throws IOException {
        final Path f = dir.resolve(name);
        Files.createDirectories(f.getParent());
        Files.writeString(f, yaml);
        return f;
    }

    private List<String> outLines() {
        return out.toString().lines().toList();
    }

    @Test
    void aValidConfigPrintsOneOkLineAndStartsNothing() throws IOException {
        final NodeIdentity id = NodeIdentity.generate();
        final Path sock = dir.resolve("ctl.sock");
        final Path cfg = write("fips.yaml", "node:\n  identity: { nsec: \"" + id.nsec() + "\" }\n"
                + "  control: { socket_path: \"" + sock + "\" }\n"
                + "transports: { udp: { bind_addr: \"127.0.0.1:2121\" } }\n");
        assertEquals(FipsDaemon.EXIT_OK, fips("--check", "-c", cfg.toString()), err.toString());
        assertEquals(List.of("fips: configuration OK (" + cfg + "): identity " + id.npub()
                + " from node.identity.nsec; 1 UDP transport(s) 127.0.0.1:2121; 0 peer(s); control socket " + sock
                + "; 0 warning(s)"), outLines());
        assertEquals("", err.toString());
        assertFalse(Files.exists(sock), "no control socket was opened");
        assertFalse(Files.exists(dir.resolve(KeyFiles.KEY_FILE_NAME)), "no key file was written");
        assertFalse(Files.exists(dir.resolve(KeyFiles.PUB_FILE_NAME)), "no pub file was written");
    }

    @Test
    void everyProblemIsListedWithExConfig() throws IOException {
        final Path cfg = write("bad.yaml", "node:\n  heartbeat_interval_secs: soon\n  bogus_key: 1\n"
                + "transports:\n  udp:\n    bind_adress: \"127.0.0.1:1\"\n");
        assertEquals(FipsDaemon.EXIT_CONFIG, fips("--check", "-c", cfg.toString()));
        assertEquals("", out.toString());
        final List<String> lines = err.toString().lines().toList();
        assertEquals("fips: invalid configuration in " + cfg + ":", lines.get(0));
        assertEquals(List.of("  node.heartbeat_interval_secs: expected an integer in [0, 9223372036854775807], got"
                + " string \"soon\"", "  node.bogus_key: unknown key", "  transports.udp.bind_adress: unknown key"
                + " (did you mean bind_addr?)"), lines.subList(1, lines.size()));
    }

    @Test
    void aPersistentIdentityReadsTheKeyFileWithoutWritingAny() throws IOException {
        final Path cfg = write("etc/fips.yaml", "node: { identity: { persistent: true } }\n");
        assertEquals(FipsDaemon.EXIT_OK, fips("--check", "-c", cfg.toString()), err.toString());
        final Path key = dir.resolve("etc").resolve(KeyFiles.KEY_FILE_NAME);
        assertTrue(out.toString().contains("identity persistent, generated into " + key + " at first start"),
                out.toString());
        assertFalse(Files.exists(key), "--check must not create the key");

        final NodeIdentity id = NodeIdentity.generate();
        KeyFiles.writeKeyFile(key, id);
        out.getBuffer().setLength(0);
        assertEquals(FipsDaemon.EXIT_OK, fips("--check", "-c", cfg.toString()), err.toString());
        assertTrue(out.toString().contains("identity " + id.npub() + " from " + key), out.toString());
        assertFalse(Files.exists(dir.resolve("etc").resolve(KeyFiles.PUB_FILE_NAME)), "nor fips.pub");

        Files.writeString(key, "nsec1garbage\n");
        out.getBuffer().setLength(0);
        assertEquals(FipsDaemon.EXIT_CONFIG, fips("--check", "-c", cfg.toString()));
        assertEquals("", out.toString());
        final String e = err.toString();
        assertTrue(e.startsWith("fips: invalid configuration in " + cfg + ":\n  identity key file " + key + ": "), e);
        assertFalse(e.contains("Exception"), e);
    }

    @Test
    void warningsArePrintedAndCounted() throws IOException {
        final Path cfg = write("w.yaml", "node: { base_rtt_ms: 50, drain_timeout_secs: 3 }\n");
        assertEquals(FipsDaemon.EXIT_OK, fips("--check", "-c", cfg.toString()));
        assertEquals(List.of(
                "fips: warning: node.base_rtt_ms: accepted but not implemented (a reference v0.4.1 key); ignored",
                "fips: warning: node.drain_timeout_secs: accepted but not implemented (a reference master key);"
                        + " ignored"),
                err.toString().lines().toList());
        assertEquals(1, outLines().size());
        assertTrue(outLines().get(0).endsWith("; 2 warning(s)"), outLines().get(0));
    }

    @Test
    void withoutDashCTheSearchPathIsChecked() throws IOException {
        assertEquals(FipsDaemon.EXIT_OK, fips("--check"), err.toString());
        assertTrue(outLines().get(0).startsWith("fips: configuration OK (built-in default): identity ephemeral"),
                out.toString());
        out.getBuffer().setLength(0);
        final Path local = write("work/fips.yaml", "transports: { udp: { bind_addr: \"127.0.0.1:4000\" } }\n");
        final Path etc = write("root/etc/fips/fips.yaml", "peers: []\n");
        assertEquals(FipsDaemon.EXIT_OK, fips("--check"), err.toString());
        assertTrue(outLines().get(0).startsWith("fips: configuration OK (" + etc + " + " + local + "): "),
                out.toString());
        assertTrue(outLines().get(0).contains("127.0.0.1:4000"), out.toString());
    }

    @Test
    void versionStillWorks() {
        assertEquals(0, fips("--version"));
        assertTrue(out.toString().startsWith("fips " + Version.VERSION), out.toString());
    }
}
