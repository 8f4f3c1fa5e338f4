/* cuzk — error messages (errmsg.h). */
#include <stdarg.h>
#include <stdio.h>

#include "common/errmsg.h"

cuzk_status cuzk_errf(char *err, cuzk_status s, const char *prefix, const char *fmt, ...)
{
    if (err) {
        int k = snprintf(err, CUZK_ERRMSG_LEN, "%s", prefix);
        if (k < 0 || k >= CUZK_ERRMSG_LEN) k = 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + k, CUZK_ERRMSG_LEN - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return s;
}
