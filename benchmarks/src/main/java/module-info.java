/** JMH suites; built into benchmarks/target/benchmarks.jar, never run by the test suite. */
open module net.fips.benchmarks {
    requires net.fips.control;
    requires net.fips.dataplane;
    requires jmh.core;
    requires org.bouncycastle.provider;
    requires jdk.management;   // AeadCpuTime and IdleCpuProbe reads thread and process CPU time
}
