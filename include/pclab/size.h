/* SPDX-License-Identifier: GPL-2.0 */
/* Byte counts given on a command line. */
#ifndef PCLAB_SIZE_H
#define PCLAB_SIZE_H

#include <stdbool.h>

/*
 * A byte count with an optional K, M or G suffix (powers of 1024, either
 * case) into *v; false if arg is not one: garbage, a sign, white space,
 * or more than fits in a long long once the suffix is applied.  *v is
 * unspecified after a false return.
 */
bool pclab_parse_size(const char *arg, long long *v);

#endif
