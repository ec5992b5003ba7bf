package net.fips.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code fips} daemon entry point. */
@Command(name = "fips", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Run a FIPS mesh node.")
public final class FipsDaemon implements Callable<Integer> {

    @Override
    public Integer call() {
        System.out.println("fips " + Version.VERSION);
        return 0;
    }

    /**
     * @param args command-line arguments
     */
    public static void main(final String[] args) {
        System.exit(new CommandLine(new FipsDaemon()).execute(args));
    }
}
