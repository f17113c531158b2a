// SPDX-License-Identifier: GPL-2.0
/*
 * Which names of the sched_ext kfuncs scx-events probes, chosen from the
 * kernel's BTF: fake BTF with the functions of 6.12 (scx_bpf_dispatch*,
 * scx_bpf_dispatch*_from_dsq), of 6.13 to 6.16 (the new scx_bpf_dsq_insert*
 * and scx_bpf_dsq_move* beside the old names kept as wrappers), of later
 * kernels (the new names only, __scx_bpf_dsq_insert_vtime, the ___v2
 * insert, the disable work renamed) and of none.  Only 6.12 can be checked
 * live here (t/vm/0600), so this is where the other kernels are.  And the
 * table the choice is made from names the functions the BPF object's
 * kprobes attach to (their SEC), no more and no fewer.
 */
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>

#include "capture/capture.h"
#include "core/util.h"
#include "events.skel.h"
#include "tap.h"

/* A BTF with one function of each name in FUNCS (NULL-terminated). */
static struct btf *fake_btf(const char *const *funcs)
{
	struct btf *b = btf__new_empty();
	int int_id, proto;

	if (!b)
		return NULL;
	int_id = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	proto = btf__add_func_proto(b, int_id);
	for (; *funcs; funcs++)
		if (btf__add_func(b, *funcs, BTF_FUNC_GLOBAL, proto) < 0)
			return NULL;
	/* a struct of the name is not a function: never probed */
	btf__add_struct(b, "scx_bpf_dsq_move_vtime", 0);
	return b;
}

/* The names chosen for FUNCS, space-separated, into OUT. */
static void chosen(const char *const *funcs, char *out, size_t outsz)
{
	const char *names[32];
	struct btf *b = fake_btf(funcs);
	size_t n, used = 0;

	out[0] = 0;
	if (!b) {
		snprintf(out, outsz, "(no fake BTF)");
		return;
	}
	n = scx_capture_scx_kprobes(b, names, SCX_ARRAY_SIZE(names));
	for (size_t i = 0; i < n && used < outsz; i++)
		used += snprintf(out + used, outsz - used, "%s%s", i ? " " : "", names[i]);
	btf__free(b);
}

static const char *const k612[] = { "scx_bpf_dispatch",
				    "scx_bpf_dispatch_vtime",
				    "scx_bpf_dispatch_from_dsq",
				    "scx_bpf_dispatch_vtime_from_dsq",
				    "bpf_scx_reg",
				    "bpf_scx_unreg",
				    "scx_ops_disable_workfn",
				    "scx_bpf_consume",
				    NULL };

/* 6.13-6.16: the old names are wrappers that call the new ones */
static const char *const k613[] = { "scx_bpf_dsq_insert",
				    "scx_bpf_dsq_insert_vtime",
				    "scx_bpf_dispatch",
				    "scx_bpf_dispatch_vtime",
				    "scx_bpf_dsq_move",
				    "scx_bpf_dsq_move_vtime",
				    "scx_bpf_dispatch_from_dsq",
				    "scx_bpf_dispatch_vtime_from_dsq",
				    "bpf_scx_reg",
				    "bpf_scx_unreg",
				    "scx_ops_disable_workfn",
				    NULL };

/* later: old names gone, the vtime insert takes a struct, the disable work renamed */
static const char *const knew[] = {
	"scx_bpf_dsq_insert", "scx_bpf_dsq_insert___v2", "__scx_bpf_dsq_insert_vtime",
	"scx_bpf_dsq_move",   "scx_bpf_dsq_move_vtime",	 "bpf_scx_reg",
	"bpf_scx_unreg",      "scx_disable_workfn",	 NULL
};

static const char *const knone[] = { "schedule", "sched_fork", NULL };

/* Add the names chosen for FUNCS to SET (space-separated, each once). */
static void add_chosen(const char *const *funcs, char *set, size_t setsz)
{
	const char *names[32];
	char word[128];
	struct btf *b = fake_btf(funcs);
	size_t n = b ? scx_capture_scx_kprobes(b, names, SCX_ARRAY_SIZE(names)) : 0;

	for (size_t i = 0; i < n; i++) {
		snprintf(word, sizeof(word), " %s ", names[i]);
		if (!strstr(set, word))
			snprintf(set + strlen(set), setsz - strlen(set), "%s ", names[i]);
	}
	btf__free(b);
}

/* Count the words of SET (" a b c "). */
static size_t words(const char *set)
{
	size_t n = 0;

	for (const char *w = set; (w = strchr(w, ' ')) && w[1]; w++)
		n++;
	return n;
}

/*
 * The functions chosen over all the kernels above are exactly those the
 * BPF object's kprobes (entry and return) attach to.
 */
static void table_matches_object(void)
{
	char chosen_set[2048] = " ", object_set[2048] = " ", word[128];
	struct events_bpf *skel = events_bpf__open();
	struct bpf_program *p;
	unsigned progs = 0, missing = 0;

	add_chosen(k612, chosen_set, sizeof(chosen_set));
	add_chosen(k613, chosen_set, sizeof(chosen_set));
	add_chosen(knew, chosen_set, sizeof(chosen_set));
	if (!ok(skel, "the events BPF object opens"))
		return;
	bpf_object__for_each_program(p, skel->obj)
	{
		const char *sec = bpf_program__section_name(p), *fn;

		if (*sec == '?')
			sec++;
		if (!strncmp(sec, "kprobe/", 7))
			fn = sec + 7;
		else if (!strncmp(sec, "kretprobe/", 10))
			fn = sec + 10;
		else
			continue;
		progs++;
		snprintf(word, sizeof(word), " %s ", fn);
		if (!strstr(object_set, word))
			snprintf(object_set + strlen(object_set),
				 sizeof(object_set) - strlen(object_set), "%s ", fn);
		if (!strstr(chosen_set, word)) {
			missing++;
			printf("# kprobe %s on %s: chosen on none of the kernels\n",
			       bpf_program__name(p), fn);
		}
	}
	events_bpf__destroy(skel);
	ok(progs >= 17 && !missing, "each of the %u kprobes is chosen on some kernel", progs);
	is_int(words(chosen_set), words(object_set),
	       "no name chosen that no kprobe attaches to (chosen:%s; kprobes:%s)", chosen_set,
	       object_set);
}

int main(void)
{
	char got[1024];
	const char *names[4];
	struct btf *b;

	chosen(k612, got, sizeof(got));
	is_str(got,
	       "scx_bpf_dispatch scx_bpf_dispatch_vtime bpf_scx_reg scx_ops_disable_workfn "
	       "scx_bpf_dispatch_from_dsq scx_bpf_dispatch_vtime_from_dsq",
	       "6.12: the old insert and move names, the disable work, not unreg");

	/*
	 * Both insert names: an insert through the old wrapper hits both
	 * probes, which only note the task's DSQ and time, the same twice.
	 * A move writes a record, so only the new move names.
	 */
	chosen(k613, got, sizeof(got));
	is_str(got,
	       "scx_bpf_dsq_insert scx_bpf_dispatch scx_bpf_dsq_insert_vtime "
	       "scx_bpf_dispatch_vtime bpf_scx_reg scx_ops_disable_workfn scx_bpf_dsq_move "
	       "scx_bpf_dsq_move_vtime",
	       "6.13-6.16: new and old inserts, the new moves only");

	chosen(knew, got, sizeof(got));
	is_str(got,
	       "scx_bpf_dsq_insert scx_bpf_dsq_insert___v2 __scx_bpf_dsq_insert_vtime "
	       "bpf_scx_reg bpf_scx_unreg scx_bpf_dsq_move scx_bpf_dsq_move_vtime",
	       "later kernels: the new names; unreg where the 6.12 disable work is gone");

	chosen(knone, got, sizeof(got));
	is_str(got, "", "a kernel without the kfuncs: nothing");

	ok(scx_capture_scx_kprobes(NULL, names, SCX_ARRAY_SIZE(names)) == 0, "no BTF: nothing");

	b = fake_btf(k613);
	ok(b && scx_capture_scx_kprobes(b, names, 2) == 2 &&
		   !strcmp(names[0], "scx_bpf_dsq_insert") && !strcmp(names[1], "scx_bpf_dispatch"),
	   "at most MAX names, the first ones");
	ok(b && scx_capture_scx_kprobes(b, names, 0) == 0, "MAX 0: none");
	btf__free(b);

	table_matches_object();
	return done_testing();
}
