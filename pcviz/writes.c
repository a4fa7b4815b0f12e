// SPDX-License-Identifier: GPL-2.0
/*
 * The model's write-state machine: each page's write state (enum
 * pcv_wstate) as write-path events move it, and the write timeline.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "writes.h"

/*
 * Moves the pages of [index, index + n) whose state is in the mask from to
 * state to, counting; the file's first write event allocates the states.
 */
static void wmove(struct pcv_file *f, uint64_t index, uint64_t n, unsigned from,
		  enum pcv_wstate to)
{
	uint64_t limit = f->grows || f->pages > PCV_WMAX_PAGES ? PCV_WMAX_PAGES : f->pages;
	uint64_t reach, want, end;

	if (index >= limit || !n)
		return;
	reach = n < limit - index ? index + n : limit;
	/* the file's pages at once; past them (growing) doubling, as appends come one by one */
	want = f->pages < limit ? f->pages : limit;
	if (reach > want && reach > f->wpages) {
		want = f->wpages < limit / 2 ? 2 * f->wpages : limit;
		want = reach > want ? reach : want;
	}
	if (f->wpages < want) {
		uint8_t *more = realloc(f->wstate, want);

		if (!more)
			return;
		memset(more + f->wpages, PCV_W_NONE, want - f->wpages);
		f->wstate = more;
		f->wlo = f->wpages ? f->wlo : index;
		f->wpages = want;
	}
	end = n > f->wpages - index ? f->wpages : index + n;
	for (uint64_t p = index; p < end; p++) {
		enum pcv_wstate was = f->wstate[p];

		if (!(from & 1u << was) || was == to)
			continue;
		f->wstate[p] = (uint8_t)to;
		f->wcount[was]--;
		f->wcount[to]++;
		f->wto[to]++;
		f->wseen |= (uint8_t)(1u << to);
	}
	if (to != PCV_W_NONE && end > index) {
		f->wlo = index < f->wlo ? index : f->wlo;
		f->whi = end > f->whi ? end : f->whi;
	}
}

#define W_ANY ((1u << PCV_W_N) - 1)
#define W_BUT(s) (W_ANY & ~(1u << (s)))

void pcv_write_event(struct pcv_file *f, const struct pcv_event *ev)
{
	uint64_t pages = ev->nr_pages ? ev->nr_pages : 1;
	unsigned from;

	switch (ev->kind) {
	case PCV_EV_DIRTY:
		wmove(f, ev->index, 1, W_BUT(PCV_W_DIRTY), PCV_W_DIRTY);
		break;
	case PCV_EV_DB_MARK:
	case PCV_EV_DB_SERVE:
		if (ev->arg[0])	/* an uncached write: the folio is dirtied */
			wmove(f, ev->index, pages, W_BUT(PCV_W_DIRTY), PCV_W_DIRTY);
		break;
	case PCV_EV_WB_START:
		wmove(f, f->wlo, f->whi - f->wlo, 1u << PCV_W_DIRTY, PCV_W_WRITEBACK);
		break;
	case PCV_EV_WB_END:
		wmove(f, f->wlo, f->whi - f->wlo, 1u << PCV_W_WRITEBACK, PCV_W_CLEAN);
		break;
	case PCV_EV_DB_END:
		if (ev->arg[0] == PCV_DB_READ || ev->arg[1] >= PCV_DB_NRESULT ||
		    ev->arg[1] == PCV_DB_WRITEBACK)
			break;
		/*
		 * after its writeback: clean, then dropped, kept, or dirty again;
		 * at the last close (the end of the file a writer kept) it was
		 * written back already, or is dirty still: no writeback ends here
		 */
		from = 1u << PCV_W_CLEAN;
		if (ev->arg[0] == PCV_DB_CLOSE)
			from = W_ANY;
		else
			wmove(f, ev->index, pages, W_BUT(PCV_W_CLEAN), PCV_W_CLEAN);
		if (ev->arg[1] == PCV_DB_DIRTY) {
			wmove(f, ev->index, pages, from, PCV_W_DIRTY);
		} else if (ev->arg[1] == PCV_DB_DROPPED || ev->arg[1] == PCV_DB_GONE) {
			wmove(f, ev->index, pages, from, PCV_W_DROPPED);
		} else {
			uint64_t before = f->wto[PCV_W_KEPT];

			wmove(f, ev->index, pages, from, PCV_W_KEPT);
			f->wkept[ev->arg[1]] += f->wto[PCV_W_KEPT] - before;
		}
		break;
	default:
		break;
	}
}

unsigned pcv_file_wmask(const struct pcv_model *m, const struct pcv_file *f, uint64_t i)
{
	if (i >= m->ticks || i >= PCV_WHIST)
		return 0;
	return f->whist[(m->ticks - 1 - i) % PCV_WHIST];
}

void pcv_file_wtick(struct pcv_file *f, uint64_t tick)
{
	unsigned now_in = 0;

	/* the states pages were in or went through */
	for (int w = PCV_W_DIRTY; w < PCV_W_N; w++)
		now_in |= f->wcount[w] ? 1u << w : 0;
	f->whist[tick % PCV_WHIST] = (uint8_t)(f->wseen | now_in);
	f->wseen = 0;
}
