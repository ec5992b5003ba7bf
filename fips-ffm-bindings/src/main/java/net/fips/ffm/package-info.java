/**
 * Hand-written wrappers over the generated bindings. Hot-path calls return {@code -errno}; control-path calls
 * throw {@link net.fips.ffm.ErrnoException} naming the system call and the kernel's reason.
 */
package net.fips.ffm;
