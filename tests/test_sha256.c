/* test_sha256.c: sha256_hex against the NIST known answers (FIPS 180-4
 * examples, and the digest of the empty message). */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <string.h>

#include "sha256.h"

static void assert_sha256(const char *msg, const char *want)
{
    char hex[65];
    sha256_hex(msg, strlen(msg), hex);
    assert_string_equal(hex, want);
}

static void test_sha256_of_abc(void **state)
{
    (void)state;
    assert_sha256("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_sha256_of_the_448_bit_message(void **state)
{
    (void)state;
    assert_sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_sha256_of_the_empty_string(void **state)
{
    (void)state;
    assert_sha256("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_of_abc),
        cmocka_unit_test(test_sha256_of_the_448_bit_message),
        cmocka_unit_test(test_sha256_of_the_empty_string),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
