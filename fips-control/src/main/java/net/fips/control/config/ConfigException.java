package net.fips.control.config;

import java.util.List;
import java.util.Objects;

/**
 * A configuration that cannot be used: every problem found in one pass, one line each, so an operator fixes them
 * all at once instead of restarting once per typo. A line reads {@code <path>: <what is wrong>}, for example
 * {@code transports.udp.bind_adress: unknown key (did you mean bind_addr?)}.
 */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String source;
    private final transient List<String> problems;

    /**
     * @param source   what was being read (a file path, {@code <embedded default>}, {@code environment}, ...)
     * @param problems the problems, at least one
     */
    public ConfigException(final String source, final List<String> problems) {
        super(render(source, problems));
        this.source = Objects.requireNonNull(source, "source");
        this.problems = List.copyOf(problems);
        if (this.problems.isEmpty()) {
            throw new IllegalArgumentException("a ConfigException needs at least one problem");
        }
    }

    /**
     * @param source  what was being read
     * @param problem the one problem
     */
    public ConfigException(final String source, final String problem) {
        this(source, List.of(problem));
    }

    /** @return what was being read */
    public String source() {
        return source;
    }

    /** @return the problems, one line each, in the order found */
    public List<String> problems() {
        return problems;
    }

    private static String render(final String source, final List<String> problems) {
        final StringBuilder sb = new StringBuilder("invalid configuration in ").append(source).append(':');
        for (final String p : problems) {
            sb.append("\n  ").append(p);
        }
        return sb.toString();
    }
}
