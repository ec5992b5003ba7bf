package net.fips.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import net.fips.control.config.ConfigException;
import net.fips.control.config.ConfigSources;
import net.fips.control.config.FipsConfig;
import net.fips.control.config.LoadedConfig;
import net.fips.control.config.NodeConfig;
import net.fips.control.config.UdpConfig;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.KeyFileException;
import net.fips.control.identity.KeyFiles;
import net.fips.control.identity.NodeIdentity;

/**
 * {@code fips --check}: loads the configuration as the daemon would and, for a persistent identity, reads the key
 * file, without opening a socket, creating a file or starting a thread. Prints every warning and then one
 * {@code configuration OK} summary line, or every problem; exit 0 or {@value FipsDaemon#EXIT_CONFIG}.
 */
final class ConfigCheck {
    private ConfigCheck() {
    }

    /**
     * @param sources where the configuration comes from
     * @param file    the {@code -c} file, or empty for the search path
     * @param out     gets the summary line
     * @param err     gets warnings and problems
     * @return the exit status
     */
    static int run(final ConfigSources sources, final Optional<Path> file, final PrintWriter out,
                   final PrintWriter err) {
        final LoadedConfig loaded;
        try {
            loaded = sources.load(file);
        } catch (final ConfigException e) {
            FipsDaemon.printConfigProblems(err, e);
            return FipsDaemon.EXIT_CONFIG;
        }
        final List<String> problems = new ArrayList<>();
        final List<String> notes = new ArrayList<>(loaded.warnings());
        final String identity = identity(loaded, problems, notes);
        for (final String w : notes) {
            err.println("fips: warning: " + w);
        }
        if (!problems.isEmpty()) {
            err.println("fips: invalid configuration in " + source(loaded) + ":");
            problems.forEach(p -> err.println("  " + p));
            err.flush();
            return FipsDaemon.EXIT_CONFIG;
        }
        final FipsConfig c = loaded.config();
        final List<String> binds = c.udp().stream().map(UdpConfig::effectiveBindAddr).toList();
        final NodeConfig.Control ctl = c.node().control();
        out.println("fips: configuration OK (" + source(loaded) + "): identity " + identity + "; "
                + c.udp().size() + " UDP transport(s)" + (binds.isEmpty() ? "" : " " + String.join(", ", binds))
                + "; " + c.peers().size() + " peer(s); control socket "
                + (ctl.enabled() ? ctl.socketPath() : "disabled") + "; " + notes.size() + " warning(s)");
        out.flush();
        err.flush();
        return FipsDaemon.EXIT_OK;
    }

    private static String source(final LoadedConfig loaded) {
        return loaded.files().isEmpty() ? "built-in default"
                : String.join(" + ", loaded.files().stream().map(Path::toString).toList());
    }

    /** @return how the identity will be found, reading (never writing) the key file of a persistent identity */
    private static String identity(final LoadedConfig loaded, final List<String> problems, final List<String> notes) {
        final NodeConfig.Identity id = loaded.config().node().identity();
        if (id.nsec().isPresent()) {
            try {
                return NodeIdentity.parse(id.nsec().get()).npub() + " from node.identity.nsec";
            } catch (final IdentityFormatException e) {
                // The loader has already checked it; this is only reached if the two disagree.
                problems.add("node.identity.nsec: " + e.getMessage());
                return "";
            }
        }
        if (!id.persistent()) {
            return "ephemeral (new every start)";
        }
        final Path dir = KeyFiles.directoryFor(loaded.files());
        final Path key = dir.resolve(KeyFiles.KEY_FILE_NAME);
        if (Files.exists(key)) {
            try {
                return KeyFiles.readKeyFile(key).npub() + " from " + key;
            } catch (final KeyFileException e) {
                problems.add("identity " + e.getMessage());
                return "";
            }
        }
        final Path existing = Files.isDirectory(dir) ? dir : null;
        if (existing != null && !Files.isWritable(existing)) {
            notes.add("identity: " + key + " does not exist and " + dir + " is not writable; the daemon would run"
                    + " with an ephemeral identity");
        }
        return "persistent, generated into " + key + " at first start";
    }
}
