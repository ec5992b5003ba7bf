/**
 * Helpers the tests of every module share, so that each exists once: {@link net.fips.testing.Hex} (hex text and
 * known-answer vector fields), {@link net.fips.testing.Await} (poll a condition against a deadline),
 * {@link net.fips.testing.FreePorts} (a loopback port that was free a moment ago), {@link net.fips.testing.Mutate}
 * (seeded byte-level edits for the fuzz tests), {@link net.fips.testing.MessageBus} (the FIFO bus under a manual
 * clock that the in-memory mesh harnesses of fips-control run their nodes over) and
 * {@link net.fips.testing.NamespaceProbes} (what the root-only network-namespace tests share: bounded commands, the
 * root check, child JVMs driven line by line inside a namespace). Nothing here depends on a module
 * of ours; helpers that need the control plane's types (identities) live in fips-control's test tree.
 */
package net.fips.testing;
