/* Counting allocations in a test binary: the test links with
 *   target_link_options(test_x PRIVATE "LINKER:--wrap=malloc,--wrap=calloc,--wrap=realloc")
 * so every malloc, calloc and realloc from the test and from libcuzk.a comes
 * here first (calls inside the C library itself do not). Include this in the
 * one source file of such a test. */
#ifndef CUZK_TEST_ALLOC_COUNT_H
#define CUZK_TEST_ALLOC_COUNT_H

#include <stdatomic.h>
#include <stdlib.h>

static atomic_size_t allocs;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

void *__wrap_malloc(size_t n)
{
    atomic_fetch_add(&allocs, 1);
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    atomic_fetch_add(&allocs, 1);
    return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
    atomic_fetch_add(&allocs, 1);
    return __real_realloc(p, n);
}

/* Whether the wrapping is in effect (a build without the link options, or
 * a sanitizer runtime that takes malloc first, would leave it out): one
 * counted malloc. The volatile keeps the pair from being optimised away. */
static int allocs_counted(void)
{
    size_t before = atomic_load(&allocs);
    void *volatile p = malloc(16);
    free(p);
    return atomic_load(&allocs) != before;
}

#endif /* CUZK_TEST_ALLOC_COUNT_H */
