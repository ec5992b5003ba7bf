package net.fips.archfixture.layered.testing;

/** Fixture: a test helper that uses no module and that no main class uses (allowed). */
public final class Helper {
    /** @return a constant */
    public int value() {
        return 1;
    }
}
