/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reorder buffer: push events as they come, pop them in timestamp order
 * once the newest event pushed is window_ns later (or all, when draining).
 * Used where a stream is ordered per CPU but not across CPUs: scx-events'
 * BPF side stages events per CPU and flushes each CPU's batch on its own.
 */
#ifndef SCX_REORDER_H
#define SCX_REORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/event.h"

struct scx_reorder;
struct scx_reorder *scx_reorder__new(uint64_t window_ns);
void scx_reorder__free(struct scx_reorder *o);
void scx_reorder__push(struct scx_reorder *o, const struct scx_event *e);
/*
 * Nothing older than ts can still arrive: lets events out when the stream
 * goes quiet (a live producer passes its clock minus its worst delay).
 */
void scx_reorder__advance(struct scx_reorder *o, uint64_t ts);
/* true with *e set to the oldest event that may go; drain: any. */
bool scx_reorder__pop(struct scx_reorder *o, struct scx_event *e, bool drain);
/* Events that arrived after a later one had already been popped. */
uint64_t scx_reorder__late(const struct scx_reorder *o);
/* Events held now. */
uint64_t scx_reorder__held(const struct scx_reorder *o);

#endif
