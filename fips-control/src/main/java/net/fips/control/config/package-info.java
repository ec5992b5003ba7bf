/**
 * {@code fips.yaml}: strict SnakeYAML loading into immutable records with the reference v0.4.1 defaults
 * (operator.md §1), the search path and environment variables ({@link net.fips.control.config.ConfigSources}),
 * and the control socket path resolution ({@link net.fips.control.config.ControlSocketPaths}).
 */
package net.fips.control.config;
