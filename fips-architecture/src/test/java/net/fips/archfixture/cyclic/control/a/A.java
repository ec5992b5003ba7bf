package net.fips.archfixture.cyclic.control.a;

import net.fips.archfixture.cyclic.control.b.B;

/** Fixture: package a uses package b, which uses a (a cycle the rule must report). */
public final class A {
    /** @return a B */
    public B b() {
        return new B();
    }
}
