package net.fips.archfixture.helpersmisused.testing;

import net.fips.archfixture.helpersmisused.control.Product;

/** Fixture: a test helper that uses a module's class (forbidden). */
public final class Helper {
    /** @return a module's object */
    public Product product() {
        return new Product();
    }
}
