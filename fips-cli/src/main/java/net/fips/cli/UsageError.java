package net.fips.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Builds picocli's usage error outside {@link FipsCtl}: the bytecode verifier loads the class of every exception a
 * method throws, so a {@code throw new ParameterException} in FipsCtl itself would load picocli on
 * {@link QuickCtl}'s path too, which exists to avoid it.
 */
final class UsageError {
    private UsageError() {
    }

    /**
     * @param spec    the command whose usage was wrong
     * @param message what was wrong
     * @return the exception to throw (picocli prints it with the usage and exits {@link FipsCtl#EXIT_USAGE})
     */
    static RuntimeException of(final CommandSpec spec, final String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
