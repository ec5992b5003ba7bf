/*
 * C baseline for the AEAD benchmark: the same per-packet EVP steps as the Java libcrypto engine
 * (net.fips.ffm.openssl.ChaCha20Poly1305), timed over many iterations, so the FFM overhead can be read off.
 *
 * One EVP_CIPHER_CTX bound to ChaCha20-Poly1305 once; per packet:
 *   seal: new nonce (4 zero bytes || u64 LE counter), EncryptInit_ex(key, nonce), AAD update (16 bytes),
 *         update in place, EncryptFinal_ex, GET_TAG written after the ciphertext.
 *   open: memcpy a sealed packet into the work buffer (as the JMH open benchmark does), DecryptInit_ex,
 *         AAD update, update in place, SET_TAG, DecryptFinal_ex (must succeed).
 *
 * Build: gcc -O2 -o aead_baseline aead_baseline.c -lcrypto
 * Usage: aead_baseline [seconds-per-round [size ...]]   (default 1 s; sizes 64 512 1400 8192; one warm-up round,
 *        then 3 measured rounds averaged)
 */
#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define AAD_LEN 16
#define TAG_LEN 16
#define ROUNDS 3

static EVP_CIPHER_CTX *ctx;
static unsigned char key[32], nonce[12], open_nonce[12], aad[AAD_LEN];
static unsigned char buf[8192 + TAG_LEN], sealed[8192 + TAG_LEN];
static uint64_t counter;

static void die(const char *what) {
    fprintf(stderr, "aead_baseline: %s failed\n", what);
    exit(1);
}

static double clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double now_ns(void) {
    return clock_ns(CLOCK_MONOTONIC);
}

/* This thread's CPU time: unlike wall time it does not grow while other processes hold the CPU. */
static double cpu_ns(void) {
    return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static void fips_nonce(unsigned char *n, uint64_t c) {
    memset(n, 0, 4);
    for (int i = 0; i < 8; i++) n[4 + i] = (unsigned char) (c >> (8 * i));
}

static void seal(unsigned char *p, int len, const unsigned char *iv) {
    int outl;
    if (EVP_EncryptInit_ex(ctx, NULL, NULL, key, iv) != 1) die("EVP_EncryptInit_ex");
    if (EVP_EncryptUpdate(ctx, NULL, &outl, aad, AAD_LEN) != 1) die("AAD update");
    if (len > 0 && EVP_EncryptUpdate(ctx, p, &outl, p, len) != 1) die("EVP_EncryptUpdate");
    if (EVP_EncryptFinal_ex(ctx, p + len, &outl) != 1) die("EVP_EncryptFinal_ex");
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, TAG_LEN, p + len) != 1) die("GET_TAG");
}

static int open_packet(unsigned char *p, int len) {
    int outl;
    memcpy(p, sealed, len + TAG_LEN);
    if (EVP_DecryptInit_ex(ctx, NULL, NULL, key, open_nonce) != 1) die("EVP_DecryptInit_ex");
    if (EVP_DecryptUpdate(ctx, NULL, &outl, aad, AAD_LEN) != 1) die("AAD update");
    if (len > 0 && EVP_DecryptUpdate(ctx, p, &outl, p, len) != 1) die("EVP_DecryptUpdate");
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAG_LEN, p + len) != 1) die("SET_TAG");
    return EVP_DecryptFinal_ex(ctx, p + len, &outl) > 0 ? len : -1;
}

/* Runs `op` in batches until `seconds` have passed; returns wall ns per op, and CPU ns per op in *cpu. */
static double timed(int is_seal, int len, double seconds, double *cpu) {
    const int batch = 1000;
    long ops = 0;
    long checksum = 0;
    double cpu0 = cpu_ns();
    double start = now_ns(), end = start + seconds * 1e9, t;
    do {
        for (int i = 0; i < batch; i++) {
            if (is_seal) {
                fips_nonce(nonce, ++counter);
                seal(buf, len, nonce);
            } else {
                checksum += open_packet(buf, len);
            }
        }
        ops += batch;
    } while ((t = now_ns()) < end);
    if (!is_seal && checksum != (long) len * ops) die("open (tag did not verify)");
    *cpu = (cpu_ns() - cpu0) / ops;
    return (t - start) / ops;
}

int main(int argc, char **argv) {
    int sizes[16] = {64, 512, 1400, 8192};
    int nsizes = 4;
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    if (argc > 2) {
        nsizes = 0;
        for (int i = 2; i < argc && nsizes < 16; i++) {
            int n = atoi(argv[i]);
            if (n < 0 || n > 8192) die("size argument (0..8192)");
            sizes[nsizes++] = n;
        }
    }

    for (int i = 0; i < 32; i++) key[i] = (unsigned char) (i * 7 + 1);
    for (int i = 0; i < AAD_LEN; i++) aad[i] = (unsigned char) (i * 13 + 5);
    ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL) die("EVP_CIPHER_CTX_new");
    /* Bind the cipher once; per-packet inits pass NULL so OpenSSL 3 does not re-fetch it. */
    if (EVP_EncryptInit_ex(ctx, EVP_chacha20_poly1305(), NULL, NULL, NULL) != 1) die("bind cipher");
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL) != 1) die("SET_IVLEN");

    printf("# %s, %d measured rounds of %.1f s after one warm-up round\n", OpenSSL_version(OPENSSL_VERSION),
           ROUNDS, seconds);
    printf("%-6s %14s %14s %14s %14s\n", "size", "seal wall ns", "seal cpu ns", "open wall ns", "open cpu ns");
    for (int s = 0; s < nsizes; s++) {
        int len = sizes[s];
        for (int i = 0; i < len; i++) sealed[i] = (unsigned char) (i * 31 + len);
        fips_nonce(open_nonce, UINT64_MAX);
        seal(sealed, len, open_nonce);
        double wall[2] = {0, 0}, cpu[2] = {0, 0}, c;
        for (int op = 0; op < 2; op++) {
            timed(op == 0, len, seconds, &c);
            for (int k = 0; k < ROUNDS; k++) {
                wall[op] += timed(op == 0, len, seconds, &c) / ROUNDS;
                cpu[op] += c / ROUNDS;
            }
        }
        printf("%-6d %14.1f %14.1f %14.1f %14.1f\n", len, wall[0], cpu[0], wall[1], cpu[1]);
    }
    EVP_CIPHER_CTX_free(ctx);
    return 0;
}
