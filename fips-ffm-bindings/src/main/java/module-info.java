/**
 * Native access for the FIPS node: jextract-generated bindings (packages {@code net.fips.ffm.linux.gen},
 * {@code net.fips.ffm.openssl.gen}, {@code net.fips.ffm.boringssl.gen}, {@code net.fips.ffm.secp256k1.gen}) and the
 * thin hand-written wrappers around them. This is the only module that is granted native access ({@code --enable-native-access=net.fips.ffm}); it
 * knows nothing of FIPS.
 */
module net.fips.ffm {
    exports net.fips.ffm;
    exports net.fips.ffm.boringssl;
    exports net.fips.ffm.linux;
    exports net.fips.ffm.openssl;
    exports net.fips.ffm.secp256k1;
}
