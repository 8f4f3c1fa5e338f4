/* cuzk — status codes shared by every layer.
 *
 * One enum for the whole library. Data errors (a bad file, a point off the
 * curve), resource errors (memory, CUDA, I/O) and misuse (a bad argument) are
 * kept apart so callers can decide what is the user's fault and what is not.
 */
#ifndef CUZK_STATUS_H
#define CUZK_STATUS_H

typedef enum {
    CUZK_OK = 0,

    /* Data errors: the input is well-formed enough to read but wrong. */
    CUZK_ERR_BAD_ENCODING = 1,   /* flag bits or lengths that no encoding allows */
    CUZK_ERR_NOT_CANONICAL = 2,  /* a field element >= its modulus */
    CUZK_ERR_NOT_ON_CURVE = 3,   /* coordinates fail the curve equation */
    CUZK_ERR_NOT_IN_SUBGROUP = 4,/* on the curve, but not in the r-torsion */
    CUZK_ERR_NO_SQRT = 5,        /* compressed x has no y on the curve */
    CUZK_ERR_TRUNCATED = 6,      /* the input ends early */
    CUZK_ERR_UNSATISFIED = 7,    /* a witness does not satisfy the constraints */
    CUZK_ERR_PROOF_INVALID = 8,  /* a well-formed proof that does not verify */

    /* Resource errors. */
    CUZK_ERR_NO_MEMORY = 32,
    CUZK_ERR_IO = 33,
    CUZK_ERR_CUDA = 34,
    CUZK_ERR_NO_DEVICE = 35,

    /* Misuse: the caller broke a documented precondition. */
    CUZK_ERR_INVALID_ARGUMENT = 64,

    /* Not an error of the input: the caller asked the work to stop (a
     * progress callback of prove.h said so) and it stopped cleanly. */
    CUZK_ERR_CANCELED = 96
} cuzk_status;

/* The one error channel: a function that can fail on input returns a
 * cuzk_status and, when the caller passes `char *err` (NULL, or a buffer of
 * CUZK_ERRMSG_LEN bytes), writes there one line saying what is wrong and
 * where, prefixed by its layer ("zkey: ...", "gpu: ..."); on success err[0]
 * is 0. */
#define CUZK_ERRMSG_LEN 256

/* A short, static, human-readable description of s. Never NULL. */
const char *cuzk_strerror(cuzk_status s);

/* "VERSION (COMMIT)": the library's version and the commit it was built
 * from (git describe: "-dirty" when the tree had uncommitted changes,
 * "unknown" when built outside a git checkout). Static, never NULL. */
const char *cuzk_version(void);

#endif /* CUZK_STATUS_H */
