package net.fips.cli;

import picocli.CommandLine.IVersionProvider;

/** Version string shared by {@code fips} and {@code fipsctl}. */
public final class Version implements IVersionProvider {
    /** This build's version; the reference version it is wire-compatible with follows in {@link #getVersion()}. */
    public static final String VERSION = "0.1.0-SNAPSHOT";

    @Override
    public String[] getVersion() {
        return new String[] {"fips " + VERSION + " (Java " + Runtime.version() + "; wire-compatible with FIPS v0.4.1)"};
    }
}
