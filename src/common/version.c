#include <cuzk/status.h>

#include "cuzk_commit.h" /* generated: CUZK_COMMIT */

const char *cuzk_version(void)
{
    return CUZK_VERSION " (" CUZK_COMMIT ")";
}
