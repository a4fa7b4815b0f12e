/* SPDX-License-Identifier: GPL-2.0 */
/* Batch output: one CSV line (after a header) or one JSON object per interval. */
#ifndef PCVIZ_OUTPUT_H
#define PCVIZ_OUTPUT_H

#include <stdio.h>

#include "model.h"
/* the model in words too (the event log, the files left out): the text output's users print both */
#include "words.h"

/* The header of the lines pcv_csv_line() writes for models like this one */
void pcv_csv_header(FILE *out, const struct pcv_model *like);
void pcv_csv_line(FILE *out, const struct pcv_model *m);
void pcv_json_line(FILE *out, const struct pcv_model *m);

#endif
