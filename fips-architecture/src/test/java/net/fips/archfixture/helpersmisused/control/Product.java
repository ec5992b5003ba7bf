package net.fips.archfixture.helpersmisused.control;

import net.fips.archfixture.helpersmisused.testing.Helper;

/** Fixture: a main class that uses a test helper (forbidden). */
public final class Product {
    /** @return whether the helper is there */
    public boolean hasHelper(final Helper helper) {
        return helper != null;
    }
}
