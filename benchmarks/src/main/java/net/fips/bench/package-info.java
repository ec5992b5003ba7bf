/** JMH benchmarks. Run with {@code benchmarks/run.sh}; results go to docs/benchmarks.md. */
package net.fips.bench;
