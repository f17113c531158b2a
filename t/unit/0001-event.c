// SPDX-License-Identifier: GPL-2.0
/* The event name table and the small parsers of util.c. */
#include <errno.h>

#include "core/event.h"
#include "tap.h"
#include "core/util.h"

int main(void)
{
	struct scx_event e;
	char buf[32];
	uint64_t v;
	uint8_t mask[2] = { 0 };

	for (unsigned t = 1; t < SCX_EV__COUNT; t++) {
		const struct scx_ev_desc *d = scx_ev_desc(t);
		ok(d && d->name && d->nr_fields, "kind %u has a name and fields", t);
		is_int(scx_ev_type_by_name(d->name, strlen(d->name)), t, "name %s maps back",
		       d->name);
		for (unsigned i = 0; i < d->nr_fields; i++) {
			const struct scx_field *f = &d->fields[i];
			ok(f->offset + f->size <= offsetof(struct scx_event, sw) + d->payload_size,
			   "%s.%s lies inside its payload", d->name, f->name);
		}
	}
	ok(!scx_ev_desc(0) && !scx_ev_desc(SCX_EV__COUNT), "out-of-range kinds have no desc");
	is_int(scx_ev_type_by_name("sched_switchx", 13), SCX_EV_NONE, "unknown name");

	scx_event_init(&e, SCX_EV_SWITCH);
	ok(e.sw.dsq_id == SCX_DSQ_NONE, "switch starts without dsq");
	const struct scx_field *f = scx_ev_field(SCX_EV_SWITCH, "next_pid", 8);
	scx_field_set_int(&e, f, 4242);
	is_int(e.sw.next_pid, 4242, "set through the table");
	is_int(scx_field_get_int(&e, f), 4242, "get through the table");

	is_str(scx_state_str(0, buf, sizeof(buf)), "R", "state R");
	is_str(scx_state_str(SCX_STATE_PREEMPTED, buf, sizeof(buf)), "R+", "state R+");
	is_str(scx_state_str(1, buf, sizeof(buf)), "S", "state S");
	is_str(scx_state_str(2 | 16, buf, sizeof(buf)), "D|X", "state D|X");

	ok(!scx_parse_duration("1.5s", &v) && v == 1500000000ull, "1.5s");
	ok(!scx_parse_duration("250ms", &v) && v == 250000000ull, "250ms");
	ok(!scx_parse_duration("30", &v) && v == 30000000000ull, "bare seconds");
	ok(scx_parse_duration("-1s", &v) == -EINVAL, "negative duration rejected");
	ok(scx_parse_duration("5 parsecs", &v) == -EINVAL, "unknown unit rejected");
	ok(!scx_parse_size("4M", &v) && v == 4u << 20, "4M");
	ok(!scx_parse_cpulist("0-2,9", mask, 16) && mask[0] == 7 && mask[1] == 2, "cpulist");
	ok(scx_parse_cpulist("0-99", mask, 16) == -ERANGE, "cpulist beyond range");
	ok(scx_parse_cpulist("3-1", mask, 16) == -EINVAL, "reversed range");
	ok(scx_parse_u64("0x10", &v) == 0 && v == 16, "hex");
	ok(scx_parse_u64("12abc", &v) == -EINVAL, "trailing junk");
	return done_testing();
}
