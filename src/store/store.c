/* cuzk — what every store shares (store.h). */
#include <stdlib.h>

#include <cuzk/store.h>

void cuzk_store_rec_free(cuzk_store_rec *r)
{
    if (!r) return;
    free(r->request);
    free(r->result);
    r->request = r->result = NULL;
    r->request_len = r->result_len = 0;
}

void cuzk_store_close(cuzk_store *s)
{
    if (s) s->close(s);
}
