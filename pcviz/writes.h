/* SPDX-License-Identifier: GPL-2.0 */
/* The model's write-state machine and write timeline (writes.c). */
#ifndef PCVIZ_WRITES_H
#define PCVIZ_WRITES_H

#include <stdint.h>

struct pcv_event;
struct pcv_file;
struct pcv_model;

/* An event of the write path, for the dispatcher: the pages' write state (enum pcv_wstate). */
void pcv_write_event(struct pcv_file *f, const struct pcv_event *ev);
/* Ends interval tick of the file's write timeline, for pcv_model_tick(). */
void pcv_file_wtick(struct pcv_file *f, uint64_t tick);
/* The write state of interval i of a file's timeline (0 = latest), as a mask of 1 << state. */
unsigned pcv_file_wmask(const struct pcv_model *m, const struct pcv_file *f, uint64_t i);

#endif
