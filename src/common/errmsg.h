/* cuzk — error messages into a caller's `err` buffer (internal).
 *
 * Library functions that can fail on input take `char *err` (NULL or
 * CUZK_ERRMSG_LEN bytes, status.h) and return a cuzk_status; each layer
 * prefixes its messages ("pce: ", "key: ", ...). One function writes them
 * all; the layers name it through their own macros. */
#ifndef CUZK_COMMON_ERRMSG_H
#define CUZK_COMMON_ERRMSG_H

#include <cuzk/status.h>

/* Writes prefix and the printf-formatted message to err (if not NULL),
 * truncated to CUZK_ERRMSG_LEN bytes, and returns s. */
cuzk_status cuzk_errf(char *err, cuzk_status s, const char *prefix, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif /* CUZK_COMMON_ERRMSG_H */
