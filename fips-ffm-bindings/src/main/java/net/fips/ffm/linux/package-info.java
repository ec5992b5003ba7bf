/**
 * Hand-written Linux wrappers with Java names over the generated bindings in {@code net.fips.ffm.linux.gen}:
 * errno-capturing {@link net.fips.ffm.linux.Syscalls}, the {@code CMSG_*} macros ({@link net.fips.ffm.linux.Cmsg}),
 * the sockaddr codec, preallocated {@code mmsghdr}/{@code pollfd}/{@code epoll_event} arrays and the
 * {@link net.fips.ffm.linux.Capabilities} probe.
 */
package net.fips.ffm.linux;
