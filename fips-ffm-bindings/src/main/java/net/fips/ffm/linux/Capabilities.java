package net.fips.ffm.linux;

/**
 * What this process can use, probed once on first access and cached. Never throws: each answer carries the
 * reason when it is "no" (for example the missing {@code --enable-native-access=net.fips.ffm} flag).
 */
public final class Capabilities {
    private Capabilities() {
    }

    /** Lazily computed so that merely loading this class never runs native code. */
    private static final class Holder {
        static final UdpOffloadProbe.Result UDP = UdpOffloadProbe.probe();
    }

    /** @return whether the errno-capturing downcalls could be built */
    public static boolean nativeAccess() {
        return Syscalls.isAvailable();
    }

    /** @return why native access is unavailable, or {@code null} */
    public static String nativeAccessProblem() {
        final Throwable t = Syscalls.unavailabilityCause();
        return t == null ? null
                : "native access unavailable (pass --enable-native-access=net.fips.ffm): " + t;
    }

    /** @return whether UDP GSO (UDP_SEGMENT) works on this kernel, as observed on loopback */
    public static boolean udpGso() {
        return Holder.UDP.gso();
    }

    /** @return what the GSO probe observed, or why it failed */
    public static String udpGsoReason() {
        return Holder.UDP.gsoReason();
    }

    /** @return whether the kernel accepts UDP_GRO */
    public static boolean udpGro() {
        return Holder.UDP.gro();
    }

    /** @return what the GRO probe observed, or why it failed */
    public static String udpGroReason() {
        return Holder.UDP.groReason();
    }

    /** @return the full probe result */
    public static UdpOffloadProbe.Result udpOffload() {
        return Holder.UDP;
    }
}
