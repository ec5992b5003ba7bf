/**
 * The peer access control list: {@code peers.allow} / {@code peers.deny} with npubs, host aliases and the
 * {@code ALL} wildcard, evaluated allow-first as in the reference (operator.md §4.3), reloaded from the control
 * thread's tick by {@link net.fips.control.acl.AclWatcher}, and shown by {@code show_acl}.
 */
package net.fips.control.acl;
