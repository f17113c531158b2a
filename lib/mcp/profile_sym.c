// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolization of profile stacks: kernel addresses from /proc/kallsyms,
 * user addresses through the process's mappings and the ELF symbol tables
 * (.symtab, else .dynsym) of the mapped files, read with libelf.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json/json.h"
#include "mcp/profile_int.h"
#include "core/util.h"

struct sym {
	uint64_t addr, size;
	const char *name; /* into the table's string pool */
};

struct symtab {
	char *path; /* NULL for the kernel */
	struct sym *syms;
	size_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
	/* ELF: file offset -> vaddr of the executable segment */
	uint64_t seg_off, seg_vaddr, seg_size;
	bool ok;
};

static const char *pool_add(struct symtab *t, const char *s)
{
	size_t n = strlen(s) + 1;

	/* offsets are stored until the pool stops moving (fixup below) */
	if (t->pool_len + n > t->pool_cap) {
		t->pool_cap = SCX_MAX(t->pool_cap * 2, t->pool_len + n + 4096);
		t->pool = scx_xrealloc(t->pool, t->pool_cap);
	}
	memcpy(t->pool + t->pool_len, s, n);
	t->pool_len += n;
	return (const char *)(uintptr_t)(t->pool_len - n);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

static void sym_add(struct symtab *t, uint64_t addr, uint64_t size, const char *name)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->syms = scx_xrealloc(t->syms, t->cap * sizeof(*t->syms));
	}
	t->syms[t->n++] = (struct sym){ addr, size, pool_add(t, name) };
}

static void sym_finish(struct symtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		t->syms[i].name = t->pool + (uintptr_t)t->syms[i].name;
	if (t->n)
		qsort(t->syms, t->n, sizeof(*t->syms), cmp_sym);
	t->ok = t->n > 0;
}

static void load_kallsyms(struct symtab *t)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256], mod[128] = "";
		int n = sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, mod);

		if (n < 3 || !addr || (type != 't' && type != 'T' && type != 'W' && type != 'w'))
			continue;
		if (mod[0]) {
			char full[400];

			snprintf(full, sizeof(full), "%s [%s]", name, mod);
			sym_add(t, addr, 0, full);
		} else {
			sym_add(t, addr, 0, name);
		}
	}
	if (f)
		fclose(f);
	sym_finish(t);
}

static void load_elf(struct symtab *t, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t nph;

	t->path = scx_xstrdup(path);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e) {
		close(fd);
		return;
	}
	if (!elf_getphdrnum(e, &nph)) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X)) {
				t->seg_off = ph.p_offset;
				t->seg_vaddr = ph.p_vaddr;
				t->seg_size = ph.p_filesz;
				break;
			}
		}
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !s.st_value)
				continue;
			name = elf_strptr(e, sh.sh_link, s.st_name);
			if (name && *name)
				sym_add(t, s.st_value, s.st_size, name);
		}
	}
	elf_end(e);
	close(fd);
	sym_finish(t);
}

static const struct sym *sym_find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	if (!t->ok)
		return NULL;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (t->syms[lo - 1].size && addr >= t->syms[lo - 1].addr + t->syms[lo - 1].size)
		return NULL;
	return &t->syms[lo - 1];
}

struct symbolizer {
	struct symtab kernel;
	struct symtab *elf;
	size_t nr_elf;
};

static struct symtab *elf_for(struct symbolizer *z, const char *path)
{
	for (size_t i = 0; i < z->nr_elf; i++)
		if (!strcmp(z->elf[i].path, path))
			return &z->elf[i];
	z->elf = scx_xrealloc(z->elf, (z->nr_elf + 1) * sizeof(*z->elf));
	memset(&z->elf[z->nr_elf], 0, sizeof(*z->elf));
	load_elf(&z->elf[z->nr_elf], path);
	return &z->elf[z->nr_elf++];
}

/* "name+0xoff (module)" or "0xaddr (module)" into buf */
static void symbolize(struct symbolizer *z, const struct scx_profile *p, uint32_t tgid, uint64_t ip,
		      bool kernel, char *buf, size_t size)
{
	const struct sym *s;

	if (kernel) {
		s = sym_find(&z->kernel, ip);
		if (s)
			snprintf(buf, size, "%s+0x%llx", s->name,
				 (unsigned long long)(ip - s->addr));
		else
			snprintf(buf, size, "0x%llx [kernel]", (unsigned long long)ip);
		return;
	}
	for (size_t i = 0; i < p->nr_procs; i++) {
		const struct proc *pr = &p->procs[i];

		if (pr->tgid != tgid)
			continue;
		for (unsigned j = 0; j < pr->nr; j++) {
			const struct mapping *m = &pr->maps[j];
			struct symtab *t;
			uint64_t off, va;
			const char *base;

			if (ip < m->start || ip >= m->end)
				continue;
			t = elf_for(z, m->path);
			off = ip - m->start + m->off;
			va = off - t->seg_off + t->seg_vaddr;
			base = strrchr(m->path, '/');
			base = base ? base + 1 : m->path;
			s = sym_find(t, va);
			if (s)
				snprintf(buf, size, "%s+0x%llx (%s)", s->name,
					 (unsigned long long)(va - s->addr), base);
			else
				snprintf(buf, size, "0x%llx (%s)", (unsigned long long)off, base);
			return;
		}
	}
	snprintf(buf, size, "0x%llx", (unsigned long long)ip);
}

static int cmp_count(const void *a, const void *b)
{
	const struct stack *x = *(const struct stack *const *)a,
			   *y = *(const struct stack *const *)b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

struct leaf {
	char name[160];
	uint64_t count;
	bool kernel;
};

/* what the rows' writers need: the sorted stacks and leaves, the budget */
struct scx_profile_rows {
	struct scx_profile *p;
	struct symbolizer *z;
	const struct stack *const *order; /* hottest first */
	const struct leaf *leaves;	  /* hottest first */
	size_t nl;
	unsigned limit;
	size_t max_bytes;
	uint64_t *omitted; /* the results' stacks_omitted */
};

void scx_profile__symbols(struct scx_jw *w, const void *rows)
{
	const struct scx_profile_rows *r = rows;
	const struct scx_profile *p = r->p;

	scx_jw_arr_begin(w);
	for (size_t i = 0; i < r->nl && i < r->limit && w->out->len < r->max_bytes / 2; i++) {
		scx_jw_obj_begin(w);
		scx_jw_kstr(w, "symbol", r->leaves[i].name);
		scx_jw_kuint(w, "count", r->leaves[i].count);
		scx_jw_kdouble(w, "percent",
			       p->samples ? 100.0 * r->leaves[i].count / p->samples : 0);
		scx_jw_kbool(w, "kernel", r->leaves[i].kernel);
		scx_jw_obj_end(w);
	}
	scx_jw_arr_end(w);
}

void scx_profile__stacks(struct scx_jw *w, const void *rows)
{
	const struct scx_profile_rows *r = rows;
	const struct scx_profile *p = r->p;
	size_t shown = 0;
	char buf[400];

	scx_jw_arr_begin(w);
	for (size_t i = 0; i < p->nr_stacks && shown < r->limit && w->out->len < r->max_bytes;
	     i++) {
		const struct stack *s = r->order[i];

		scx_jw_obj_begin(w);
		scx_jw_kuint(w, "count", s->count);
		scx_jw_kuint(w, "pid", s->pid);
		scx_jw_kuint(w, "tgid", s->tgid);
		scx_jw_kstr(w, "comm", s->comm);
		scx_jw_key(w, "frames");
		scx_jw_arr_begin(w);
		for (unsigned f = 0; f < (unsigned)s->nk + s->nu && f < 24; f++) {
			symbolize(r->z, p, s->tgid, s->ips[f], f < s->nk, buf, sizeof(buf));
			scx_jw_str(w, buf);
		}
		scx_jw_arr_end(w);
		scx_jw_obj_end(w);
		shown++;
	}
	scx_jw_arr_end(w);
	*r->omitted = p->nr_stacks - shown;
}

void scx_profile__results(struct scx_profile *p, unsigned limit, bool stacks, size_t max_bytes,
			  struct scx_jw *w,
			  void (*write)(struct scx_jw *w, const struct scx_profile_results *r))
{
	struct symbolizer z = { 0 };
	const struct stack **order;
	struct leaf *leaves = NULL;
	size_t nl = 0;
	char buf[400];

	pthread_mutex_lock(&p->mu);
	load_kallsyms(&z.kernel);
	order = scx_xcalloc(p->nr_stacks + 1, sizeof(*order));
	for (size_t i = 0; i < p->nr_stacks; i++)
		order[i] = &p->stacks[i];
	qsort(order, p->nr_stacks, sizeof(*order), cmp_count);
	/* self time per leaf symbol */
	leaves = scx_xcalloc(p->nr_stacks + 1, sizeof(*leaves));
	for (size_t i = 0; i < p->nr_stacks; i++) {
		const struct stack *s = order[i];
		bool k = s->nk > 0;
		size_t j;

		if (!s->nk && !s->nu)
			snprintf(buf, sizeof(buf), "[no stack]");
		else
			symbolize(&z, p, s->tgid, s->ips[0], k, buf, sizeof(buf));
		/* the leaf's function, not the instruction */
		char *plus = strstr(buf, "+0x");

		if (plus) {
			char *paren = strchr(plus, ' ');

			memmove(plus, paren ? paren : plus + strlen(plus),
				strlen(paren ? paren : "") + 1);
		}
		for (j = 0; j < nl && strcmp(leaves[j].name, buf); j++)
			;
		if (j == nl) {
			snprintf(leaves[nl].name, sizeof(leaves[nl].name), "%.159s", buf);
			leaves[nl++].kernel = k;
		}
		leaves[j].count += s->count;
	}
	for (size_t i = 1; i < nl; i++)
		for (size_t j = i; j && leaves[j].count > leaves[j - 1].count; j--) {
			struct leaf x = leaves[j];

			leaves[j] = leaves[j - 1];
			leaves[j - 1] = x;
		}
	struct scx_profile_results res = {
		.event = p->event,
		.samples = p->samples,
		.samples_in_untracked_stacks = p->other,
		.kernel_symbols = z.kernel.n,
		.distinct_symbols = nl,
		.distinct_stacks = stacks ? (int64_t)p->nr_stacks : -1,
	};
	struct scx_profile_rows rows = {
		.p = p,
		.z = &z,
		.order = order,
		.leaves = leaves,
		.nl = nl,
		.limit = limit,
		.max_bytes = max_bytes,
		.omitted = &res.stacks_omitted,
	};

	res.symbols = &rows;
	res.stacks = stacks ? &rows : NULL;
	write(w, &res);
	pthread_mutex_unlock(&p->mu);
	free(order);
	free(leaves);
	free(z.kernel.syms);
	free(z.kernel.pool);
	for (size_t i = 0; i < z.nr_elf; i++) {
		free(z.elf[i].syms);
		free(z.elf[i].pool);
		free(z.elf[i].path);
	}
	free(z.elf);
}
