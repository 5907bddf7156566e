/* A program built only from the installed headers and pkg-config flags. */
#include <hrx/core.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  hrx_sha256_digest_t digest;
  hrx_sha256("abc", 3, &digest);
  char hex[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_format(&digest, hex);
  hrx_status_t status = hrx_make_status(HRX_STATUS_NOT_FOUND, "probe");
  int ok = hrx_status_is(status, HRX_STATUS_NOT_FOUND) &&
           strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410"
                       "ff61f20015ad") == 0;
  hrx_status_free(status);
  printf("consumer linked against hrx-core %s: %s\n", hrx_core_version(),
         ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
