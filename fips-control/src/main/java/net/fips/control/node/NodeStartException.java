package net.fips.control.node;

/**
 * A node that could not start. {@link #isConfigProblem()} separates what the operator must fix in the configuration
 * or key files (the daemon exits with EX_CONFIG) from run-time failures such as a port already in use.
 */
public final class NodeStartException extends Exception {
    private static final long serialVersionUID = 1L;

    private final boolean configProblem;

    /**
     * @param message       what failed, naming the setting, file or address
     * @param configProblem true when the configuration or a key file is at fault
     * @param cause         the underlying failure, or null
     */
    public NodeStartException(final String message, final boolean configProblem, final Throwable cause) {
        super(message, cause);
        this.configProblem = configProblem;
    }

    /** @return true when the configuration or a key file is at fault */
    public boolean isConfigProblem() {
        return configProblem;
    }
}
