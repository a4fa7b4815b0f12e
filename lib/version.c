// SPDX-License-Identifier: GPL-2.0
/*
 * The version the programs print (see pclab/cli.h): PCLAB_VERSION comes
 * from the Makefile, which takes it from scripts/version.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>

#include "pclab/cli.h"

#ifndef PCLAB_VERSION
#error "PCLAB_VERSION is not defined: build with the Makefile (it passes scripts/version's)"
#endif

void pclab_print_version(void)
{
	printf("%s (pclab) %s\n", program_invocation_short_name, PCLAB_VERSION);
}
