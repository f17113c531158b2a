// SPDX-License-Identifier: GPL-2.0
/* Program runs the kernel skipped (see bpf_missed.h). */
#include <stddef.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture/bpf_missed.h"
#include "core/util.h"
#include "json/json.h"

/*
 * The start of struct bpf_link_info for a perf-event link to a kprobe, as
 * the UAPI of Linux 6.7 on has it: the build's headers may be older.  A
 * kernel whose struct is shorter takes the zeroed tail and fills its own
 * part only, so perf_type stays 0 there.
 */
struct kprobe_link_info {
	__u32 type, id, prog_id, _pad0;
	__u32 perf_type, _pad1; /* enum bpf_perf_event_type */
	__u64 func_name;
	__u32 name_len, offset;
	__u64 addr, missed, cookie;
};
_Static_assert(offsetof(struct kprobe_link_info, missed) == 48, "bpf_link_info layout");

#define LINK_TYPE_PERF_EVENT 7 /* BPF_LINK_TYPE_PERF_EVENT */
#define PERF_EVENT_KPROBE 3    /* BPF_PERF_EVENT_KPROBE */
#define PERF_EVENT_KRETPROBE 4 /* BPF_PERF_EVENT_KRETPROBE */

uint64_t scx_bpf_prog_missed(int prog_fd)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (prog_fd < 0 || bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return 0;
	return info.recursion_misses;
}

uint64_t scx_bpf_link_missed(int link_fd)
{
	struct kprobe_link_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (link_fd < 0 || bpf_obj_get_info_by_fd(link_fd, &info, &len))
		return 0;
	if (info.type != LINK_TYPE_PERF_EVENT ||
	    (info.perf_type != PERF_EVENT_KPROBE && info.perf_type != PERF_EVENT_KRETPROBE))
		return 0;
	return info.missed;
}

uint64_t scx_bpf_missed(const struct bpf_object *obj, struct bpf_link *const *links, size_t nr)
{
	struct bpf_program *p;
	uint64_t n = 0;

	bpf_object__for_each_program(p, obj) n += scx_bpf_prog_missed(bpf_program__fd(p));
	for (size_t i = 0; i < nr; i++)
		if (links[i])
			n += scx_bpf_link_missed(bpf_link__fd(links[i]));
	return n;
}

void scx_missed_feed__init(struct scx_missed_feed *f, uint64_t now_ns)
{
	f->total = 0;
	f->since_ns = now_ns;
}

bool scx_missed_feed__next(struct scx_missed_feed *f, uint64_t total, uint64_t now_ns,
			   struct scx_buf *b)
{
	struct scx_jw w;
	uint64_t since = f->since_ns, n = total - f->total;

	f->since_ns = now_ns;
	if (total <= f->total) {
		f->total = total;
		return false;
	}
	f->total = total;
	scx_buf_reset(b);
	scx_jw_init(&w, b);
	scx_jw_obj_begin(&w);
	scx_jw_kstr(&w, "type", "missed");
	scx_jw_kuint(&w, "start_ns", since);
	scx_jw_kuint(&w, "end_ns", now_ns);
	scx_jw_kuint(&w, "count", n);
	scx_jw_obj_end(&w);
	return true;
}
