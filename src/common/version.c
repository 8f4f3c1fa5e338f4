#include <cuzk/status.h>

/* CUZK_VERSION comes from CMake; CUZK_COMMIT from the header it generates
 * at every build. Builds outside CMake (fuzz/run.sh) have neither. */
#if defined(__has_include)
#if __has_include("cuzk_commit.h")
#include "cuzk_commit.h"
#endif
#endif
#ifndef CUZK_COMMIT
#define CUZK_COMMIT "unknown"
#endif
#ifndef CUZK_VERSION
#define CUZK_VERSION "unknown"
#endif

const char *cuzk_version(void)
{
    return CUZK_VERSION " (" CUZK_COMMIT ")";
}
