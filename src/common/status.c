#include <cuzk/status.h>

const char *cuzk_strerror(cuzk_status s)
{
    switch (s) {
    case CUZK_OK: return "ok";
    case CUZK_ERR_BAD_ENCODING: return "bad encoding (flag bits or length)";
    case CUZK_ERR_NOT_CANONICAL: return "field element is not canonical (>= modulus)";
    case CUZK_ERR_NOT_ON_CURVE: return "point is not on the curve";
    case CUZK_ERR_NOT_IN_SUBGROUP: return "point is not in the prime-order subgroup";
    case CUZK_ERR_NO_SQRT: return "x coordinate has no point on the curve";
    case CUZK_ERR_TRUNCATED: return "input is truncated";
    case CUZK_ERR_UNSATISFIED: return "witness does not satisfy the constraints";
    case CUZK_ERR_PROOF_INVALID: return "proof is invalid";
    case CUZK_ERR_NO_MEMORY: return "out of memory";
    case CUZK_ERR_IO: return "input/output error";
    case CUZK_ERR_CUDA: return "CUDA error";
    case CUZK_ERR_NO_DEVICE: return "no GPU device";
    case CUZK_ERR_INVALID_ARGUMENT: return "invalid argument";
    case CUZK_ERR_CANCELED: return "canceled";
    }
    return "unknown status";
}
