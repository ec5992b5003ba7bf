package net.fips.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import net.fips.control.identity.KeyFileException;
import net.fips.control.identity.KeyFiles;
import net.fips.control.identity.NodeIdentity;

/**
 * {@code fipsctl keygen}: a fresh identity, made locally without the daemon. Same flags as the reference:
 * writes {@code DIR/fips.key} (0600) and {@code DIR/fips.pub} (0644), refusing to overwrite without
 * {@code --force}; {@code --stdout} prints the nsec and npub instead.
 */
@Command(name = "keygen", mixinStandardHelpOptions = true,
        description = "Generate a new FIPS identity keypair.")
final class KeygenCommand implements Callable<Integer> {

    @ParentCommand
    FipsCtl root;

    @Option(names = {"-d", "--dir"}, paramLabel = "DIR", defaultValue = "/etc/fips",
            description = "Output directory for fips.key and fips.pub (default: ${DEFAULT-VALUE}).")
    Path dir;

    @Option(names = {"-f", "--force"}, description = "Overwrite existing key files.")
    boolean force;

    @Option(names = {"-s", "--stdout"}, description = "Print nsec and npub to stdout instead of writing files.")
    boolean stdout;

    @Override
    public Integer call() {
        final NodeIdentity identity = NodeIdentity.generate();
        final PrintWriter out = root.out();
        if (stdout) {
            out.println(identity.nsec());
            out.println(identity.npub());
            out.flush();
            return FipsCtl.EXIT_OK;
        }
        final Path key = dir.resolve(KeyFiles.KEY_FILE_NAME);
        final Path pub = dir.resolve(KeyFiles.PUB_FILE_NAME);
        if (Files.exists(key, LinkOption.NOFOLLOW_LINKS) && !force) {
            return root.fail("key file already exists: " + key + "\nUse --force to overwrite.");
        }
        try {
            Files.createDirectories(dir);
        } catch (final IOException e) {
            return root.fail("cannot create directory " + dir + ": " + e.getMessage());
        }
        try {
            KeyFiles.writeKeyFile(key, identity);
        } catch (final KeyFileException e) {
            return root.fail("failed to write key file: " + e.getMessage());
        }
        try {
            KeyFiles.writePubFile(pub, identity.npub());
        } catch (final KeyFileException e) {
            return root.fail("failed to write pub file: " + e.getMessage());
        }
        final PrintWriter err = root.err();
        err.println(identity.npub());
        err.println("Key files written to: " + dir + "/");
        err.println();
        err.println("NOTE: Set 'node.identity.persistent: true' in fips.yaml");
        err.println("      or these keys will be overwritten on next daemon start.");
        err.flush();
        return FipsCtl.EXIT_OK;
    }
}
