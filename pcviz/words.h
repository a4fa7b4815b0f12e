/* SPDX-License-Identifier: GPL-2.0 */
/* The model in words, for the views (words.c). */
#ifndef PCVIZ_WORDS_H
#define PCVIZ_WORDS_H

#include <stddef.h>

struct pcv_event;
struct pcv_model;

/* The event in words, e.g. "add ino 12 pages 4-7 (f)". */
void pcv_event_words(const struct pcv_model *m, const struct pcv_event *ev, char *buf, size_t len);
/* "N files not watched: ..." with how to watch more; "" when none is left out */
void pcv_unwatched_words(const struct pcv_model *m, char *buf, size_t len);

#endif
