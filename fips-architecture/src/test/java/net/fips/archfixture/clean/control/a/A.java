package net.fips.archfixture.clean.control.a;

import net.fips.archfixture.clean.control.b.B;

/** Fixture: package a uses package b, one way only. */
public final class A {
    /** @return a B */
    public B b() {
        return new B();
    }
}
